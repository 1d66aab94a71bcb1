import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

@testable import IMAPClient

/// What a caller sees when the session ends, or its own task is cancelled, while it waits for
/// an answer; and what a reconnecting connection tells its owner about the time it was away.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct SessionEndingTests {
    static func server(messages: Int = 10) async throws -> MockIMAPServer {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: messages)
        return server
    }

    @Test func closingTheSessionFailsAWaitingCommandAndAWaitingStreamWithAClearError() async throws {
        let server = try await Self.server()
        let session = try await server.loggedInSession()
        _ = server.faults.add(.command("UID FETCH"), .stall)
        let fetch = Task { () async throws -> Int in
            var count = 0
            for try await _ in session.fetch(SequenceSet(1...5), items: [.uid, .flags]) { count += 1 }
            return count
        }
        // The fetch reached the server, which will never answer it (nor, being stalled, read the
        // search behind it).
        #expect(await server.faults.waitUntilFired(count: 1))
        // A search waits behind it (queued or sent: either way it must fail the same).
        let search = Task { () async throws -> SearchResult in try await session.search([.all]) }
        await session.close()
        let searchError = await #expect(throws: IMAPError.self) { try await search.value }
        let fetchError = await #expect(throws: IMAPError.self) { try await fetch.value }
        #expect(searchError?.code == .cancelled)
        #expect(searchError?.message == "the session was closed")
        #expect(fetchError?.code == .cancelled)
        #expect(fetchError?.message == "the session was closed")
        // And the connection is gone on the server's side too.
        #expect(await server.waitUntilSessionsEnd())
        await server.stop()
    }

    @Test func cancellingAWaitingCommandEndsItsWaitAndTheSessionStaysUsable() async throws {
        let server = try await Self.server()
        let session = try await server.loggedInSession()
        _ = server.faults.add(.command(MockServerFixture.searchCommand, occurrence: 1), .delay(.seconds(5)))
        let search = Task { () async throws -> SearchResult in try await session.search([.all]) }
        #expect(await server.faults.waitUntilFired(count: 1))
        search.cancel()
        let error = await #expect(throws: IMAPError.self) { try await search.value }
        #expect(error?.code == .cancelled)
        // The answer to the abandoned command still comes (late) and is dropped; the next
        // commands get their own answers.
        try await session.noop()
        #expect(try await session.search([.subject("message 4")]).uids == [4])
        #expect(await session.failure == nil)
        await session.logout()
        await server.stop()
    }

    @Test func theBackoffGrowsExponentiallyIsCappedAndJittered() {
        let policy = MailboxConnection.ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(2))
        // No jitter (0): half the exponential delay; full jitter (almost 1): almost all of it.
        #expect(policy.delay(attempt: 0, jitter: 0) == .milliseconds(50))
        #expect(policy.delay(attempt: 1, jitter: 0) == .milliseconds(100))
        #expect(policy.delay(attempt: 3, jitter: 0) == .milliseconds(400))
        #expect(policy.delay(attempt: 3, jitter: 0.999) < .milliseconds(800))
        #expect(policy.delay(attempt: 3, jitter: 0.999) > .milliseconds(799))
        // Capped at maximumDelay, also for attempts far past where 2^n would overflow.
        #expect(policy.delay(attempt: 10, jitter: 0) == .seconds(1))
        #expect(policy.delay(attempt: 500, jitter: 0.999) < .seconds(2))
        // Seeded jitter replays: two connections with one seed wait the same.
        var first = SplitMix(seed: 7)
        var second = SplitMix(seed: 7)
        let waits = (0..<8).map { policy.delay(attempt: $0, jitter: first.nextUnit()) }
        #expect(waits == (0..<8).map { policy.delay(attempt: $0, jitter: second.nextUnit()) })
        #expect(Set(waits).count == 8)
    }

    /// Another client changes a flag and expunges a message while the connection is down: the
    /// reconnect's resynchronisation (CONDSTORE CHANGEDSINCE for the flags, the UID map's
    /// difference for the expunge) tells the owner both.
    @Test(.enabled(if: MockServerFixture.announces(.condstore), "CHANGEDSINCE needs CONDSTORE"))
    func aReconnectReportsWhatAnotherClientChangedWhileItWasAway() async throws {
        let server = try await Self.server()
        var configuration = server.clientConfiguration()
        configuration.timeouts.commandInactivity = .seconds(60)
        let connection = MailboxConnection(
            configuration: configuration, credentials: .password(user: "alice", password: "secret"),
            policy: .init(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), jitterSeed: 3))
        try await connection.open()
        #expect(try await connection.search([.all]).uids.count == 10)  // the complete UID map
        // The other client's changes wait for this session's next command (it is not idling).
        let other = try await server.loggedInSession(user: "alice")
        _ = try await other.store(SequenceSet(3), .add, [.seen, "$Work"])
        _ = try await other.store(SequenceSet(4), .add, [.deleted])
        _ = try await other.execute(.uidExpunge(SequenceSet(4)))
        await other.logout()
        // The next command loses the connection before a byte of its answer; the reconnect's
        // SELECT is held long enough to start listening before the report is made.
        _ = server.faults.add(.command("NOOP", occurrence: 1), .closeAfter(bytes: 0))
        _ = server.faults.add(.command("SELECT", occurrence: 1), .delay(.seconds(5)))
        let noop = Task { () async throws in try await connection.noop() }
        #expect(await server.faults.waitUntilFired(count: 2))
        var changes = await connection.changes().makeAsyncIterator()
        try await noop.value  // retried on the new connection
        var report: MailboxConnection.Resynchronization?
        while report == nil, let change = await changes.next() {
            if case .reconnected(let resynchronization) = change { report = resynchronization }
        }
        let resynchronization = try #require(report)
        #expect(resynchronization.uidValidityChanged == false)
        #expect(Set(resynchronization.flags[3] ?? []) == [.seen, "$Work"])
        #expect(resynchronization.expunged?.numbers == [4])
        #expect(resynchronization.flags.keys.sorted() == [3])
        #expect(await connection.reconnectCount == 1)
        await connection.close()
        await server.stop()
    }
}
