import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// SEARCH FROM/TO/CC/BCC (RFC 3501 6.4.4: "the specified string in the envelope structure's FROM
/// field"): the field's addresses as the ENVELOPE reads them, written out as
/// `"Display Name" <mailbox@host>`, display names RFC 2047 decoded; a display name and a whole
/// address are found alike, whatever comments, folding or quoting the header used. The forms are
/// Dovecot's (`DifferentialTests.addressSearchesMatchDovecot` compares them).
@Suite(.hangGuard) struct AddressSearchTests {
    /// UIDs 1-8.
    static let headers: [String] = [
        "From: ann.lee@example.org\r\nTo: bo@example.org\r\nCc: cy@example.org\r\nBcc: di@example.org\r\n",
        "From: Ann Lee <ann.lee@example.org>\r\nTo: Bo <bo@example.org>\r\n",
        // Comments inside the address and white space around its parts.
        "From: <ann.lee (work)@ (primary) example.org>\r\nTo: < bo @ example.org >\r\n",
        // A trailing comment is the display name.
        "From: ann.lee@example.org (Ann Lee)\r\n",
        "From: =?utf-8?q?Ann_L=C3=A9e?= <ann.lee@example.org>\r\nTo: \"Lee, Ann\" <x@example.org>\r\n",
        "To: team: bo@example.org, cy@example.org;, undisclosed-recipients:;\r\n",
        // Folded, and an ISO-8859-1 name.
        "From: Ann\r\n Lee <ann.lee@\r\n example.org>\r\nCc: =?iso-8859-1?q?J=F6rg?= <j@example.org>\r\n",
        // No domain, a source route.
        "From: Aaron\r\nBcc: <@relay.example.org:rr@example.org>\r\n",
    ]

    static let messages: [[UInt8]] = headers.enumerated().map { index, header in
        Array((header + "Subject: \(index + 1)\r\n\r\nbody\r\n").utf8)
    }

    static let sharedServer = Task { () throws -> MockIMAPServer in
        let server = try await startServer()
        for message in messages { try server.store.seed(user: "alice", from: .raw(message)) }
        return server
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let keys: String
        let uids: [UInt32]
        var testDescription: String { keys }
    }

    static let cases: [Case] = [
        // The whole address, however it was written.
        Case(keys: "FROM ann.lee@example.org", uids: [1, 2, 3, 4, 5, 7]),
        Case(keys: "FROM ANN.LEE@EXAMPLE.ORG", uids: [1, 2, 3, 4, 5, 7]),
        Case(keys: "TO bo@example.org", uids: [1, 2, 3, 6]), Case(keys: "CC cy@example.org", uids: [1]),
        Case(keys: "BCC di@example.org", uids: [1]),
        // Without a name the address is in angle brackets; with one, after it.
        Case(keys: "FROM \"<ann.lee@example.org>\"", uids: [1, 2, 3, 4, 5, 7]),
        Case(keys: "FROM \"ann lee\"", uids: [2, 4, 7]), Case(keys: "TO \"bo <bo@\"", uids: [2]),
        // A name that is not one atom is quoted, as it would be written.
        Case(keys: "FROM \"\\\"Ann Lee\\\" <ann\"", uids: [2, 4, 7]), Case(keys: "FROM \"lee <ann\"", uids: []),
        Case(keys: "TO \"\\\"lee, ann\\\"\"", uids: [5]),
        // RFC 2047 names decoded (and not quoted).
        Case(keys: "CHARSET UTF-8 FROM \"ann lée <ann.lee@\"", uids: [5]), Case(keys: "FROM =?utf-8", uids: []),
        Case(keys: "CHARSET UTF-8 CC \"jörg <j@example.org>\"", uids: [7]),
        // Comments are not part of the envelope.
        Case(keys: "FROM work", uids: []), Case(keys: "FROM primary", uids: []),
        // Groups: the name, the members, the empty group.
        Case(keys: "TO team", uids: [6]), Case(keys: "TO \"team: <bo@example.org>, <cy@\"", uids: [6]),
        Case(keys: "TO \"<cy@example.org>;, undisclosed-recipients:;\"", uids: [6]),
        // Missing parts as the ENVELOPE shows them; a route.
        Case(keys: "FROM \"<aaron@missing_domain>\"", uids: [8]),
        Case(keys: "BCC \"<@relay.example.org:rr@example.org>\"", uids: [8]),
        Case(keys: "OR FROM aaron TO undisclosed", uids: [6, 8]),
    ]

    @Test(arguments: cases) func addressKey(_ searchCase: Case) async throws {
        let server = try await Self.sharedServer.value
        let client = try await server.rawClient()
        defer { client.close() }
        _ = try await client.selectInbox(readOnly: true)
        #expect(try await client.numbers("u", "UID SEARCH \(searchCase.keys)") == searchCase.uids)
    }
}
