import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// What a `MailboxConnection` reports across a reconnect: each flag change once, and never a
/// state a message no longer has.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct ReconnectResyncTests {
    /// Message A is pinned by another client (reported), the connection breaks, then the other
    /// client pins B and unpins A. A's pin was reported again with the reconnect (the resync
    /// asked for every change since the first SELECT: the connection never took the MODSEQs
    /// it saw meanwhile), so a watcher printed A pinned, then unpinned, then B pinned.
    @Test(.enabled(if: MockServerFixture.announces(.condstore)))
    func aChangeSeenBeforeAReconnectIsNotReportedAgain() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 10)
        let connection = MailboxConnection(
            configuration: server.clientConfiguration(), credentials: .password(user: "alice", password: "secret"),
            policy: .init(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), jitterSeed: 1))
        try await connection.open()
        let changes = await connection.changes()
        var iterator = changes.makeAsyncIterator()
        var reported: [UInt32: [[Flag]]] = [:]
        func note(_ uid: UInt32, _ flags: [Flag]) {
            reported[uid, default: []].append(flags.filter { $0 != .recent }.sorted { $0.description < $1.description })
        }
        let other = try await server.loggedInSession()
        let (pinA, pinB) = (UInt32(3), UInt32(7))

        try await other.store(SequenceSet(pinA), .add, [.flagged], silent: true)
        while let change = await iterator.next() {
            if case .mailbox(.flagsChanged(let uid, let flags, _)) = change {
                note(uid, flags)
                if uid == pinA { break }
            }
        }

        // The server drops the connection; the next call reconnects.
        _ = server.faults.add(.command("NOOP", occurrence: 1), .respond(.bye, code: "UNAVAILABLE", text: "restart"))
        try await connection.noop()
        server.faults.removeAll()
        while let change = await iterator.next() {
            if case .reconnected(let report) = change {
                for (uid, flags) in report.flags { note(uid, flags) }
                break
            }
        }

        try await other.store(SequenceSet(pinB), .add, [.flagged], silent: true)
        try await other.store(SequenceSet(pinA), .remove, [.flagged], silent: true)
        // Both changes may come in one answer, in sequence order (A before B): wait for both.
        while reported[pinB] == nil || reported[pinA]?.last != [], let change = await iterator.next() {
            if case .mailbox(.flagsChanged(let uid, let flags, _)) = change { note(uid, flags) }
        }
        #expect(reported[pinA] == [[.flagged], []], "\(reported)")
        #expect(reported[pinB] == [[.flagged]], "\(reported)")
        await other.logout()
        await connection.close()
        await server.stop()
    }
}
