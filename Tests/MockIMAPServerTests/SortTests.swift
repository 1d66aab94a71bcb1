import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// SORT as RFC 5256 and RFC 5957 define it: the base subject of section 2.1, the i;ascii-casemap
/// collation (A-Z before `[` and `_`), the first address's mailbox for FROM/TO/CC, the effective
/// display name for DISPLAYFROM/DISPLAYTO, REVERSE per key, ties by sequence number.
@Suite(.hangGuard) struct SortTests {
    struct SubjectCase: Sendable, CustomTestStringConvertible {
        let subject: String
        let base: String
        var testDescription: String { subject.debugDescription }
    }

    /// RFC 5256 2.1, step by step.
    static let subjects: [SubjectCase] = [
        // (1) white space.
        SubjectCase(subject: "  Plain \t\r\n  subject  ", base: "Plain subject"),
        // (2) trailers, repeatedly, any case.
        SubjectCase(subject: "Notes (fwd)", base: "Notes"), SubjectCase(subject: "Notes (FWD)  (fwd) ", base: "Notes"),
        SubjectCase(subject: "Notes (fwd) x", base: "Notes (fwd) x"),
        // (3) leaders: re, fw, fwd, with blobs and white space before the colon.
        SubjectCase(subject: "Re: Hello", base: "Hello"), SubjectCase(subject: "RE: re:Fwd: FW: hello", base: "hello"),
        SubjectCase(subject: "Re[2]: Hello", base: "Hello"), SubjectCase(subject: "re [list 4] : Hello", base: "Hello"),
        SubjectCase(subject: "[list] Re: [other] Fw: Hi", base: "Hi"),
        SubjectCase(subject: "Rex: Hello", base: "Rex: Hello"), SubjectCase(subject: "Fwd Hello", base: "Fwd Hello"),
        SubjectCase(subject: "Re:", base: ""), SubjectCase(subject: "", base: ""),
        // (4) a leading blob goes only when something is left.
        SubjectCase(subject: "[only a blob]", base: "[only a blob]"), SubjectCase(subject: "[a] [b]", base: "[b]"),
        SubjectCase(subject: "[a]  Hello", base: "Hello"), SubjectCase(subject: "[a [b] Hello", base: "[a [b] Hello"),
        // (6) [fwd: ...] wrappers, then from (2) again.
        SubjectCase(subject: "[Fwd: Original]", base: "Original"),
        SubjectCase(subject: "Re: [FWD: Re: Original (fwd)] (fwd)", base: "Original"),
        SubjectCase(subject: "[fwd: a] b", base: "b"), SubjectCase(subject: "[fwd:]", base: ""),
        // Not ASCII: left alone, octet for octet.
        SubjectCase(subject: "Re: Réunion", base: "Réunion"),
    ]

    @Test(arguments: subjects) func baseSubject(_ subjectCase: SubjectCase) {
        #expect(BaseSubject.extract(from: subjectCase.subject) == subjectCase.base)
    }

    /// Six messages, UIDs and sequence numbers 1-6, received in that order:
    ///
    /// | | From | To | Cc | Subject (base) |
    /// |-|-|-|-|-|
    /// | 1 | "Zoe Adams" <walker@> | mike@ | Quinn <quinn@> | Re: Budget (Budget) |
    /// | 2 | alice@ | Kim <kim@> | | _underscore |
    /// | 3 | =?utf-8?q?Bj=C3=B6rn?= <zed@> | undisclosed-recipients:; | | [team] Fwd: budget (fwd) (budget) |
    /// | 4 | Bert <ALICE@> | "" <abe@> | alice@ | [fwd: Budget] (Budget) |
    /// | 5 | | Mike Ross <ross@> | | [ticket 7] |
    /// | 6 | carl@ (Carl) | lee@ | | budget |
    static let messages: [(from: String?, to: String, cc: String?, subject: String)] = [
        (#""Zoe Adams" <walker@x.org>"#, "mike@x.org", "Quinn <quinn@x.org>", "Re: Budget"),
        ("alice@x.org", "Kim <kim@x.org>", nil, "_underscore"),
        ("=?utf-8?q?Bj=C3=B6rn?= <zed@x.org>", "undisclosed-recipients:;", nil, "[team] Fwd: budget (fwd)"),
        ("Bert <ALICE@x.org>", #""" <abe@x.org>"#, "alice@x.org", "[fwd: Budget]"),
        (nil, "Mike Ross <ross@x.org>", nil, "[ticket 7]"),
        ("carl@x.org (Carl)", "lee@x.org", nil, "budget"),
    ]

    static let sharedServer = Task { () throws -> MockIMAPServer in
        let server = try await startServer()
        for (index, fields) in messages.enumerated() {
            var header = ""
            if let from = fields.from { header += "From: \(from)\r\n" }
            header += "To: \(fields.to)\r\n"
            if let cc = fields.cc { header += "Cc: \(cc)\r\n" }
            header += "Subject: \(fields.subject)\r\n"
            try server.store.seed(
                user: "alice",
                from: .raw(
                    Array((header + "\r\nMessage \(index + 1)\r\n").utf8), internalDate: dateTime(2024, 5, index + 1)))
        }
        return server
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let criteria: String
        let order: [UInt32]
        var testDescription: String { criteria }
    }

    static let cases: [Case] = [
        // BUDGET x4, then "[TICKET 7]" and "_UNDERSCORE": upper case sorts before [ and _.
        Case(criteria: "SUBJECT", order: [1, 3, 4, 6, 5, 2]),
        // REVERSE turns the key around; ties stay in ascending sequence order.
        Case(criteria: "REVERSE SUBJECT", order: [2, 5, 1, 3, 4, 6]),
        Case(criteria: "SUBJECT REVERSE ARRIVAL", order: [6, 4, 3, 1, 5, 2]),
        Case(criteria: "REVERSE SUBJECT REVERSE ARRIVAL", order: [2, 5, 6, 4, 3, 1]),
        // The mailbox of the first address, any case ("" without a From; alice = ALICE: by number).
        Case(criteria: "FROM", order: [5, 2, 4, 6, 1, 3]),
        Case(criteria: "REVERSE FROM", order: [3, 1, 6, 2, 4, 5]),
        // A group's first ENVELOPE entry carries its name ("undisclosed-recipients").
        Case(criteria: "TO", order: [4, 2, 6, 1, 5, 3]),
        Case(criteria: "CC", order: [2, 3, 5, 6, 4, 1]),
        Case(criteria: "CC FROM", order: [5, 2, 6, 3, 4, 1]),
        // RFC 5957: the decoded name, else mailbox@host; "BJ\u{F6}RN" after "BERT".
        Case(criteria: "DISPLAYFROM", order: [5, 2, 4, 3, 6, 1]),
        Case(criteria: "REVERSE DISPLAYFROM", order: [1, 6, 3, 4, 2, 5]),
        // "MIKE ROSS" before "MIKE@X.ORG": the space (0x20) before "@" (0x40); a group by its
        // name ("UNDISCLOSED-RECIPIENTS" last), as Dovecot sorts it.
        Case(criteria: "DISPLAYTO", order: [4, 2, 6, 5, 1, 3]),
        Case(criteria: "ARRIVAL", order: [1, 2, 3, 4, 5, 6]),
    ]

    @Test(arguments: cases) func sortOrder(_ sortCase: Case) async throws {
        let server = try await Self.sharedServer.value
        let client = try await server.rawClient()
        defer { client.close() }
        _ = try await client.selectInbox(readOnly: true)
        #expect(try await client.numbers("s", "SORT (\(sortCase.criteria)) UTF-8 ALL") == sortCase.order)
        #expect(try await client.numbers("u", "UID SORT (\(sortCase.criteria)) US-ASCII ALL") == sortCase.order)
    }

    /// imaptest's `sort-display-to` (Dovecot passes it): groups sort by their name, an empty
    /// group too; encoded words decoded; a name before a bare address when it sorts first.
    @Test func displayToAsImaptestChecksIt() async throws {
        let recipients = [
            "foo bar <a@b.c>", "b@c.d", "d", "=?iso-8859-1?q?foo_aar?= <e@f.g>", "=?iso-8859-1?q?foo_car?= <f@g.h>",
            "a: xx@xx.org, yy@yy.org;", "z: aa@aa.org, bb@bb.org;", "empty:;",
        ]
        let server = try await startServer()
        for (index, to) in recipients.enumerated() {
            try server.store.seed(
                user: "alice",
                from: .raw(Array("From: user@domain\r\nTo: \(to)\r\n\r\n\(index + 1)\r\n".utf8), internalDate: nil))
        }
        let client = try await server.rawClient()
        defer { client.close() }
        _ = try await client.selectInbox(readOnly: true)
        #expect(try await client.numbers("s", "SORT (DISPLAYTO) US-ASCII ALL") == [6, 2, 3, 8, 4, 1, 5, 7])
        #expect(try await client.numbers("r", "SORT (REVERSE DISPLAYTO) US-ASCII ALL") == [7, 5, 1, 4, 8, 3, 2, 6])
        await server.stop()
    }

    @Test func displayKeysNeedTheCapability() async throws {
        let server = try await startServer(profile: .full)
        let client = try await server.rawClient()
        let capabilities = try await client.command("c", "CAPABILITY")
        #expect(capabilities.first?.contains(" SORT=DISPLAY") == true)
        _ = try await client.selectInbox()
        #expect(try await client.command("d", "SORT (DISPLAYFROM) UTF-8 ALL").tagged.hasPrefix("d OK"))
        await server.stop()
    }
}
