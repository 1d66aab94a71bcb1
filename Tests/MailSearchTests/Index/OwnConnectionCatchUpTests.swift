import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MockIMAPServer
import TestSupport
import Testing

/// `IMAPMailService.syncIndex` catches the open mailbox up on the service's own connection, from
/// what its SELECT reported (`IndexSync.sync(selected:over:)`), under every profile of the mock:
/// with nothing changed no command is sent; messages that came and went after the SELECT are
/// not taken for "nothing changed"; an arrival indexed this way is not added twice by a later
/// QRESYNC catch-up.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct OwnConnectionCatchUpTests {
    /// A server with `count` messages, an index of its INBOX synced over a session of its own,
    /// and the index's directory.
    static func synced(profile: Profile, count: Int = 20) async throws -> (MockIMAPServer, MessageIndex, URL) {
        let server = try await ServiceFixture.start(profile: profile, count: count)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("own-catch-up-\(UUID())")
        let index = try MessageIndex(path: directory.appendingPathComponent("index.sqlite").path)
        let syncing = ServiceFixture.service(server)
        _ = try await syncing.syncIndex(index, mailboxes: ["INBOX"])
        await syncing.close()
        return (server, index, directory)
    }

    /// The commands a session sent, without tags.
    static func commands(_ session: SessionInfo) -> [String] {
        session.transcript.filter { $0.direction == .client }.map { line in
            String(line.text.split(separator: " ", maxSplits: 1).last ?? "")
        }
    }

    static let arrival = Array(
        "From: Minerva <minerva@example.org>\r\nSubject: transfiguration\r\n\r\nA lesson.\r\n".utf8)

    @Test(arguments: [Profile.full, .qresync, .imap4rev1])
    func nothingChangedSendsNoCommandAfterTheSelect(profile: Profile) async throws {
        let (server, index, directory) = try await Self.synced(profile: profile)
        defer { Task { await server.stop() } }
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        let summary = try #require(try await service.syncIndex(index, mailboxes: ["INBOX"]).first)
        await service.close()

        #expect(summary.messages == 20 && summary.added == 0 && summary.removed == 0, "\(summary)")
        // Two sessions in all: the first sync's and the service's.
        let sessions = server.sessions.sorted { $0.id < $1.id }
        #expect(sessions.count == 2, "\(sessions.map(Self.commands))")
        let sent = Self.commands(try #require(sessions.last))
        let afterSelect = sent.drop { !$0.hasPrefix("SELECT") }.dropFirst()
        if profile == .imap4rev1 {
            // Without CONDSTORE the SELECT cannot tell: the UIDs and every flag are asked for.
            #expect(summary.method == .everything, "\(summary)")
            #expect(afterSelect.contains { $0.hasPrefix("UID SEARCH") }, "\(sent)")
        } else {
            #expect(summary.method == .inStep, "\(summary)")
            #expect(afterSelect.allSatisfy { $0.hasPrefix("LOGOUT") }, "\(sent)")
        }
        #expect(!sent.contains { $0.hasPrefix("EXAMINE") }, "\(sent)")
    }

    /// A message expunged and another appended after the SELECT leave the count as it was, and
    /// the SELECT's UIDNEXT and HIGHESTMODSEQ too: the session saw them come and go, so the
    /// index is not taken to be in step, and ends equal to the server.
    @Test(arguments: [Profile.full, .qresync, .imap4rev1])
    func messagesThatCameAndWentAfterTheSelectAreFound(profile: Profile) async throws {
        let (server, index, directory) = try await Self.synced(profile: profile)
        defer { Task { await server.stop() } }
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = server.store
        let service = ServiceFixture.service(server)
        let opened = try await service.open()
        let gone = try #require(store.uids(user: "alice", mailbox: "INBOX").first)
        try store.expunge(user: "alice", mailbox: "INBOX", uids: [gone])
        let arrived = try store.append(Self.arrival, user: "alice", mailbox: "INBOX")
        try await service.connection.noop()
        let seen = try #require(await service.connection.usableSession?.selectedMailbox)
        #expect(Int(seen.messageCount) == opened.messageCount, "the count must look unchanged for this test")

        let summary = try #require(try await service.syncIndex(index, mailboxes: ["INBOX"]).first)
        await service.close()
        #expect(summary.method != .inStep && summary.added == 1 && summary.removed == 1, "\(summary)")
        let indexed = try await index.uids(in: "INBOX")
        #expect(indexed == store.uids(user: "alice", mailbox: "INBOX"))
        #expect(indexed.contains(arrived) && !indexed.contains(gone))
    }

    /// An arrival after the SELECT, announced to the session (an EXISTS, here after a NOOP) and
    /// so found by the catch-up's `UID SEARCH ALL`, is indexed; the UIDNEXT stored is above it
    /// (the SELECT's is not), so the QRESYNC catch-up that follows (on a session of its own)
    /// takes it for indexed, not new.
    @Test func anArrivalAfterTheSelectIsNotAddedTwiceByTheNextQuickResync() async throws {
        let (server, index, directory) = try await Self.synced(profile: .qresync)
        defer { Task { await server.stop() } }
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = server.store
        let first = try #require(store.uids(user: "alice", mailbox: "INBOX").first)
        // Changed before the SELECT: the index is not in step with what the SELECT reports.
        try store.setFlags([.flagged], user: "alice", mailbox: "INBOX", uid: first)
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        // After the SELECT: the session hears of it, its UIDNEXT stays the SELECT's.
        let arrived = try store.append(Self.arrival, user: "alice", mailbox: "INBOX")
        try await service.connection.noop()
        let own = try #require(try await service.syncIndex(index, mailboxes: ["INBOX"]).first)
        await service.close()
        #expect(own.added == 1 && own.method == .changedSince, "\(own) \(server.sessions.map(Self.commands))")

        let session = try await IMAPSession.connect(ServiceFixture.configuration(server))
        try await session.login(.password(user: "alice", password: "secret"))
        let next = try await IndexSync(index: index, clock: { 0 }).sync("INBOX", over: session)
        await session.logout()
        #expect(next.added == 0, "\(next)")
        let indexed = try await index.uids(in: "INBOX")
        #expect(indexed == store.uids(user: "alice", mailbox: "INBOX") && indexed.contains(arrived))
    }
}
