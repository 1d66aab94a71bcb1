/// Turns the bytes a terminal sends in raw mode into key presses: a state machine that does no
/// I/O, fed by the input thread (``TerminalInput``).
///
/// ESC is ambiguous: on its own it is the Escape key; followed at once by more bytes it starts an
/// escape sequence (`ESC [ A` is the up arrow, `ESC [ 5 ~` Page Up, `ESC O H` Home) or is Alt
/// with a key (`ESC x` is Alt-x). A terminal writes a whole sequence at once, so when an action
/// says `awaitsMore` the reader waits at most ``escapeDelay`` for the next bytes and otherwise
/// calls ``timedOut()``, which settles the pending bytes (a lone ESC is Escape).
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.received([0x1B, 0x5B, 0x41])     // keys [.up], awaitsMore false
/// decoder.received([0x1B])                 // keys [], awaitsMore true
/// decoder.timedOut()                       // keys [.escape]
/// decoder.received(Array("é".utf8))        // keys [.character("é")]
/// ```
///
/// Bracketed paste (``ANSI/enterFullScreen`` turns it on): what comes between `ESC [ 200 ~` and
/// `ESC [ 201 ~` is one ``Key/paste(_:)``, whatever its bytes (Enter, ESC, control keys), however
/// many reads it spans. It is kept to ``maximumPasteBytes``; the rest of a longer paste is read
/// up to its end marker and dropped, so a paste can neither grow memory without bound nor leak
/// out as keys.
package struct KeyDecoder: Hashable, Sendable {
    /// How long a lone ESC waits for the rest of a sequence before it counts as Escape.
    package static let escapeDelay = Duration.milliseconds(50)

    /// The most bytes of one paste kept (16 KiB: far more than any search; cut at a character).
    package static let maximumPasteBytes = 16 * 1024

    /// `ESC [ 201 ~`, which ends a paste.
    private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]

    /// What the bytes so far decoded to.
    package struct Action: Hashable, Sendable {
        /// The keys completed, in order.
        package var keys: [Key]
        /// Whether bytes are pending that only more input (or ``timedOut()``) can settle.
        package var awaitsMore: Bool
    }

    private enum State: Hashable, Sendable {
        /// Between keys.
        case ground
        /// After ESC.
        case escape
        /// After `ESC [`: the parameter and intermediate bytes so far.
        case controlSequence([UInt8])
        /// After `ESC O`.
        case singleShift
        /// Inside a UTF-8 sequence: its bytes so far and how many are still to come.
        case text([UInt8], remaining: Int)
        /// Inside a bracketed paste, `matched` bytes into what may be its end marker.
        case paste(matched: Int)
    }

    private var state: State = .ground
    /// The paste's text so far (in `.paste`): kept out of the enum so that appending a byte
    /// does not copy it.
    private var pasted: [UInt8] = []

    /// An idle decoder.
    package init() {}

    /// Decodes `bytes`, which follow the bytes received before.
    package mutating func received(_ bytes: some Sequence<UInt8>) -> Action {
        var keys: [Key] = []
        for byte in bytes { step(byte, into: &keys) }
        return Action(keys: keys, awaitsMore: awaitsMore)
    }

    /// No byte came within ``escapeDelay``: what is pending is complete as it is.
    package mutating func timedOut() -> Action {
        var keys: [Key] = []
        switch state {
        case .ground:
            break
        case .escape:
            keys.append(.escape)
        case .controlSequence(let bytes):
            // `ESC [` alone is Alt-[; anything longer is a sequence cut short.
            keys.append(bytes.isEmpty ? .alt("[") : .unknown([0x5B] + bytes))
        case .singleShift:
            keys.append(.alt("O"))
        case .text:
            keys.append(.character("\u{FFFD}"))
        case .paste:
            // A paste waits for its end marker, however slowly it comes.
            return Action(keys: [], awaitsMore: false)
        }
        state = .ground
        return Action(keys: keys, awaitsMore: false)
    }

    /// Whether the state holds bytes that a timeout would settle (a UTF-8 sequence just waits).
    private var awaitsMore: Bool {
        switch state {
        case .ground, .text, .paste: return false
        case .escape, .controlSequence, .singleShift: return true
        }
    }

    private mutating func step(_ byte: UInt8, into keys: inout [Key]) {
        switch state {
        case .ground:
            ground(byte, into: &keys)
        case .escape:
            switch byte {
            case 0x5B:  // [
                state = .controlSequence([])
            case 0x4F:  // O
                state = .singleShift
            case 0x1B:
                // ESC ESC: the first was Escape; the second may start a sequence.
                keys.append(.escape)
            case 0x20...0x7F:
                // Alt with a key (Alt-Backspace is ESC DEL), not Escape and then the key.
                keys.append(.alt(Character(Unicode.Scalar(byte))))
                state = .ground
            default:
                // Escape, then a key of its own (a control key or the start of text).
                keys.append(.escape)
                state = .ground
                ground(byte, into: &keys)
            }
        case .controlSequence(let bytes):
            switch byte {
            case 0x20...0x3F:
                state = .controlSequence(bytes + [byte])
            case 0x7E where bytes == [0x32, 0x30, 0x30]:  // ESC [ 200 ~
                pasted = []
                state = .paste(matched: 0)
            case 0x40...0x7E:
                keys.append(Self.controlSequence(parameters: bytes, final: byte))
                state = .ground
            default:
                // Not part of a sequence: what came so far is unknown, the byte starts anew.
                keys.append(.unknown([0x5B] + bytes))
                state = .ground
                ground(byte, into: &keys)
            }
        case .singleShift:
            state = .ground
            switch byte {
            case 0x41: keys.append(.up)
            case 0x42: keys.append(.down)
            case 0x43: keys.append(.right)
            case 0x44: keys.append(.left)
            case 0x48: keys.append(.home)
            case 0x46: keys.append(.end)
            case 0x50...0x53: keys.append(.function(Int(byte - 0x50) + 1))
            case 0x4D: keys.append(.enter)  // keypad Enter in application mode
            default: keys.append(.unknown([0x4F, byte]))
            }
        case .text(let bytes, let remaining):
            guard byte & 0xC0 == 0x80 else {
                keys.append(.character("\u{FFFD}"))
                state = .ground
                ground(byte, into: &keys)
                return
            }
            if remaining > 1 {
                state = .text(bytes + [byte], remaining: remaining - 1)
            } else {
                state = .ground
                keys.append(Self.character(bytes + [byte]))
            }
        case .paste(let matched):
            if byte == Self.pasteEnd[matched] {
                guard matched + 1 == Self.pasteEnd.count else {
                    state = .paste(matched: matched + 1)
                    return
                }
                keys.append(.paste(Self.pasteText(pasted)))
                pasted = []
                state = .ground
                return
            }
            // The marker's first byte (ESC) is nowhere else in it: what matched is text, and
            // this byte may begin the marker again.
            keep(Self.pasteEnd[0..<matched])
            if byte == Self.pasteEnd[0] {
                state = .paste(matched: 1)
            } else {
                keep(CollectionOfOne(byte))
                state = .paste(matched: 0)
            }
        }
    }

    /// Adds `bytes` to the paste, up to ``maximumPasteBytes``.
    private mutating func keep(_ bytes: some Collection<UInt8>) {
        let room = Self.maximumPasteBytes - pasted.count
        guard room > 0 else { return }
        pasted.append(contentsOf: bytes.prefix(room))
    }

    /// The pasted bytes as text; a paste cut at the limit loses the character cut in two.
    private static func pasteText(_ bytes: [UInt8]) -> String {
        var end = bytes.count
        if end == maximumPasteBytes {
            // Back to the first byte of the last sequence; drop it unless it is complete.
            var start = end - 1
            while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
            let lead = bytes[start]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if end - start < length { end = start }
        }
        return String(decoding: bytes[0..<end], as: UTF8.self)
    }

    private mutating func ground(_ byte: UInt8, into keys: inout [Key]) {
        switch byte {
        case 0x1B: state = .escape
        case 0x0D, 0x0A: keys.append(.enter)
        case 0x09: keys.append(.tab)
        case 0x7F, 0x08: keys.append(.backspace)
        case 0x00: keys.append(.control(" "))
        case 0x01...0x1A: keys.append(.control(Character(Unicode.Scalar(byte + 0x60))))
        case 0x1C...0x1F: keys.append(.unknown([byte]))
        case 0x20...0x7E: keys.append(.character(Character(Unicode.Scalar(byte))))
        case 0xC2...0xDF: state = .text([byte], remaining: 1)
        case 0xE0...0xEF: state = .text([byte], remaining: 2)
        case 0xF0...0xF4: state = .text([byte], remaining: 3)
        default: keys.append(.character("\u{FFFD}"))  // a stray continuation byte, or never valid
        }
    }

    /// The scalar of a complete UTF-8 sequence (the replacement character when it is malformed,
    /// such as an overlong form or a surrogate).
    private static func character(_ bytes: [UInt8]) -> Key {
        let text = String(decoding: bytes, as: UTF8.self)
        return .character(text.first ?? "\u{FFFD}")
    }

    /// `CSI parameters final`: the cursor and editing keys of xterm, with modifiers ignored
    /// (`ESC [ 1 ; 5 A`, Ctrl-Up, is Up).
    private static func controlSequence(parameters: [UInt8], final: UInt8) -> Key {
        let text = String(decoding: parameters, as: UTF8.self)
        let first = Int(text.split(separator: ";", omittingEmptySubsequences: false).first ?? "")
        switch final {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        case 0x48: return .home
        case 0x46: return .end
        case 0x5A: return .backTab
        case 0x7E:
            switch first {
            case 1, 7: return .home
            case 4, 8: return .end
            case 2: return .insert
            case 3: return .delete
            case 5: return .pageUp
            case 6: return .pageDown
            case 11, 12, 13, 14: return .function(first! - 10)
            case 15: return .function(5)
            case 17, 18, 19, 20, 21: return .function(first! - 11)
            case 23, 24: return .function(first! - 12)
            default: break
            }
        default: break
        }
        return .unknown([0x5B] + parameters + [final])
    }
}
