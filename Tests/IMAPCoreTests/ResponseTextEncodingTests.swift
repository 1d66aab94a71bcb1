import IMAPCore
import Testing

/// Human-readable response text never carries a control byte: text often quotes what a client
/// sent (a mailbox name), and a CRLF in it would end the response early and make the rest a
/// response of its own.
@Suite struct ResponseTextEncodingTests {
    struct Fixture: Sendable, CustomTestStringConvertible {
        let response: Response
        let wire: String
        let testDescription: String
    }

    static let fixtures: [Fixture] = [
        Fixture(
            response: .tagged(
                TaggedResponse(
                    tag: "d", status: .no,
                    text: ResponseText(
                        code: .other(name: "NONEXISTENT", value: nil),
                        text: "Mailbox does not exist: x\r\nA1 DELETE x"))),
            wire: "d NO [NONEXISTENT] Mailbox does not exist: x  A1 DELETE x\r\n", testDescription: "CRLF in NO text"),
        Fixture(
            response: .untagged(.condition(.bye, ResponseText(text: "bye\u{0}\u{7}\u{1B}[2J\u{7F}\tnow"))),
            wire: "* BYE bye   [2J  now\r\n", testDescription: "NUL, BEL, ESC, DEL and TAB in BYE text"),
        Fixture(
            response: .continuation(ContinuationRequest(text: "go\rA1 OK\non")),
            wire: "+ go A1 OK on\r\n", testDescription: "CR and LF in a continuation request"),
        Fixture(
            response: .tagged(
                TaggedResponse(
                    tag: "a", status: .bad,
                    text: ResponseText(code: .other(name: "X", value: "v]\r\n* BYE"), text: "t"))),
            wire: "a BAD [X v   * BYE] t\r\n", testDescription: "CRLF and ] in a response code's value"),
        Fixture(
            response: .tagged(TaggedResponse(tag: "u", status: .ok, text: ResponseText(text: "Grüße, 日本"))),
            wire: "u OK Grüße, 日本\r\n", testDescription: "UTF-8 text stays as it is"),
    ]

    @Test(arguments: fixtures) func controlBytesBecomeSpaces(_ fixture: Fixture) {
        let bytes = ResponseEncoder.encode(fixture.response)
        #expect(String(decoding: bytes, as: UTF8.self) == fixture.wire)
        // One line: the only CR and LF are the final CRLF, and no other control byte is left.
        #expect(bytes.dropLast(2).allSatisfy { $0 >= 0x20 && $0 != 0x7F })
        #expect(bytes.suffix(2) == [13, 10])
    }
}
