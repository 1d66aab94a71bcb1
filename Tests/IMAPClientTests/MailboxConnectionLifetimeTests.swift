import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// A `MailboxConnection` its owner drops ends: its tasks held it strongly (the listener for as
/// long as it listened), so its `deinit`, which cancels them, could never run.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct MailboxConnectionLifetimeTests {
    /// Waits until `condition` holds, checking it every few milliseconds for at most `limit`
    /// (a deallocation sends no event to wait on);
    /// whether it held.
    static func eventually(within limit: Duration = .seconds(20), _ condition: () async -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }

    /// Its owner drops the connection while a watcher still reads its changes: the connection
    /// ends (its listener held it), so do its session and the watcher's stream.
    @Test func aDroppedConnectionThatListensEndsItsTasksAndItsSession() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 5)
        weak var weakConnection: MailboxConnection?
        weak var weakSession: IMAPSession?
        let changes: AsyncStream<MailboxConnection.Change>
        do {
            let connection = MailboxConnection(
                configuration: server.clientConfiguration(), credentials: .password(user: "alice", password: "secret"))
            try await connection.open()
            changes = await connection.changes()
            let session = try await connection.currentSession()
            // The listener is waiting for the session's events.
            #expect(try await Self.eventually { await session.waitingListenerCount == 1 })
            weakConnection = connection
            weakSession = session
        }
        #expect(try await Self.eventually { weakConnection == nil }, "the dropped connection is still alive")
        #expect(try await Self.eventually { weakSession == nil }, "the dropped connection's session is still alive")
        // The watcher's stream ends with the connection.
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        await server.stop()
    }

    /// A connection dropped while it waits to reconnect (for good: `retriesForever`) ends too.
    @Test func aDroppedConnectionWaitingToReconnectEnds() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 5)
        weak var weakConnection: MailboxConnection?
        do {
            let connection = MailboxConnection(
                configuration: server.clientConfiguration(), credentials: .password(user: "alice", password: "secret"),
                policy: .init(initialDelay: .seconds(3600), maximumDelay: .seconds(3600), maximumAttempts: .max))
            try await connection.open()
            // The server drops the connection at the listener's first IDLE, or its first NOOP
            // where the profile has no IDLE (imap4rev1: the listener polls).
            for command in ["IDLE", "NOOP"] {
                _ = server.faults.add(
                    .command(command, occurrence: 1), .respond(.bye, code: "UNAVAILABLE", text: "restart"))
            }
            let changes = await connection.changes()
            var iterator = changes.makeAsyncIterator()
            while let change = await iterator.next() {
                if case .reconnecting = change { break }
            }
            weakConnection = connection
        }
        #expect(try await Self.eventually { weakConnection == nil }, "the dropped connection is still alive")
        await server.stop()
    }
}
