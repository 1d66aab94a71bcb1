import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct AddressParserTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let value: String
        /// Each entry as `name|mailbox@host`, `group:name` or `end`; `-` for a missing part.
        let expected: [String]
        var testDescription: String { value }
    }

    /// One line per entry, so a table row reads like the header.
    static func describe(_ address: MailAddress) -> String {
        switch address.kind {
        case .groupStart: return "group:\(address.name ?? "-")"
        case .groupEnd: return "end"
        case .mailbox:
            let route = address.route.map { "<\($0):>" } ?? ""
            return "\(address.name ?? "-")|\(route)\(address.mailbox ?? "-")@\(address.host ?? "-")"
        }
    }

    static let cases: [Case] = [
        Case(value: "Mary Smith <mary@x.test>", expected: ["Mary Smith|mary@x.test"]),
        Case(value: "mary@x.test", expected: ["-|mary@x.test"]),
        Case(value: "<mary@x.test>", expected: ["-|mary@x.test"]),
        Case(value: #""Smith, John" <john@x.test>"#, expected: ["Smith, John|john@x.test"]),
        Case(value: #""Joe \"JJ\" Q." <jq@x.test>"#, expected: [#"Joe "JJ" Q.|jq@x.test"#]),
        Case(value: "Joe Q. Public <jqp@x.test>", expected: ["Joe Q. Public|jqp@x.test"]),
        Case(value: "bob@y.test (Bob B)", expected: ["Bob B|bob@y.test"]),
        Case(value: "mary@x.test (Mary (the) Smith)", expected: ["Mary (the) Smith|mary@x.test"]),
        // RFC 5322 A.5: comments and white space everywhere.
        Case(
            value: #"Pete(A nice \) chap) <pete(his account)@silly.test(his host)>"#, expected: ["Pete|pete@silly.test"]
        ),
        Case(value: "=?utf-8?q?S=C3=B8ren?= Tanaka <s@x.test>", expected: ["Søren Tanaka|s@x.test"]),
        Case(value: #""=?utf-8?q?Zo=C3=AB?=" <zoe@x.test>"#, expected: ["Zoë|zoe@x.test"]),
        Case(value: #""quoted local"@x.test"#, expected: ["-|quoted local@x.test"]),
        Case(value: "<@a.test,@b.test:c@d.test>", expected: ["-|<@a.test,@b.test:>c@d.test"]),
        Case(value: "undisclosed-recipients:;", expected: ["group:undisclosed-recipients", "end"]),
        Case(
            value: #"Friends: a@b.test, "Q" <q@c.test>;, d@e.test"#,
            expected: ["group:Friends", "-|a@b.test", "Q|q@c.test", "end", "-|d@e.test"]),
        Case(value: "Empty Group:;", expected: ["group:Empty Group", "end"]),
        Case(value: "a@b.test, , c@d.test", expected: ["-|a@b.test", "-|-@-", "-|c@d.test"]),
        // Missing parts: a bare word is a mailbox without a domain; words without an address are
        // a display name.
        Case(value: "alice", expected: ["-|alice@-"]),
        Case(value: "Alice Example", expected: ["Alice Example|-@-"]),
        Case(value: "John <john@broken", expected: ["John|john@broken"]),
        Case(value: "<>", expected: ["-|-@-"]),
        Case(value: "", expected: []),
        Case(value: "   (only a comment)  ", expected: []),
        Case(value: "José <jose@x.test>", expected: ["José|jose@x.test"]),
        Case(value: "a@b.test c@d.test", expected: ["-|a@b.test"]),
    ]

    @Test(arguments: cases) func parses(address: Case) {
        #expect(AddressParser.parse(address.value).map(Self.describe) == address.expected)
    }

    /// An entry of an ENVELOPE address list as `name|mailbox@host` (`<route:>` before the
    /// mailbox), `group:name` or `end`; `-` for NIL.
    static func describe(_ address: MailEnvelope.Address) -> String {
        func text(_ bytes: [UInt8]?) -> String { bytes.map { String(decoding: $0, as: UTF8.self) } ?? "-" }
        guard let host = address.host else { return address.mailbox == nil ? "end" : "group:\(text(address.mailbox))" }
        let route = address.route.map { "<\(text($0)):>" } ?? ""
        return "\(text(address.name))|\(route)\(text(address.mailbox))@\(text(host))"
    }

    /// `RealWorldAddresses.cases` (shared with `DifferentialTests`, which asks Dovecot again).
    @Test(arguments: RealWorldAddresses.cases) func readsRealWorldAddressesAsDovecot(address: RealWorldAddresses.Case) {
        #expect(MailEnvelope.addresses(Array(address.value.utf8)[...]).map(Self.describe) == address.expected)
    }

    @Test func rawNameKeepsEncodedWords() throws {
        let address = try #require(AddressParser.parse("=?utf-8?q?S=C3=B8ren?=   Tanaka <s@x.test>").first)
        #expect(address.rawName == "=?utf-8?q?S=C3=B8ren?= Tanaka")
        #expect(address.name == "Søren Tanaka")
        #expect(address.address == "s@x.test")
        #expect(address.isValid)
    }

    @Test func repairedEntriesAreMarkedInvalid() {
        let entries = AddressParser.parse("alice, John <john@broken, bob@x.test")
        #expect(entries.map(\.isValid) == [false, false, true])
        let valid = AddressParser.parse("bob@x.test, Group:;").map(\.isValid)
        #expect(valid == [true, true, true])
    }

    @Test func eightBitBytesThatAreNotUTF8ReadAsWindows1252() {
        let entries = AddressParser.parse(bytes: Array("Andr".utf8) + [0xE9] + Array(" <a@x.test>".utf8))
        #expect(entries.first?.name == "André")
    }

    @Test func neverCrashesOnGarbage() {
        for garbage in ["<<<>>>", "\"unterminated", "(unterminated", "@@@", ":;:;,,", "<@:>", "a@", "@b", "\u{0}\u{1}"]
        {
            _ = AddressParser.parse(garbage)
        }
    }
}
