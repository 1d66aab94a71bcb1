import Foundation
import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `mailsearch watch` sees what another connection changes, survives a dropped connection, and
/// ends cleanly (LOGOUT, exit 0) on Ctrl-C.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct WatchTests {
    /// An unread message of the account's INBOX, made unread for the test.
    func unreadMessage(_ account: MockAccount) throws -> UInt32 {
        let uid = try #require(account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").dropFirst(3).first)
        try account.server.store.setFlags([], user: MockAccount.user, mailbox: "INBOX", uid: uid)
        return uid
    }

    /// Marks `uid` read and pinned over another IMAP connection.
    func changeElsewhere(_ account: MockAccount, _ uid: UInt32) async throws {
        let session = try await account.otherConnection()
        try await session.select("INBOX")
        try await session.store(SequenceSet(numbers: [uid]), .add, [.seen, .flagged])
        await session.logout()
    }

    @Test func printsChangesMadeByAnotherConnectionAndStopsOnControlC() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uid = try unreadMessage(account)
        let watch = try ToolProcess.start(account.tlsArguments + ["watch"], environment: account.environment)
        let banner = await watch.waitForLine { $0.hasPrefix("Watching INBOX on 127.0.0.1 (") }
        #expect(banner != nil, "\(watch.outputLines)")

        try await changeElsewhere(account, uid)
        let changed = await watch.waitForLine { $0.hasPrefix("changed: UID \(uid) ") }
        #expect(changed == "changed: UID \(uid) is read, pinned (\\Seen \\Flagged)")

        let bytes = Array(
            "From: Minerva McGonagall <minerva@hogwarts.example>\r\nTo: alice@example.com\r\nSubject: Transfiguration\r\nDate: Fri, 15 Mar 2024 10:00:00 +0000\r\n\r\nHomework due Monday.\r\n"
                .utf8)
        let newUID = try account.server.store.append(bytes, user: MockAccount.user, mailbox: "INBOX")
        let arrived = await watch.waitForLine { $0.hasPrefix("new: ") }
        #expect(
            arrived?.contains("\(newUID)  2024-03-15  Minerva McGonagall") == true, "\(String(describing: arrived))")
        #expect(arrived?.contains("Transfiguration  Homework due Monday.") == true)

        try account.server.store.expunge(user: MockAccount.user, mailbox: "INBOX", uids: [newUID])
        #expect(await watch.waitForLine { $0 == "expunged: UID \(newUID)" } != nil, "\(watch.outputLines)")

        watch.send(SIGINT)
        let result = await watch.finished()
        #expect(result.status == 0, "\(result)")
        #expect(!result.timedOut)
        #expect(result.standardError.isEmpty, "\(result)")
        // The session logged out: the server saw LOGOUT.
        let watchSession = try #require(account.server.sessions.first)
        #expect(watchSession.transcript.contains { $0.direction == .client && $0.text.hasSuffix(" LOGOUT") })
    }

    /// A synced index follows the mailbox while `watch` runs, and watch says so after each
    /// catch-up (`index: in step, ...`): a message another client delivers is then found by
    /// `search --offline` (which never connects), and a message expunged is gone from it. (It
    /// found that watch's two connections to the index file lost their locks when the second
    /// was opened, so an offline search closing the file deleted the WAL watch went on writing to.)
    @Test func theIndexFollowsTheMailboxWhileWatching() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let sync = try await ToolProcess.run(account.tlsArguments + ["sync"], environment: account.environment)
        #expect(sync.status == 0, "\(sync)")
        let watch = try ToolProcess.start(account.tlsArguments + ["watch"], environment: account.environment)
        #expect(await watch.waitForLine { $0.hasPrefix("Watching INBOX on ") } != nil, "\(watch.outputLines)")
        let first = await watch.waitForLine { $0.hasPrefix("index: ") }
        #expect(first == "index: in step, 279 messages (0 added, 0 changed, 0 removed)", "\(watch.outputLines)")

        /// The UIDs `search --offline` finds for `query`.
        func offline(_ query: String) async throws -> [Int] {
            let result = try await ToolProcess.run(
                account.tlsArguments + ["search", "--offline", "--json", query], environment: account.environment)
            #expect(result.status == 0, "\(result)")
            return try result.lines.map { try #require(jsonObject($0)["uid"] as? Int) }
        }
        #expect(try await offline("xylophone").isEmpty)
        let bytes = Array(
            "From: Minerva McGonagall <minerva@hogwarts.example>\r\nTo: alice@example.com\r\nSubject: Xylophone lessons\r\nDate: Fri, 15 Mar 2024 10:00:00 +0000\r\n\r\nBring the xylophone.\r\n"
                .utf8)
        let newUID = try account.server.store.append(bytes, user: MockAccount.user, mailbox: "INBOX")
        let added = await watch.waitForLine { $0.hasPrefix("index: ") && $0.contains("(1 added") }
        #expect(added == "index: in step, 280 messages (1 added, 0 changed, 0 removed)", "\(watch.outputLines)")
        #expect(try await offline("xylophone") == [Int(newUID)])

        try account.server.store.expunge(user: MockAccount.user, mailbox: "INBOX", uids: [newUID])
        let removed = await watch.waitForLine { $0.hasPrefix("index: ") && $0.contains("1 removed)") }
        #expect(removed?.hasPrefix("index: in step, 279 messages") == true, "\(watch.outputLines)")
        #expect(try await offline("xylophone").isEmpty)

        watch.send(SIGINT)
        let result = await watch.finished()
        #expect(result.status == 0, "\(result)")
    }

    /// An outage longer than any count of attempts: every login refused with BYE twelve times
    /// in a row (the old policy gave up after eight). watch says it is offline in one line,
    /// keeps trying every second (--retry-every 1), and says when it is back.
    @Test func aLongOutageIsWaitedOutAndSaidInOneLine() async throws {
        var faults: FaultPlan = [
            FaultRule(trigger: .command("IDLE", occurrence: 1), fault: .respond(.bye, text: "restarting"))
        ]
        for occurrence in 2...13 {
            for command in ["LOGIN", "AUTHENTICATE"] {
                faults.rules.append(
                    FaultRule(trigger: .command(command, occurrence: occurrence), fault: .respond(.bye, text: "down")))
            }
        }
        let account = try await MockAccount.start(faults: faults)
        defer { Task { await account.stop() } }
        let watch = try ToolProcess.start(
            account.plainArguments + ["watch", "--retry-every", "1"], environment: account.environment)
        #expect(await watch.waitForLine { $0.hasPrefix("Watching INBOX") } != nil, "\(watch.outputLines)")
        let back = await watch.waitForLine { $0 == "connection: reconnected" }
        #expect(back != nil, "\(watch.outputLines)")
        let refused = account.server.faults.fired.filter { $0.command.uppercased() != "IDLE" }.count
        #expect(refused == 12, "\(account.server.faults.fired)")
        let said = watch.outputLines.filter { $0.hasPrefix("connection: ") }
        #expect(said.count == 3, "\(said)")
        #expect(said.first?.hasPrefix("connection: Connection lost (") == true, "\(said)")
        #expect(said.dropFirst().first == "connection: Offline: retrying every 1 s", "\(said)")
        watch.send(SIGINT)
        let result = await watch.finished()
        #expect(result.status == 0, "\(result)")
    }

    @Test func jsonEventsAndAReconnectAfterTheServerSaysBye() async throws {
        let account = try await MockAccount.start(
            faults: [FaultRule(trigger: .command("IDLE", occurrence: 1), fault: .respond(.bye, text: "restarting"))])
        defer { Task { await account.stop() } }
        let uid = try unreadMessage(account)
        let watch = try ToolProcess.start(
            account.plainArguments + ["watch", "--json"], environment: account.environment)
        #expect(await watch.waitForLine { $0.hasPrefix(#"{"event":"watching","mailbox":"INBOX","messages":"#) } != nil)
        #expect(await watch.waitForLine { $0.hasPrefix(#"{"event":"connectionLost""#) } != nil, "\(watch.outputLines)")
        #expect(await watch.waitForLine { $0 == #"{"event":"connectionRestored"}"# } != nil, "\(watch.outputLines)")

        try await changeElsewhere(account, uid)
        let changed = await watch.waitForLine { $0.contains(#""event":"flags","uid":\#(uid),"#) }
        #expect(
            changed
                == #"{"event":"flags","uid":\#(uid),"mailbox":"INBOX","read":true,"pinned":true,"flags":["\\Seen","\\Flagged"]}"#,
            "\(watch.outputLines)")

        watch.send(SIGINT)
        let result = await watch.finished()
        #expect(result.status == 0, "\(result)")
    }
}

/// `watch` against a server without IDLE (the mock's `imap4rev1` profile) polls with NOOP and
/// still sees a change another connection makes.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct WatchWithoutIdleTests {
    @Test func pollingSeesAFlagChangeMadeByAnotherConnection() async throws {
        let account = try await MockAccount.start(profile: .imap4rev1)
        defer { Task { await account.stop() } }
        let uid = try #require(account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").dropFirst(3).first)
        try account.server.store.setFlags([], user: MockAccount.user, mailbox: "INBOX", uid: uid)
        let watch = try ToolProcess.start(account.tlsArguments + ["watch"], environment: account.environment)
        #expect(
            await watch.waitForLine { $0.hasPrefix("Watching INBOX on 127.0.0.1 (") } != nil, "\(watch.outputLines)")

        let other = try await account.otherConnection()
        try await other.select("INBOX")
        try await other.store(SequenceSet(numbers: [uid]), .add, [.seen, .flagged])
        await other.logout()
        // Without IDLE the session polls with NOOP (the first within 5 seconds, then every 30):
        // the change shows at the next one.
        let changed = await watch.waitForLine(timeout: .seconds(75)) { $0.hasPrefix("changed: UID \(uid) ") }
        #expect(changed == "changed: UID \(uid) is read, pinned (\\Seen \\Flagged)", "\(watch.outputLines)")

        watch.send(SIGINT)
        let result = await watch.finished()
        #expect(result.status == 0, "\(result)")
        let session = try #require(account.server.sessions.first)
        let commands = session.transcript.filter { $0.direction == .client }.map(\.text)
        #expect(commands.contains { $0.hasSuffix(" NOOP") }, "\(commands)")
        #expect(!commands.contains { $0.hasSuffix(" IDLE") }, "\(commands)")
    }
}
