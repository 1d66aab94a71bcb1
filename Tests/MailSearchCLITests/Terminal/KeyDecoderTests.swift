import MailSearchCLI
import TestSupport
import Testing

/// The key decoder against the bytes xterm, tmux and the Linux console send: each fixture whole,
/// one byte at a time, and split at every point; Escape told from Alt and from a sequence by
/// the timeout alone.
@Suite(.hangGuard) struct KeyDecoderTests {
    static let esc: UInt8 = 0x1B

    static let fixtures: [(String, [UInt8], [Key])] = [
        ("letter", Array("a".utf8), [.character("a")]),
        ("text", Array("q/?".utf8), [.character("q"), .character("/"), .character("?")]),
        ("enter (CR)", [0x0D], [.enter]),
        ("enter (LF)", [0x0A], [.enter]),
        ("tab", [0x09], [.tab]),
        ("backspace (DEL)", [0x7F], [.backspace]),
        ("backspace (BS)", [0x08], [.backspace]),
        ("ctrl-c", [0x03], [.control("c")]),
        ("ctrl-u", [0x15], [.control("u")]),
        ("up", [esc] + Array("[A".utf8), [.up]),
        ("down", [esc] + Array("[B".utf8), [.down]),
        ("right", [esc] + Array("[C".utf8), [.right]),
        ("left", [esc] + Array("[D".utf8), [.left]),
        ("up, application mode", [esc] + Array("OA".utf8), [.up]),
        ("home", [esc] + Array("[H".utf8), [.home]),
        ("end", [esc] + Array("[F".utf8), [.end]),
        ("home, vt", [esc] + Array("[1~".utf8), [.home]),
        ("end, vt", [esc] + Array("[4~".utf8), [.end]),
        ("home, rxvt", [esc] + Array("[7~".utf8), [.home]),
        ("page up", [esc] + Array("[5~".utf8), [.pageUp]),
        ("page down", [esc] + Array("[6~".utf8), [.pageDown]),
        ("delete", [esc] + Array("[3~".utf8), [.delete]),
        ("insert", [esc] + Array("[2~".utf8), [.insert]),
        ("shift-tab", [esc] + Array("[Z".utf8), [.backTab]),
        ("ctrl-up is up", [esc] + Array("[1;5A".utf8), [.up]),
        ("F1", [esc] + Array("OP".utf8), [.function(1)]),
        ("F5", [esc] + Array("[15~".utf8), [.function(5)]),
        ("F12", [esc] + Array("[24~".utf8), [.function(12)]),
        ("unknown sequence", [esc] + Array("[99~".utf8), [.unknown(Array("[99~".utf8))]),
        ("alt-x", [esc] + Array("x".utf8), [.alt("x")]),
        ("alt-backspace", [esc, 0x7F], [.alt("\u{7F}")]),
        ("escape then up", [esc, esc] + Array("[A".utf8), [.escape, .up]),
        ("escape then enter", [esc, 0x0D], [.escape, .enter]),
        ("two-byte UTF-8", Array("é".utf8), [.character("é")]),
        ("three-byte UTF-8", Array("会議".utf8), [.character("会"), .character("議")]),
        ("four-byte UTF-8", Array("📌".utf8), [.character("📌")]),
        (
            "mixed", Array("a".utf8) + [esc] + Array("[Bé".utf8) + [0x0D],
            [.character("a"), .down, .character("é"), .enter]
        ),
        ("a broken UTF-8 sequence", [0xC3, 0x28], [.character("\u{FFFD}"), .character("(")]),
        ("a byte never in UTF-8", [0xFF], [.character("\u{FFFD}")]),
        ("a stray continuation byte", [0x80, 0x61], [.character("\u{FFFD}"), .character("a")]),
        ("a paste", pasted("from:alice\ris:unread\n"), [.paste("from:alice\ris:unread\n")]),
        ("an empty paste", pasted(""), [.paste("")]),
        ("a paste of UTF-8", pasted("会議 📌 é"), [.paste("会議 📌 é")]),
        (
            "a paste holding escapes, control keys and half an end marker",
            pasted("a\u{1B}[A\u{1B}\u{1B}[201q\u{03}\u{1B}[200~\t"),
            [.paste("a\u{1B}[A\u{1B}\u{1B}[201q\u{03}\u{1B}[200~\t")]
        ),
        (
            "keys around a paste", Array("/".utf8) + pasted("qpu") + Array("j".utf8) + [esc] + Array("[B".utf8),
            [.character("/"), .paste("qpu"), .character("j"), .down]
        ),
    ]

    /// `text` as a terminal in bracketed paste mode sends it.
    static func pasted(_ text: String) -> [UInt8] {
        [esc] + Array("[200~".utf8) + Array(text.utf8) + [esc] + Array("[201~".utf8)
    }

    @Test(arguments: fixtures.map { ($0.0, $0.1, $0.2) })
    func wholeAndByteByByte(name: String, bytes: [UInt8], expected: [Key]) {
        var whole = KeyDecoder()
        let action = whole.received(bytes)
        #expect(action.keys == expected, "\(name)")
        #expect(!action.awaitsMore, "\(name)")

        var single = KeyDecoder()
        var keys: [Key] = []
        for byte in bytes {
            let step = single.received([byte])
            keys += step.keys
        }
        #expect(keys == expected, "\(name), one byte at a time")
    }

    @Test(arguments: fixtures.map { ($0.0, $0.1, $0.2) })
    func splitAnywhere(name: String, bytes: [UInt8], expected: [Key]) {
        for cut in 0...bytes.count {
            var decoder = KeyDecoder()
            let keys = decoder.received(bytes[..<cut]).keys + decoder.received(bytes[cut...]).keys
            #expect(keys == expected, "\(name), split at \(cut)")
        }
    }

    @Test func aLoneEscapeWaitsThenIsEscape() {
        var decoder = KeyDecoder()
        let first = decoder.received([Self.esc])
        #expect(first.keys.isEmpty)
        #expect(first.awaitsMore)
        let settled = decoder.timedOut()
        #expect(settled.keys == [.escape])
        #expect(!settled.awaitsMore)
        // Nothing is left over: the next key is itself.
        #expect(decoder.received(Array("j".utf8)).keys == [.character("j")])
    }

    @Test func aSequenceCutShortByTheTimeout() {
        var decoder = KeyDecoder()
        #expect(decoder.received([Self.esc, UInt8(ascii: "[")]).awaitsMore)
        #expect(decoder.timedOut().keys == [.alt("[")])

        #expect(decoder.received([Self.esc] + Array("[1;".utf8)).awaitsMore)
        #expect(decoder.timedOut().keys == [.unknown(Array("[1;".utf8))])

        #expect(decoder.received([Self.esc, UInt8(ascii: "O")]).awaitsMore)
        #expect(decoder.timedOut().keys == [.alt("O")])
    }

    @Test func aTimeoutWithNothingPendingDoesNothing() {
        var decoder = KeyDecoder()
        #expect(decoder.timedOut().keys.isEmpty)
        // Half a UTF-8 character waits for the rest without a timeout.
        let half = decoder.received([0xE4])
        #expect(half.keys.isEmpty)
        #expect(!half.awaitsMore)
        #expect(decoder.received([0xBC, 0x9A]).keys == [.character("会")])
    }

    @Test func aPasteSpansReadsAndTimeoutsUntilItsEndMarker() {
        var decoder = KeyDecoder()
        let start = decoder.received([Self.esc] + Array("[200~from:".utf8) + [Self.esc])
        #expect(start.keys.isEmpty)
        #expect(!start.awaitsMore, "a paste has no timeout")
        #expect(decoder.timedOut().keys.isEmpty, "a pause inside a paste settles nothing")
        #expect(decoder.received(Array("x".utf8)).keys.isEmpty)
        #expect(decoder.timedOut().keys.isEmpty)
        #expect(decoder.received(Array("\rq".utf8)).keys.isEmpty)
        let end = decoder.received([Self.esc] + Array("[201~q".utf8))
        #expect(end.keys == [.paste("from:\u{1B}x\rq"), .character("q")])
    }

    @Test func aLongPasteIsCutAtTheLimitOnACharacterAndWhatFollowsIsKeys() {
        var decoder = KeyDecoder()
        // 3-byte characters do not divide the limit: the last one kept would be cut in two.
        let text = String(repeating: "会", count: KeyDecoder.maximumPasteBytes / 3 + 100)
        var keys: [Key] = []
        let bytes = Self.pasted(text) + Array("j".utf8)
        for start in stride(from: 0, to: bytes.count, by: 1000) {
            keys += decoder.received(bytes[start..<min(bytes.count, start + 1000)]).keys
        }
        #expect(keys.count == 2)
        #expect(keys.last == .character("j"))
        guard case .paste(let kept) = keys.first else {
            Issue.record("not a paste: \(keys.first.map { "\($0)" } ?? "nothing")")
            return
        }
        #expect(kept == String(repeating: "会", count: KeyDecoder.maximumPasteBytes / 3))
    }

    @Test func theEscapeDelayIsShortButNotZero() {
        #expect(KeyDecoder.escapeDelay > .zero)
        #expect(KeyDecoder.escapeDelay <= .milliseconds(100))
    }
}
