import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// QRESYNC (RFC 7162 3.2) under the `qresync` profile, line by line as a raw client sees it:
/// ENABLE, SELECT with what the client knows (VANISHED (EARLIER) and the changed messages' FETCH
/// in the same answer), VANISHED instead of EXPUNGE, and UID FETCH with (CHANGEDSINCE VANISHED).
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct QResyncTests {
    /// Ten messages, UIDs 1-10, then 3 and 7 expunged and 5 flagged, the mailbox's state before
    /// and after the changes.
    static func server(
        profile: Profile = .qresync
    ) async throws -> (server: MockIMAPServer, uidValidity: UInt32, before: UInt64) {
        let server = try await startServer(profile: profile)
        for uid in 1...10 { try server.store.seed(user: "alice", from: .raw(message(subject: "m\(uid)"))) }
        let uidValidity = try #require(server.store.uidValidity(user: "alice", mailbox: "INBOX"))
        let before = try #require(server.store.highestModificationSequence(user: "alice", mailbox: "INBOX"))
        try server.store.expunge(user: "alice", mailbox: "INBOX", uids: [3, 7])
        try server.store.setFlags([.flagged], user: "alice", mailbox: "INBOX", uid: 5)
        return (server, uidValidity, before)
    }

    @Test func selectWithWhatTheClientKnowsReportsWhatItMissed() async throws {
        let (server, uidValidity, before) = try await Self.server()
        defer { Task { await server.stop() } }
        let client = try await server.rawClient()
        try await client.login()
        #expect(try await client.command("e1", "ENABLE QRESYNC") == ["* ENABLED QRESYNC", "e1 OK ENABLE completed"])
        let answer = try await client.command("s1", "SELECT INBOX (QRESYNC (\(uidValidity) \(before) 1:10))")
        #expect(answer.contains("* VANISHED (EARLIER) 3,7"), "\(answer)")
        let fetches = answer.filter { $0.hasPrefix("* ") && $0.contains(" FETCH ") }
        #expect(fetches.count == 1 && fetches[0].hasPrefix("* 4 FETCH (UID 5 FLAGS (\\Flagged"), "\(answer)")
        #expect(answer.last?.hasPrefix("s1 OK") == true)
        // A UIDVALIDITY the mailbox no longer has: nothing to resynchronise, no VANISHED.
        let other = try await client.command("s2", "EXAMINE INBOX (QRESYNC (\(uidValidity &+ 1) \(before)))")
        #expect(!other.contains { $0.contains("VANISHED") || $0.contains(" FETCH ") }, "\(other)")
        client.close()
    }

    @Test func expungesAreVanishedOnceEnabledAndUIDFetchReportsThem() async throws {
        let (server, _, before) = try await Self.server()
        defer { Task { await server.stop() } }
        let client = try await server.rawClient()
        try await client.login()
        _ = try await client.command("e1", "ENABLE QRESYNC")
        _ = try await client.command("s1", "SELECT INBOX")
        let changed = try await client.command("f1", "UID FETCH 1:* (FLAGS) (CHANGEDSINCE \(before) VANISHED)")
        #expect(changed.first == "* VANISHED (EARLIER) 3,7", "\(changed)")
        #expect(changed.filter { $0.hasPrefix("* ") && $0.contains(" FETCH ") }.count == 1, "\(changed)")
        _ = try await client.command("d1", "UID STORE 9:10 +FLAGS.SILENT (\\Deleted)")
        let expunged = try await client.command("x1", "EXPUNGE")
        #expect(expunged == ["* VANISHED 9:10", "x1 OK EXPUNGE completed"])
        // Another client's expunge arrives the same way.
        try server.store.expunge(user: "alice", mailbox: "INBOX", uids: [1])
        #expect(try await client.command("n1", "NOOP") == ["* VANISHED 1", "n1 OK NOOP completed"])
        #expect(
            try await client.command("b1", "FETCH 1 (FLAGS) (CHANGEDSINCE 1 VANISHED)").last?.hasPrefix("b1 BAD")
                == true)
        client.close()
    }

    @Test func qresyncMustBeEnabledAndAnnounced() async throws {
        let (server, uidValidity, before) = try await Self.server()
        defer { Task { await server.stop() } }
        let client = try await server.rawClient()
        try await client.login()
        let early = try await client.command("s1", "SELECT INBOX (QRESYNC (\(uidValidity) \(before)))")
        #expect(early.last?.hasPrefix("s1 BAD") == true, "\(early)")
        _ = try await client.command("s2", "SELECT INBOX")
        let fetch = try await client.command("f1", "UID FETCH 1:* (FLAGS) (CHANGEDSINCE 1 VANISHED)")
        #expect(fetch.last?.hasPrefix("f1 BAD") == true, "\(fetch)")
        // Without QRESYNC: EXPUNGE as RFC 3501 has it.
        try server.store.expunge(user: "alice", mailbox: "INBOX", uids: [1])
        #expect(try await client.command("n1", "NOOP") == ["* 1 EXPUNGE", "n1 OK NOOP completed"])
        client.close()

        let (full, _, _) = try await Self.server(profile: .full)
        defer { Task { await full.stop() } }
        let plain = try await full.rawClient()
        try await plain.login()
        #expect(try await plain.command("e1", "ENABLE QRESYNC") == ["* ENABLED", "e1 OK ENABLE completed"])
        plain.close()
    }
}
