import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// SEARCH, ESEARCH and SORT with the meaning RFC 3501, 4731 and 5256 give them.
@Suite(.hangGuard) struct SearchTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let keys: String
        let uids: [UInt32]
        var testDescription: String { keys }
    }

    static let cases: [Case] = [
        Case(keys: "ALL", uids: [1, 2, 3, 4]),
        Case(keys: "ANSWERED", uids: [1]), Case(keys: "UNANSWERED", uids: [2, 3, 4]),
        Case(keys: "DELETED", uids: [3]), Case(keys: "UNDELETED", uids: [1, 2, 4]),
        Case(keys: "DRAFT", uids: [3]), Case(keys: "UNDRAFT", uids: [1, 2, 4]),
        Case(keys: "FLAGGED", uids: [2]), Case(keys: "UNFLAGGED", uids: [1, 3, 4]),
        Case(keys: "SEEN", uids: [1]), Case(keys: "UNSEEN", uids: [2, 3, 4]),
        Case(keys: "KEYWORD $Pinned", uids: [2]), Case(keys: "KEYWORD $pinned", uids: [2]),
        Case(keys: "UNKEYWORD $Pinned", uids: [1, 3, 4]),
        // Addresses: the whole decoded header value, names and addresses, any case.
        Case(keys: "FROM grace", uids: [1]), Case(keys: "FROM \"JONES\"", uids: [1]),
        Case(keys: "FROM apple.com", uids: [1]), Case(keys: "FROM example", uids: [2, 3, 4]),
        Case(keys: "FROM \"Jürgen Müller\"", uids: [2]), Case(keys: "FROM juergen@example.de", uids: [2]),
        Case(keys: "TO bob", uids: [3]), Case(keys: "TO alice", uids: [1, 2, 4]),
        Case(keys: "CC bob", uids: [1]), Case(keys: "BCC carol", uids: [3]), Case(keys: "CC nobody", uids: []),
        // Subject and headers, RFC 2047 decoded.
        Case(keys: "SUBJECT invoice", uids: [1]), Case(keys: "SUBJECT \"für märz\"", uids: [2]),
        Case(keys: "SUBJECT rechnung", uids: [2]), Case(keys: "SUBJECT Re:", uids: [3]),
        Case(keys: "HEADER X-Priority 1", uids: [3]), Case(keys: "HEADER X-Priority \"\"", uids: [3]),
        Case(keys: "HEADER Date \"\"", uids: [1, 2, 3]), Case(keys: "HEADER Message-ID apple", uids: [1]),
        Case(keys: "HEADER X-Missing \"\"", uids: []),
        // Bodies decoded (quoted-printable, UTF-8), TEXT covers headers too.
        Case(keys: "BODY \"grüße aus münchen\"", uids: [2]), Case(keys: "BODY quarterly", uids: [1]),
        Case(keys: "BODY 1364", uids: []), Case(keys: "TEXT 1364", uids: [1]),
        Case(keys: "TEXT meeting", uids: [3]), Case(keys: "TEXT X-Priority", uids: [3]),
        // Received dates (INTERNALDATE), by day.
        Case(keys: "BEFORE 10-Mar-2024", uids: [1]), Case(keys: "ON 10-Mar-2024", uids: [2]),
        Case(keys: "SINCE 10-Mar-2024", uids: [2, 3, 4]), Case(keys: "SINCE 21-Mar-2024", uids: []),
        // Sent dates (Date header, in its own zone; the received date without one).
        Case(keys: "SENTBEFORE 9-Mar-2024", uids: [1]), Case(keys: "SENTON 9-Mar-2024", uids: [2]),
        Case(keys: "SENTSINCE 15-Mar-2024", uids: [3, 4]), Case(keys: "SENTON 20-Mar-2024", uids: [4]),
        // Sizes.
        Case(keys: "LARGER 1000", uids: [3]), Case(keys: "SMALLER 300", uids: [1, 4]),
        Case(keys: "SMALLER 200", uids: [4]),
        // Sets, NOT, OR, parentheses.
        Case(keys: "1:2", uids: [1, 2]), Case(keys: "2,4:*", uids: [2, 4]), Case(keys: "*", uids: [4]),
        Case(keys: "UID 3:*", uids: [3, 4]), Case(keys: "UID 9:*", uids: [4]),
        Case(keys: "NOT SEEN", uids: [2, 3, 4]), Case(keys: "OR SEEN FLAGGED", uids: [1, 2]),
        Case(keys: "OR (SEEN ANSWERED) (FROM team DRAFT)", uids: [1, 3]),
        Case(keys: "NOT (OR SEEN FROM team)", uids: [2, 4]), Case(keys: "UNSEEN UNDELETED", uids: [2, 4]),
        // Several text keys in one search, each with its own string.
        Case(keys: "OR SUBJECT invoice TO bob", uids: [1, 3]),
        Case(keys: "SUBJECT rechnung BODY \"grüße aus münchen\"", uids: [2]),
        Case(keys: "CHARSET UTF-8 SUBJECT {5}\r\nmärz", uids: [2]),
        Case(keys: "CHARSET US-ASCII ALL", uids: [1, 2, 3, 4]),
    ]

    /// One server for the whole table: the searches only read.
    static let sharedServer = Task { () throws -> MockIMAPServer in
        let server = try await startServer()
        try Fixture.seed(server)
        return server
    }

    @Test(arguments: cases) func searchKey(_ searchCase: Case) async throws {
        let server = try await Self.sharedServer.value
        let client = try await server.rawClient()
        _ = try await client.selectInbox(readOnly: true)
        defer { client.close() }
        if searchCase.keys.contains("\r\n") {
            let parts = searchCase.keys.components(separatedBy: "\r\n")
            try await client.send("u UID SEARCH \(parts[0])\r\n")
            #expect(try await client.readLine().hasPrefix("+ "))
            try await client.send(parts[1] + "\r\n")
            let lines = try await client.lines(until: "u")
            #expect(lines.first == "* SEARCH" + searchCase.uids.map { " \($0)" }.joined())
        } else {
            #expect(try await client.numbers("u", "UID SEARCH \(searchCase.keys)") == searchCase.uids)
        }
    }

    /// TEXT and BODY over the parts of a multipart (as `DifferentialTests.pythonEmailCorpusMatchesDovecot`
    /// found Dovecot answer on CPython's test messages): TEXT finds the MIME headers of the parts,
    /// which are in the message's body (RFC 5322 2.1, BODY[TEXT]); BODY searches the parts'
    /// content only, `message/delivery-status` included, and the header of an attached message.
    @Test func textFindsPartHeadersAndBodyFindsMessageParts() async throws {
        let server = try await startServer()
        let report = Array(
            ("From: postmaster@example.org\r\nTo: alice@example.com\r\nSubject: Undelivered\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: multipart/report; report-type=delivery-status; boundary=R\r\n\r\n"
                + "preamble words\r\n--R\r\nContent-Type: text/plain; format=flowed\r\n\r\nYour mail failed.\r\n"
                + "--R\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n"
                + "--R\r\nContent-Type: message/rfc822\r\n\r\nFrom: alice@example.com\r\nSubject: zebraword\r\n"
                + "\r\ninner text\r\n--R--\r\n").utf8)
        try server.store.seed(user: "alice", from: .raw(report))
        try server.store.seed(user: "alice", from: .raw(message(body: "flowed Reporting-MTA is not here")))
        let client = try await server.rawClient()
        _ = try await client.selectInbox(readOnly: true)
        let expected: [(String, [UInt32])] = [
            ("TEXT format=flowed", [1]), ("BODY format=flowed", []), ("TEXT delivery-status", [1]),
            ("BODY delivery-status", []), ("BODY mx.example.org", [1]), ("TEXT Reporting-MTA", [1, 2]),
            ("BODY zebraword", [1]), ("TEXT \"inner text\"", [1]), ("TEXT preamble", []),
        ]
        for (keys, uids) in expected {
            #expect(try await client.numbers("u", "UID SEARCH \(keys)") == uids, "\(keys)")
        }
        client.close()
        await server.stop()
    }

    @Test func recentNewAndOld() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        let first = try await server.rawClient()
        _ = try await first.selectInbox()
        // The first SELECT took \Recent for every message; a later session sees none.
        #expect(try await first.numbers("a", "UID SEARCH RECENT") == [1, 2, 3, 4])
        #expect(try await first.numbers("b", "UID SEARCH NEW") == [2, 3, 4])
        #expect(try await first.numbers("c", "UID SEARCH OLD") == [])
        let second = try await server.rawClient()
        _ = try await second.selectInbox()
        #expect(try await second.numbers("d", "UID SEARCH RECENT") == [])
        #expect(try await second.numbers("e", "UID SEARCH OLD") == [1, 2, 3, 4])
        try server.store.seed(user: "alice", from: .raw(message(subject: "new one")))
        // The session that is told first gets \Recent for it.
        #expect(try await second.command("n", "NOOP") == ["* 5 EXISTS", "* 1 RECENT", "n OK NOOP completed"])
        #expect(try await second.numbers("f", "UID SEARCH NEW") == [5])
        #expect(try await first.numbers("g", "UID SEARCH NEW") == [2, 3, 4])
        await server.stop()
    }

    @Test func sequenceNumbersAndUIDsDiffer() async throws {
        let server = try await startServer()
        try server.store.seed(user: "alice", from: .raw(message(subject: "first"), uid: 10))
        try server.store.seed(user: "alice", from: .raw(message(subject: "second"), uid: 20))
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(try await client.numbers("a", "SEARCH SUBJECT second") == [2])
        #expect(try await client.numbers("b", "UID SEARCH SUBJECT second") == [20])
        #expect(try await client.numbers("c", "SEARCH UID 20") == [2])
        #expect(try await client.numbers("d", "UID SEARCH 1") == [10])
        await server.stop()
    }

    @Test func charsetsAndUnknownKeys() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(
            try await client.command("a", "SEARCH CHARSET ISO-8859-1 ALL")
                == ["a NO [BADCHARSET (UTF-8 US-ASCII)] ISO-8859-1 is not supported"])
        #expect(try await client.command("b", "SEARCH FROBNICATE 1").tagged.hasPrefix("b BAD "))
        #expect(try await client.command("c", "SEARCH").tagged.hasPrefix("c BAD "))
        #expect(try await client.command("d", "SEARCH SAVEDBEFORE 1-Jan-2024").tagged.hasPrefix("d BAD "))
        await server.stop()
        let exchange = try await startServer(profile: .exchangeLike)
        let other = try await exchange.rawClient()
        _ = try await other.selectInbox()
        #expect(
            try await other.command("e", "SEARCH CHARSET UTF-8 ALL")
                == ["e NO [BADCHARSET (US-ASCII)] only US-ASCII can be searched"])
        #expect(try await other.command("f", "SEARCH CHARSET US-ASCII ALL").tagged == "f OK SEARCH completed")
        #expect(try await other.command("g", "UID SORT (DATE) UTF-8 ALL").tagged.hasPrefix("g BAD SORT needs SORT"))
        #expect(try await other.command("h", "UID SEARCH RETURN (COUNT) ALL").tagged.hasPrefix("h BAD "))
        await exchange.stop()
    }

    @Test func extendedSearchReturnOptions() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(
            try await client.command("a", "UID SEARCH RETURN (MIN MAX COUNT ALL) UNSEEN")
                == [#"* ESEARCH (TAG "a") UID MIN 2 MAX 4 COUNT 3 ALL 2:4"#, "a OK SEARCH completed"])
        #expect(
            try await client.command("b", "SEARCH RETURN () FLAGGED")
                == [#"* ESEARCH (TAG "b") ALL 2"#, "b OK SEARCH completed"])
        #expect(
            try await client.command("c", "SEARCH RETURN (COUNT MIN) FROM nobody")
                == [#"* ESEARCH (TAG "c") COUNT 0"#, "c OK SEARCH completed"])
        #expect(try await client.command("d", "SEARCH RETURN (SAVE) ALL").tagged.hasPrefix("d BAD "))
        await server.stop()
    }

    @Test func sortCriteria() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(try await client.numbers("a", "UID SORT (ARRIVAL) UTF-8 ALL") == [1, 2, 3, 4])
        #expect(try await client.numbers("b", "UID SORT (REVERSE ARRIVAL) UTF-8 ALL") == [4, 3, 2, 1])
        // DATE: the Date header in UTC (message 4 has none: its received date, 20 Mar).
        #expect(try await client.numbers("c", "UID SORT (DATE) UTF-8 ALL") == [1, 2, 3, 4])
        // SIZE.
        #expect(try await client.numbers("d", "UID SORT (REVERSE SIZE) UTF-8 ALL").first == 3)
        // SUBJECT by base subject: "Invoice #1364", "Notes", "Rechnung für März", "Team meeting".
        #expect(try await client.numbers("e", "UID SORT (SUBJECT) UTF-8 ALL") == [1, 4, 2, 3])
        // FROM by the mailbox part of the address: dave, grace.jones, juergen, team.
        #expect(try await client.numbers("f", "UID SORT (FROM) UTF-8 ALL") == [4, 1, 2, 3])
        // TO and CC; ties keep sequence order.
        #expect(try await client.numbers("g", "UID SORT (TO) UTF-8 ALL") == [1, 2, 4, 3])
        #expect(try await client.numbers("h", "UID SORT (CC ARRIVAL) UTF-8 ALL") == [2, 3, 4, 1])
        // With search keys, and by sequence number.
        #expect(try await client.numbers("i", "SORT (REVERSE DATE) UTF-8 UNSEEN") == [4, 3, 2])
        #expect(
            try await client.command("j", "SORT (ARRIVAL) ISO-8859-1 ALL").tagged.hasPrefix("j NO [BADCHARSET"))
        await server.stop()
    }

    @Test func modificationSequenceSearch() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        let before = server.store.highestModificationSequence(user: "alice", mailbox: "INBOX")!
        try await client.command("a", "UID STORE 2 +FLAGS (\\Seen)")
        let lines = try await client.command("b", "UID SEARCH MODSEQ \(before + 1)")
        // MODSEQ enables CONDSTORE: HIGHESTMODSEQ first (RFC 7162 3.1).
        #expect(lines.first == "* OK [HIGHESTMODSEQ \(before + 1)] Highest")
        #expect(lines.dropFirst().first == "* SEARCH 2 (MODSEQ \(before + 1))")
        #expect(try await client.command("c", "UID SEARCH MODSEQ 999999").first == "* SEARCH")
        await server.stop()
    }

    @Test func gmailLikeMatchesWholeWordsAndRawQueries() async throws {
        let server = try await startServer(profile: .gmailLike)
        try Fixture.seed(server)
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(try await client.numbers("a", "UID SEARCH SUBJECT invoice") == [1])
        #expect(try await client.numbers("b", "UID SEARCH SUBJECT invo") == [])
        #expect(try await client.numbers("c", "UID SEARCH X-GM-RAW \"quarterly invoice\"") == [1])
        #expect(try await client.numbers("d", "UID SEARCH X-GM-RAW \"quarter\"") == [])
        await server.stop()
    }
}
