import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// IDLE: changes by other sessions and by the test API reach an idling session at once; only
/// DONE ends it. NOOP reports the same changes.
@Suite(.hangGuard) struct IdleTests {
    @Test func idlingSessionSeesExistsFlagsAndExpunge() async throws {
        let server = try await startServer()
        for index in 1...3 { try server.store.seed(user: "alice", from: .raw(message(subject: "m\(index)"))) }
        let idler = try await server.rawClient()
        _ = try await idler.selectInbox()
        try await idler.send("i IDLE\r\n")
        #expect(try await idler.readLine() == "+ idling")

        // Another session changes flags, appends and expunges.
        let other = try await server.rawClient()
        _ = try await other.selectInbox()
        _ = try await other.command("a", "STORE 2 +FLAGS (\\Seen)")
        #expect(try await idler.readLine() == #"* 2 FETCH (UID 2 FLAGS (\Seen \Recent))"#)
        _ = try await other.command("b", "APPEND INBOX {2+}\r\nhi")
        #expect(try await idler.readLine() == "* 4 EXISTS")
        // \Recent of the new message goes to whichever session reports it first.
        let recent = try await idler.readLine()
        #expect(recent == "* 3 RECENT" || recent == "* 4 RECENT")
        _ = try await other.command("c", "STORE 1 +FLAGS.SILENT (\\Deleted)")
        #expect(try await idler.readLine() == #"* 1 FETCH (UID 1 FLAGS (\Deleted \Recent))"#)
        _ = try await other.command("d", "EXPUNGE")
        #expect(try await idler.readLine() == "* 1 EXPUNGE")

        // The test API counts as another client.
        try server.store.setFlags([.flagged], user: "alice", mailbox: "INBOX", uid: 3)
        #expect(try await idler.readLine() == #"* 2 FETCH (UID 3 FLAGS (\Flagged \Recent))"#)
        try server.store.expunge(user: "alice", mailbox: "INBOX", uids: [2])
        #expect(try await idler.readLine() == "* 1 EXPUNGE")

        // A line other than DONE is not a command during IDLE, and does not end it; DONE does.
        try await idler.send("x NOOP\r\n")
        #expect(try await idler.readLine() == "* BAD expected DONE to end IDLE")
        try server.store.setFlags([.seen], user: "alice", mailbox: "INBOX", uid: 3)
        #expect(try await idler.readLine() == #"* 1 FETCH (UID 3 FLAGS (\Seen \Recent))"#)
        try await idler.send("DONE\r\n")
        #expect(try await idler.readLine() == "i OK IDLE terminated")
        #expect(try await idler.numbers("s", "UID SEARCH ALL") == [3, 4])
        await server.stop()
    }

    @Test func noopReportsChangesAndFetchDefersExpunge() async throws {
        let server = try await startServer()
        for index in 1...3 { try server.store.seed(user: "alice", from: .raw(message(subject: "m\(index)"))) }
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        try server.store.expunge(user: "alice", mailbox: "INBOX", uids: [1])
        // FETCH must not renumber: the EXPUNGE waits (RFC 3501 7.4.1) ...
        let fetch = try await client.command("f", "FETCH 1:3 UID")
        #expect(fetch == ["* 2 FETCH (UID 2)", "* 3 FETCH (UID 3)", "f OK FETCH completed"])
        // ... until a command that may report it.
        #expect(try await client.command("n", "NOOP") == ["* 1 EXPUNGE", "n OK NOOP completed"])
        try server.store.seed(user: "alice", from: .raw(message(subject: "new")))
        #expect(try await client.command("o", "NOOP") == ["* 3 EXISTS", "* 3 RECENT", "o OK NOOP completed"])
        await server.stop()
    }

    @Test(.timeLimit(.minutes(1))) func clientEventsDuringIdle() async throws {
        let server = try await startServer()
        try server.store.seed(user: "alice", from: .raw(message(subject: "first")))
        // The session logs "idling" once the server has accepted IDLE: the changes below are made
        // only then, so they are reported by IDLE and not by the command that starts it.
        let idling = Latch()
        var configuration = server.clientConfiguration()
        configuration.logger = Logger(label: "idle", level: .debug, handler: OnMessage("idling") { idling.open() })
        let session = try await IMAPSession.connect(configuration)
        try await session.login(.password(user: "alice", password: "secret"))
        try await session.select("INBOX")
        let countSeen = Latch()
        let watcher = Task { () -> [MailboxEvent] in
            var seen: [MailboxEvent] = []
            for try await event in session.events() {
                seen.append(event)
                if event == .messageCount(2) { countSeen.open() }
                if case .flagsChanged(1, let flags, _) = event, flags.contains(.seen) { break }
            }
            return seen
        }
        #expect(await idling.wait(timeout: .seconds(30)), "IDLE did not start")
        try server.store.seed(user: "alice", from: .raw(message(subject: "second")))
        #expect(await countSeen.wait(timeout: .seconds(30)), "no EXISTS")
        try server.store.setFlags([.seen], user: "alice", mailbox: "INBOX", uid: 1)
        let seen = try await watcher.value
        #expect(seen.contains(.messageCount(2)))
        #expect(seen.contains(.arrived(SequenceSet(2))))
        #expect(
            seen.contains { event in
                if case .flagsChanged(1, let flags, _) = event { return flags.contains(.seen) }
                return false
            })
        await session.close()
        await server.stop()
    }
}

/// A log handler that calls `action` when `message` is logged.
private struct OnMessage: LogHandler {
    let message: String
    let action: @Sendable () -> Void

    init(_ message: String, _ action: @escaping @Sendable () -> Void) {
        self.message = message
        self.action = action
    }

    func log(level: LogLevel, message: String, label: String) {
        if message == self.message { action() }
    }
}
