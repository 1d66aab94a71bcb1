import IMAPCore
import Testing

/// Parses exactly one response from `text` (which includes its CRLF).
func parseOne(_ text: String) throws -> Response {
    let responses = try ResponseParser.parseAll(Array(text.utf8))
    guard responses.count == 1 else {
        throw IMAPParseError(code: .unexpectedEnd, message: "\(responses.count)", offset: 0, excerpt: "")
    }
    return responses[0]
}

struct ParseFixture: CustomTestStringConvertible, Sendable {
    let wire: String
    let expected: Response
    /// Whether the encoder writes exactly `wire` back (false where the wire is a tolerated form).
    var canonical = true
    var testDescription: String { wire.debugDescription }
}

@Suite struct ResponseParserTests {
    static let address = Address(name: "Grace Jones", mailbox: "grace.jones", host: "apple.com")

    static let fixtures: [ParseFixture] = [
        .init(
            wire: "* OK IMAP4rev1 ready\r\n",
            expected: .untagged(.condition(.ok, ResponseText(text: "IMAP4rev1 ready")))),
        .init(
            wire: "* PREAUTH [CAPABILITY IMAP4rev2] hi\r\n",
            expected: .untagged(.condition(.preauth, ResponseText(code: .capability([.imap4rev2]), text: "hi")))),
        .init(wire: "* BYE Logging out\r\n", expected: .untagged(.condition(.bye, ResponseText(text: "Logging out")))),
        .init(
            wire: "a1 OK [READ-ONLY] done\r\n",
            expected: .tagged(TaggedResponse(tag: "a1", status: .ok, text: ResponseText(code: .readOnly, text: "done")))
        ),
        .init(
            wire: "a2 NO [AUTHENTICATIONFAILED] Authentication failed.\r\n",
            expected: .tagged(
                TaggedResponse(
                    tag: "a2", status: .no,
                    text: ResponseText(code: .authenticationFailed, text: "Authentication failed.")))),
        .init(
            wire: "a3 BAD [PARSE] bad\r\n",
            expected: .tagged(TaggedResponse(tag: "a3", status: .bad, text: ResponseText(code: .parse, text: "bad")))),
        .init(
            wire: "* NO [ALERT] quota\r\n",
            expected: .untagged(.condition(.no, ResponseText(code: .alert, text: "quota")))),
        .init(
            wire: "* BAD [TRYCREATE] x\r\n",
            expected: .untagged(.condition(.bad, ResponseText(code: .tryCreate, text: "x")))),
        .init(
            wire: "* OK [UIDNEXT 20001] x\r\n",
            expected: .untagged(.condition(.ok, ResponseText(code: .uidNext(20001), text: "x")))),
        .init(
            wire: "* OK [UNSEEN 5] x\r\n",
            expected: .untagged(.condition(.ok, ResponseText(code: .unseen(5), text: "x")))),
        .init(
            wire: "* OK [HIGHESTMODSEQ 715194045007] x\r\n",
            expected: .untagged(
                .condition(.ok, ResponseText(code: .highestModificationSequence(715_194_045_007), text: "x")))),
        .init(
            wire: "* OK [NOMODSEQ] x\r\n",
            expected: .untagged(.condition(.ok, ResponseText(code: .noModificationSequence, text: "x")))),
        .init(
            wire: "b OK [MODIFIED 7,9:11] x\r\n",
            expected: .tagged(
                TaggedResponse(
                    tag: "b", status: .ok,
                    text: ResponseText(
                        code: .modified(SequenceSet([SequenceRange(7), SequenceRange(9...11)])), text: "x")))),
        .init(
            wire: "c OK [APPENDUID 38505 3955] APPEND completed\r\n",
            expected: .tagged(
                TaggedResponse(
                    tag: "c", status: .ok,
                    text: ResponseText(
                        code: .appendUID(uidValidity: 38505, uids: SequenceSet(3955)), text: "APPEND completed")))),
        .init(
            wire: "d OK [COPYUID 38505 304,319:320 3956:3958] Done\r\n",
            expected: .tagged(
                TaggedResponse(
                    tag: "d", status: .ok,
                    text: ResponseText(
                        code: .copyUID(
                            uidValidity: 38505, source: SequenceSet([SequenceRange(304), SequenceRange(319...320)]),
                            destination: SequenceSet([SequenceRange(3956...3958)])), text: "Done")))),
        .init(
            wire: "e NO [BADCHARSET (UTF-8 US-ASCII)] no\r\n",
            expected: .tagged(
                TaggedResponse(
                    tag: "e", status: .no, text: ResponseText(code: .badCharset(["UTF-8", "US-ASCII"]), text: "no")))),
        .init(
            wire: "f NO [OVERQUOTA] full\r\n",
            expected: .tagged(
                TaggedResponse(
                    tag: "f", status: .no, text: ResponseText(code: .other(name: "OVERQUOTA", value: nil), text: "full")
                ))),
        .init(
            wire: "* OK [X-SOMETHING a b c] hi\r\n",
            expected: .untagged(
                .condition(.ok, ResponseText(code: .other(name: "X-SOMETHING", value: "a b c"), text: "hi")))),
        .init(
            wire: "* OK [READ-WRITE] x\r\n",
            expected: .untagged(.condition(.ok, ResponseText(code: .readWrite, text: "x")))),
        .init(
            wire: "* OK [CLOSED] x\r\n", expected: .untagged(.condition(.ok, ResponseText(code: .closed, text: "x")))),
        .init(
            wire: "* OK [UIDVALIDITY 3857529045] x\r\n",
            expected: .untagged(.condition(.ok, ResponseText(code: .uidValidity(3_857_529_045), text: "x")))),
        .init(
            wire: "a OK [UIDNOTSTICKY] x\r\n",
            expected: .tagged(TaggedResponse(tag: "a", status: .ok, text: ResponseText(code: .uidNotSticky, text: "x")))
        ),
        .init(
            wire: "* OK [CAPABILITY IMAP4rev1 IDLE] x\r\n",
            expected: .untagged(.condition(.ok, ResponseText(code: .capability([.imap4rev1, .idle]), text: "x")))),
        .init(
            wire: "* OK [PERMANENTFLAGS (\\Seen $Pinned \\*)] x\r\n",
            expected: .untagged(
                .condition(.ok, ResponseText(code: .permanentFlags([.seen, "$Pinned", .wildcard]), text: "x")))),
        .init(
            wire:
                "* 9 FETCH (MODSEQ (624140003) PREVIEW \"Hello \\\"you\\\"\" BODY (\"text\" \"plain\" NIL NIL NIL \"7bit\" 5 1))\r\n",
            expected: .untagged(
                .fetch(
                    FetchResponse(
                        sequenceNumber: 9,
                        attributes: [
                            .modificationSequence(624_140_003), .preview("Hello \"you\""),
                            .body(
                                .singlepart(
                                    SinglePartBody(
                                        mediaType: "text", mediaSubtype: "plain", encoding: "7bit", size: 5,
                                        kind: .text(lineCount: 1)))),
                        ])))),
        .init(wire: "+ Ready for literal\r\n", expected: .continuation(ContinuationRequest(text: "Ready for literal"))),
        .init(wire: "+ \r\n", expected: .continuation(ContinuationRequest(text: ""))),
        .init(wire: "+\r\n", expected: .continuation(ContinuationRequest(text: "")), canonical: false),
        .init(
            wire: "* CAPABILITY IMAP4rev1 LITERAL+ AUTH=PLAIN\r\n",
            expected: .untagged(.capability([.imap4rev1, .literalPlus, .auth("PLAIN")]))),
        .init(wire: "* ENABLED CONDSTORE\r\n", expected: .untagged(.enabled([.condstore]))),
        .init(wire: "* FLAGS (\\Seen $Pinned)\r\n", expected: .untagged(.flags([.seen, "$Pinned"]))),
        .init(
            wire: "* LIST (\\HasNoChildren \\Sent) \"/\" \"Sent Items\"\r\n",
            expected: .untagged(
                .list(
                    MailboxListItem(
                        attributes: ["\\HasNoChildren", "\\Sent"], delimiter: UInt8(ascii: "/"), name: "Sent Items")))),
        .init(
            wire: "* LSUB () NIL INBOX\r\n",
            expected: .untagged(.lsub(MailboxListItem(attributes: [], delimiter: nil, name: .inbox)))),
        .init(
            wire: "* LIST () \".\" foo (\"CHILDINFO\" (\"SUBSCRIBED\"))\r\n",
            expected: .untagged(
                .list(
                    MailboxListItem(
                        attributes: [], delimiter: UInt8(ascii: "."), name: "foo",
                        extendedData: "(\"CHILDINFO\" (\"SUBSCRIBED\"))")))),
        .init(
            wire: "* STATUS \"A b\" (MESSAGES 3 RECENT 1 UIDNEXT 4 UIDVALIDITY 5 UNSEEN 1 DELETED 0 SIZE 99)\r\n",
            expected: .untagged(
                .mailboxStatus(
                    "A b",
                    MailboxStatus(
                        messageCount: 3, recentCount: 1, uidNext: 4, uidValidity: 5, unseenCount: 1, deletedCount: 0,
                        size: 99)))),
        .init(wire: "* SEARCH\r\n", expected: .untagged(.search([], modificationSequence: nil))),
        .init(wire: "* SEARCH 2 84 882\r\n", expected: .untagged(.search([2, 84, 882], modificationSequence: nil))),
        .init(
            wire: "* SEARCH 2 5 (MODSEQ 917162500)\r\n",
            expected: .untagged(.search([2, 5], modificationSequence: 917_162_500))),
        .init(wire: "* SORT 5 3 4\r\n", expected: .untagged(.sort([5, 3, 4], modificationSequence: nil))),
        .init(
            wire: "* ESEARCH (TAG \"A285\") UID MIN 7 MAX 3800\r\n",
            expected: .untagged(.extendedSearch(ExtendedSearchResponse(tag: "A285", isUID: true, min: 7, max: 3800)))),
        .init(
            wire: "* ESEARCH (TAG \"A284\") COUNT 0\r\n",
            expected: .untagged(.extendedSearch(ExtendedSearchResponse(tag: "A284", count: 0)))),
        .init(
            wire: "* ESEARCH (TAG \"a\") ALL 1:3,5 MODSEQ 1236\r\n",
            expected: .untagged(
                .extendedSearch(
                    ExtendedSearchResponse(
                        tag: "a", all: SequenceSet([SequenceRange(1...3), SequenceRange(5)]), modificationSequence: 1236
                    )))),
        .init(
            wire: "* ESEARCH UID ALL 4,9\r\n",
            expected: .untagged(
                .extendedSearch(
                    ExtendedSearchResponse(isUID: true, all: SequenceSet([SequenceRange(4), SequenceRange(9)]))))),
        .init(wire: "* ESEARCH\r\n", expected: .untagged(.extendedSearch(ExtendedSearchResponse()))),
        .init(wire: "* ESEARCH COUNT 2\r\n", expected: .untagged(.extendedSearch(ExtendedSearchResponse(count: 2)))),
        .init(wire: "* 23 EXISTS\r\n", expected: .untagged(.exists(23))),
        .init(wire: "* 5 RECENT\r\n", expected: .untagged(.recent(5))),
        .init(wire: "* 44 EXPUNGE\r\n", expected: .untagged(.expunge(44))),
        .init(
            wire: "* VANISHED (EARLIER) 300:310,405\r\n",
            expected: .untagged(.vanished(earlier: true, SequenceSet([SequenceRange(300...310), SequenceRange(405)])))),
        .init(
            wire: "* VANISHED 1:2\r\n",
            expected: .untagged(.vanished(earlier: false, SequenceSet([SequenceRange(1...2)])))),
        .init(
            wire: "* NAMESPACE ((\"\" \"/\")) ((\"~\" \"/\")) ((\"#shared/\" \"/\")(\"#public/\" \"/\"))\r\n",
            expected: .untagged(
                .namespace(
                    NamespaceResponse(
                        personal: [NamespaceDescription(prefix: "", delimiter: UInt8(ascii: "/"))],
                        otherUsers: [NamespaceDescription(prefix: "~", delimiter: UInt8(ascii: "/"))],
                        shared: [
                            NamespaceDescription(prefix: "#shared/", delimiter: UInt8(ascii: "/")),
                            NamespaceDescription(prefix: "#public/", delimiter: UInt8(ascii: "/")),
                        ])))),
        .init(
            wire: "* ID (\"name\" \"Dovecot\" \"version\" NIL)\r\n",
            expected: .untagged(
                .id([IDParameter(key: "name", value: "Dovecot"), IDParameter(key: "version", value: nil)]))),
        .init(wire: "* ID NIL\r\n", expected: .untagged(.id(nil))),
        .init(
            wire: "* THREAD (2)(3 6 (4 23)(44 7 96))\r\n",
            expected: .untagged(.unknown(name: "THREAD", raw: "(2)(3 6 (4 23)(44 7 96))"))),
        .init(
            wire: "* 12 FETCH (UID 7 FLAGS (\\Seen) RFC822.SIZE 44827 INTERNALDATE \"17-Jul-1996 02:44:25 -0700\")\r\n",
            expected: .untagged(
                .fetch(
                    FetchResponse(
                        sequenceNumber: 12,
                        attributes: [
                            .uid(7), .flags([.seen]), .rfc822Size(44827),
                            .internalDate(
                                IMAPDateTime(
                                    date: IMAPDate(year: 1996, month: 7, day: 17)!, hour: 2, minute: 44, second: 25,
                                    zoneMinutes: -420)!),
                        ])))),
        .init(
            wire:
                "* 1 FETCH (BODY[HEADER.FIELDS (SUBJECT)]<0> {11}\r\nSubject: x\n X-GM-MSGID 1278455344230334865)\r\n",
            expected: .untagged(
                .fetch(
                    FetchResponse(
                        sequenceNumber: 1,
                        attributes: [
                            .bodySection(SectionSpecifier(kind: .headerFields(["SUBJECT"])), origin: 0, "Subject: x\n"),
                            .gmailMessageID(1_278_455_344_230_334_865),
                        ])))),
        .init(
            wire: "* 2 FETCH (BODY[] NIL RFC822.HEADER {2}\r\nab RFC822.TEXT {1}\r\nt RFC822 {0}\r\n PREVIEW NIL)\r\n",
            expected: .untagged(
                .fetch(
                    FetchResponse(
                        sequenceNumber: 2,
                        attributes: [
                            .bodySection(.complete, origin: nil, nil), .rfc822Header("ab"), .rfc822Text("t"),
                            .rfc822(""),
                            .preview(nil),
                        ])))),
        .init(
            wire:
                "* 3 FETCH (BINARY[1.2]<5> ~{3}\r\na\u{0}b BINARY.SIZE[1] 300 X-GM-LABELS (\\Inbox \"Hello world\"))\r\n",
            expected: .untagged(
                .fetch(
                    FetchResponse(
                        sequenceNumber: 3,
                        attributes: [
                            .binary(part: [1, 2], origin: 5, ByteString([0x61, 0, 0x62])), .binarySize(part: [1], 300),
                            .gmailLabels(["\\Inbox", "Hello world"]),
                        ])))),
        .init(
            wire: "* 4 FETCH (ENVELOPE (NIL NIL NIL NIL NIL NIL NIL NIL NIL NIL))\r\n",
            expected: .untagged(.fetch(FetchResponse(sequenceNumber: 4, attributes: [.envelope(Envelope())])))),
        .init(
            wire: "* 5 FETCH (ENVELOPE (\"d\" \"s\" ((\"Grace Jones\" NIL \"grace.jones\" \"apple.com\")) NIL NIL "
                + "((NIL NIL \"team\" NIL)(NIL NIL \"x\" \"y.z\")(NIL NIL NIL NIL)) NIL NIL \"<a@b>\" \"<c@d>\"))\r\n",
            expected: .untagged(
                .fetch(
                    FetchResponse(
                        sequenceNumber: 5,
                        attributes: [
                            .envelope(
                                Envelope(
                                    date: "d", subject: "s", from: [address],
                                    to: [
                                        Address(name: nil, mailbox: "team", host: nil),
                                        Address(name: nil, mailbox: "x", host: "y.z"),
                                        Address(name: nil, mailbox: nil, host: nil),
                                    ], inReplyTo: "<a@b>", messageID: "<c@d>"))
                        ])))),
        // Sender and reply-to repeating From's text are From's list; one byte different is not.
        .init(
            wire: "* 6 FETCH (ENVELOPE (\"d\" \"s\" ((\"Grace Jones\" NIL \"grace.jones\" \"apple.com\")) "
                + "((\"Grace Jones\" NIL \"grace.jones\" \"apple.com\")) ((\"Grace Jones\" NIL \"grace.jones\" \"apple.cox\")) "
                + "((\"Grace Jones\" NIL \"grace.jones\" \"apple.com\")) NIL NIL NIL NIL))\r\n",
            expected: .untagged(
                .fetch(
                    FetchResponse(
                        sequenceNumber: 6,
                        attributes: [
                            .envelope(
                                Envelope(
                                    date: "d", subject: "s", from: [address], sender: [address],
                                    replyTo: [Address(name: "Grace Jones", mailbox: "grace.jones", host: "apple.cox")],
                                    to: [address]))
                        ])))),
        // The same with the one different byte early in the list (the comparison goes eight
        // bytes at a time, then byte by byte): in sender's first word, in reply-to's second.
        .init(
            wire: "* 8 FETCH (ENVELOPE (\"d\" \"s\" ((\"Grace Jones\" NIL \"grace.jones\" \"apple.com\")) "
                + "((\"Brace Jones\" NIL \"grace.jones\" \"apple.com\")) ((\"Grace Janes\" NIL \"grace.jones\" \"apple.com\")) "
                + "NIL NIL NIL NIL NIL))\r\n",
            expected: .untagged(
                .fetch(
                    FetchResponse(
                        sequenceNumber: 8,
                        attributes: [
                            .envelope(
                                Envelope(
                                    date: "d", subject: "s", from: [address],
                                    sender: [Address(name: "Brace Jones", mailbox: "grace.jones", host: "apple.com")],
                                    replyTo: [Address(name: "Grace Janes", mailbox: "grace.jones", host: "apple.com")]))
                        ])))),
        .init(
            wire: "* 7 FETCH (ENVELOPE (NIL NIL ((\"A\" NIL \"a\" \"x\")) "
                + "((\"A\" NIL \"a\" \"x\")(\"B\" NIL \"b\" \"y\")) ((\"A\" NIL \"a\" \"x\")) NIL NIL NIL NIL NIL))\r\n",
            expected: .untagged(
                .fetch(
                    FetchResponse(
                        sequenceNumber: 7,
                        attributes: [
                            .envelope(
                                Envelope(
                                    from: [Address(name: "A", mailbox: "a", host: "x")],
                                    sender: [
                                        Address(name: "A", mailbox: "a", host: "x"),
                                        Address(name: "B", mailbox: "b", host: "y"),
                                    ],
                                    replyTo: [Address(name: "A", mailbox: "a", host: "x")]))
                        ])))),
    ]

    @Test(arguments: fixtures) func parses(fixture: ParseFixture) throws {
        #expect(try parseOne(fixture.wire) == fixture.expected)
    }

    @Test(arguments: fixtures.filter(\.canonical)) func encodesToTheSameWire(fixture: ParseFixture) {
        #expect(String(decoding: ResponseEncoder.encode(fixture.expected), as: UTF8.self) == fixture.wire)
    }

    @Test(arguments: fixtures) func roundTrips(fixture: ParseFixture) throws {
        let encoded = ResponseEncoder.encode(fixture.expected)
        let reparsed = try ResponseParser.parseAll(encoded)
        #expect(reparsed == [fixture.expected], "\(String(decoding: encoded, as: UTF8.self))")
    }

    @Test(arguments: fixtures) func incompleteInputReturnsNilAndKeepsItsPlace(fixture: ParseFixture) throws {
        let bytes = Array(fixture.wire.utf8)
        for cut in [1, bytes.count / 2, bytes.count - 1] {
            var parser = ResponseParser()
            parser.append(bytes[..<cut])
            #expect(try parser.next() == nil)
            parser.append(bytes[cut...])
            #expect(try parser.next() == fixture.expected)
            #expect(try parser.next() == nil)
        }
    }

    static let failures: [(String, Int)] = [
        ("* 1 FETCH (UID abc)\r\n", 15),
        ("* 1 FETCH (UID 1\r\n", 16),
        ("a1 MAYBE fine\r\n", 3),
        ("* FLAGS \\Seen\r\n", 8),
        ("* 1 FETCH (FLAGS (\\Seen) UID 99999999999)\r\n", 29),
        ("* STATUS INBOX (MESSAGES x)\r\n", 25),
        ("* 1 FETCH (INTERNALDATE \"31-Feb-2024 00:00:00 +0000\")\r\n", 24),
    ]

    @Test(arguments: failures) func failuresNameTheOffset(wire: String, offset: Int) {
        do {
            _ = try parseOne(wire)
            Issue.record("parsed \(wire.debugDescription)")
        } catch let error as IMAPParseError {
            #expect(error.offset == offset, "\(error)")
            #expect(error.excerpt.contains(">>>"))
        } catch {
            Issue.record("wrong error \(error)")
        }
    }

    /// Every FETCH attribute the parser knows, with a value it takes.
    static let attributeSamples: [(name: String, value: String)] = [
        ("UID", " 7"), ("BODY", "[] NIL"), ("FLAGS", " (\\Seen)"), ("MODSEQ", " (5)"), ("RFC822", " NIL"),
        ("BINARY", "[1] NIL"), ("PREVIEW", " NIL"), ("ENVELOPE", " (NIL NIL NIL NIL NIL NIL NIL NIL NIL NIL)"),
        ("X-GM-MSGID", " 5"), ("X-GM-THRID", " 6"), ("RFC822.SIZE", " 9"), ("RFC822.TEXT", " NIL"),
        ("BINARY.SIZE", "[1] 3"), ("X-GM-LABELS", " (\\Inbox)"), ("INTERNALDATE", " \"01-Dec-2023 00:13:23 +0000\""),
        ("BODYSTRUCTURE", " (\"text\" \"plain\" NIL NIL NIL \"7bit\" 3 1)"), ("RFC822.HEADER", " NIL"),
    ]

    /// The attributes of `* 1 FETCH (<items>)`.
    static func attributes(_ items: String) throws -> [MessageAttribute] {
        guard case .untagged(.fetch(let fetch)) = try parseOne("* 1 FETCH (\(items))\r\n") else { return [] }
        return fetch.attributes
    }

    @Test func attributeNamesAreKnownInAnyCaseAndOnlyWhole() throws {
        for (name, value) in Self.attributeSamples {
            let upper = try Self.attributes(name + value)
            #expect(upper.count == 1, "\(name)")
            if case .unknown = upper.first { Issue.record("\(name) was not recognised") }
            #expect(try Self.attributes(name.lowercased() + value) == upper, "\(name) in lower case")
            let mixed = String(
                name.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.lowercased()) : $0.element })
            #expect(try Self.attributes(mixed + value) == upper, "\(mixed)")
            // One byte longer, one shorter, the first one changed: unknown, kept by name.
            for other in [name + "X", String(name.dropLast()), "Q" + name.dropFirst()] {
                #expect(try Self.attributes(other + " 7") == [.unknown(name: other, raw: "7")], "\(other)")
            }
        }
    }

    @Test func anErrorLeavesTheFollowingResponsesParseable() throws {
        var parser = ResponseParser()
        parser.append(Array("* 1 EXISTS\r\n* 1 FETCH (UID x)\r\n* 2 EXISTS\r\n".utf8))
        #expect(try parser.next() == .untagged(.exists(1)))
        #expect(throws: IMAPParseError.self) { try parser.next() }
        #expect(try parser.next() == .untagged(.exists(2)))
    }

    @Test func errorOffsetsCountFromTheStartOfTheStream() throws {
        var parser = ResponseParser()
        parser.append(Array("* 1 EXISTS\r\n* 1 FETCH (UID x)\r\n".utf8))
        #expect(try parser.next() == .untagged(.exists(1)))
        let error = #expect(throws: IMAPParseError.self, "a FETCH with UID x parsed") { try parser.next() }
        #expect(error?.code == .unexpectedByte)
        #expect(error?.offset == 12 + 15)
        #expect(error?.description.contains("byte 27") == true)
        // The bad response is skipped whole: nothing is left to parse.
        #expect(parser.bufferedByteCount == 0)
        #expect(try parser.next() == nil)
    }

    @Test func excerptsRedactLoginArguments() {
        let error = IMAPParseError(
            code: .unexpectedByte, message: "m", frame: Array("a1 LOGIN alice hunter2\r\n".utf8), offsetInFrame: 20)
        #expect(!error.excerpt.contains("hunter2"))
        #expect(!error.excerpt.contains("alice"))
        #expect(error.excerpt.contains("LOGIN ***"))
        let authentication = IMAPParseError(
            code: .unexpectedByte, message: "m", frame: Array("a2 AUTHENTICATE PLAIN AGFsaWNlAHNlY3JldA==\r\n".utf8),
            offsetInFrame: 3)
        #expect(!authentication.excerpt.contains("AGFsaWNl"))
        #expect(authentication.excerpt.contains("AUTHENTICATE PLAIN ***"))
    }
}
