import IMAPCore
import Testing

/// What real servers send that the RFC grammar does not allow, and that must still parse
/// (issue point 4).
@Suite struct ToleranceTests {
    @Test func gmailKeywordsWithBracketsInFlagsAndPermanentFlags() throws {
        #expect(
            try parseOne("* FLAGS (\\Answered \\Flagged $Forwarded [Gmail]/Sent $Junk)\r\n")
                == .untagged(.flags([.answered, .flagged, "$Forwarded", "[Gmail]/Sent", "$Junk"])))
        #expect(
            try parseOne("* OK [PERMANENTFLAGS (\\Seen [Gmail]/Important \\*)] Flags permitted.\r\n")
                == .untagged(
                    .condition(
                        .ok,
                        ResponseText(
                            code: .permanentFlags([.seen, "[Gmail]/Important", .wildcard]), text: "Flags permitted."))))
        #expect(
            try parseOne("* 1 FETCH (FLAGS (\\Seen [Gmail]/Starred) UID 4)\r\n")
                == .untagged(
                    .fetch(
                        FetchResponse(sequenceNumber: 1, attributes: [.flags([.seen, "[Gmail]/Starred"]), .uid(4)]))))
    }

    @Test func emptyParenthesesWhereNILIsExpectedForAnAddressList() throws {
        let response = try parseOne(
            "* 1 FETCH (ENVELOPE (\"d\" \"s\" () () () ((\"A\" NIL \"a\" \"b.c\")) () () NIL NIL))\r\n")
        guard case .untagged(.fetch(let fetch)) = response else {
            Issue.record("not a fetch")
            return
        }
        #expect(fetch.envelope?.from == [])
        #expect(fetch.envelope?.to == [Address(name: "A", mailbox: "a", host: "b.c")])
        #expect(fetch.envelope?.cc == [])
    }

    @Test func doubleSpaceAndSpaceBeforeCloseParenthesis() throws {
        #expect(try parseOne("*  22279 EXISTS\r\n") == .untagged(.exists(22279)))
        #expect(
            try parseOne("* 1 FETCH (UID 5  FLAGS (\\Seen ) )\r\n")
                == .untagged(.fetch(FetchResponse(sequenceNumber: 1, attributes: [.uid(5), .flags([.seen])]))))
        #expect(try parseOne("* SEARCH 1  2 \r\n") == .untagged(.search([1, 2], modificationSequence: nil)))
    }

    @Test func okWithNoTextAfterIt() throws {
        #expect(try parseOne("a1 OK\r\n") == .tagged(TaggedResponse(tag: "a1", status: .ok, text: ResponseText())))
        #expect(try parseOne("a1 OK \r\n") == .tagged(TaggedResponse(tag: "a1", status: .ok, text: ResponseText())))
        #expect(try parseOne("* OK\r\n") == .untagged(.condition(.ok, ResponseText())))
        #expect(
            try parseOne("* OK [UNSEEN 4]\r\n") == .untagged(.condition(.ok, ResponseText(code: .unseen(4), text: ""))))
    }

    @Test func eightBitUTF8InsideQuotedStrings() throws {
        let response = try parseOne(
            "* 1 FETCH (ENVELOPE (NIL \"Réunion 会议 🎉\" ((\"Søren\" NIL \"s\" \"x.dk\")) NIL NIL NIL NIL NIL NIL NIL))\r\n"
        )
        guard case .untagged(.fetch(let fetch)) = response else {
            Issue.record("not a fetch")
            return
        }
        #expect(fetch.envelope?.subject?.string == "Réunion 会议 🎉")
        #expect(fetch.envelope?.from.first?.name?.string == "Søren")
        #expect(
            try parseOne("* LIST () \"/\" \"Entwürfe\"\r\n")
                == .untagged(.list(MailboxListItem(attributes: [], delimiter: UInt8(ascii: "/"), name: "Entwürfe"))))
    }

    @Test func unknownResponseCodesAndFetchAttributesAreKept() throws {
        #expect(
            try parseOne("* OK [XYZZY 1 (a b)] hello\r\n")
                == .untagged(
                    .condition(.ok, ResponseText(code: .other(name: "XYZZY", value: "1 (a b)"), text: "hello"))))
        let response = try parseOne(
            "* 7 FETCH (UID 9 X-FUTURE (1 (\"a\" {3}\r\nb)c) NIL) X-SECTION[1.2]<0> \"v\" FLAGS (\\Seen) X-ATOM abc)\r\n"
        )
        #expect(
            response
                == .untagged(
                    .fetch(
                        FetchResponse(
                            sequenceNumber: 7,
                            attributes: [
                                .uid(9), .unknown(name: "X-FUTURE", raw: "(1 (\"a\" {3}\r\nb)c) NIL)"),
                                .unknown(name: "X-SECTION", raw: "[1.2]<0> \"v\""), .flags([.seen]),
                                .unknown(name: "X-ATOM", raw: "abc"),
                            ]))))
        #expect(
            try parseOne("* XLIST (\\Inbox) \"/\" INBOX\r\n")
                == .untagged(.unknown(name: "XLIST", raw: "(\\Inbox) \"/\" INBOX")))
    }

    @Test func bodyStructureThatDoesNotFitTheGrammarIsKeptAsInvalid() throws {
        // A size of "x" and a missing encoding: invalid, but the UID and FLAGS around it survive.
        let raw = "(\"text\" \"plain\" (\"charset\" \"utf-8\") NIL NIL x (1 2))"
        let response = try parseOne("* 3 FETCH (UID 8 BODYSTRUCTURE \(raw) FLAGS (\\Seen))\r\n")
        #expect(
            response
                == .untagged(
                    .fetch(
                        FetchResponse(
                            sequenceNumber: 3,
                            attributes: [.uid(8), .bodyStructure(.invalid(ByteString(raw))), .flags([.seen])]))))
    }

    @Test func nilInEnvelopeFieldsWhereStringsAreExpected() throws {
        let response = try parseOne(
            "* 1 FETCH (ENVELOPE (NIL NIL ((NIL NIL NIL NIL)) NIL NIL (NIL (NIL NIL \"u\" \"h\")) NIL NIL NIL NIL))\r\n"
        )
        guard case .untagged(.fetch(let fetch)) = response else {
            Issue.record("not a fetch")
            return
        }
        #expect(fetch.envelope?.date == nil)
        #expect(fetch.envelope?.subject == nil)
        #expect(fetch.envelope?.from == [Address(name: nil, mailbox: nil, host: nil)])
        #expect(fetch.envelope?.to == [Address(name: nil, mailbox: "u", host: "h")])
        #expect(fetch.envelope?.messageID == nil)
    }

    @Test func nilBodyParameterValueAndLowercaseKeywords() throws {
        let response = try parseOne(
            "* 1 fetch (uid 2 bodystructure (\"application\" \"pdf\" (\"name\" NIL) NIL NIL \"base64\" 100 NIL (\"attachment\" NIL) NIL))\r\n"
        )
        guard case .untagged(.fetch(let fetch)) = response, case .singlepart(let part) = fetch.bodyStructure else {
            Issue.record("not a single part fetch")
            return
        }
        #expect(fetch.uid == 2)
        #expect(part.parameters == [BodyParameter(name: "name", value: "")])
        #expect(part.extension?.disposition?.kind == "attachment")
        #expect(fetch.bodyStructure?.hasAttachment == true)
    }

    @Test func bareLineFeedEndsALine() throws {
        #expect(
            try ResponseParser.parseAll(Array("* 1 EXISTS\n* 2 RECENT\n".utf8)) == [
                .untagged(.exists(1)), .untagged(.recent(2)),
            ])
    }
}
