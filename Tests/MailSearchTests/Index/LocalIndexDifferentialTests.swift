import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MockIMAPServer
import TestSupport
import Testing

/// The local index answers as the server does: every query below, compiled once, gives the
/// same UIDs from `MessageIndex.search` as from the server's own `UID SEARCH`, after a first
/// sync and again after another client changed flags, expunged, appended, and after the
/// mailbox got a new UIDVALIDITY; under a profile with QRESYNC, one with CONDSTORE only, and one
/// with neither.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct LocalIndexDifferentialTests {
    static let queries = [
        "from:dumbledore", "from:albus", "to:harry", "subject:quidditch", "body:potion", "hogwarts",
        "\"house cup\"", "-from:snape", "from:snape OR from:minerva", "is:unread", "is:read", "is:pinned",
        "is:unpinned", "is:answered", "has:attachment", "larger:10k", "smaller:2k", "text:meeting",
        "header:Content-Type=multipart", "after:2024-03-01", "before:2024-03-10", "on:2024-03-14",
        "sent-after:2024-03-01", "sent-before:2024-03-10", "date:2024-03-01..2024-03-12", "uid:1:40,200:*",
        "an", "e", "é", "ü", "re: meeting", "from:@hogwarts", "-is:read from:dumbledore",
        "(from:albus OR to:albus) -is:pinned", "body:\"the\"", "xyzzy-nothing-matches",
    ]

    static let now = 1_710_504_000

    @Test(arguments: [Profile.full, .imap4rev1, .qresync])
    func localAnswersEqualTheServersAfterEveryKindOfChange(profile: Profile) async throws {
        let server = try await MockIMAPServer.start(
            .init(
                listeners: [.implicitTLS()], tls: .selfSigned(hosts: ["localhost"]), profile: profile,
                users: [.init("alice", password: "secret")]))
        defer { Task { await server.stop() } }
        let store = server.store
        try await CPULane.run { try DemoMailbox.seed(into: store, user: "alice", now: Self.now) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-index-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let index = try MessageIndex(path: directory.appendingPathComponent("index.sqlite").path)
        let sync = IndexSync(index: index, window: 40, clock: { Self.now })
        let session = try await IMAPSession.connect(ServiceFixture.configuration(server))
        try await session.login(.password(user: "alice", password: "secret"))

        let first = try await sync.sync("INBOX", over: session)
        #expect(first.added == first.messages && first.messages > 100, "\(first)")
        try await expectEqualAnswers(index, session, "after the first sync")

        let again = try await sync.sync("INBOX", over: session)
        #expect(again.added == 0 && again.removed == 0, "\(again)")
        if profile != .imap4rev1 { #expect(again.wasInStep, "\(again)") }

        // Another client: flags, an expunge, an arrival.
        let uids = store.uids(user: "alice", mailbox: "INBOX")
        try store.setFlags([.seen, .flagged], user: "alice", mailbox: "INBOX", uid: uids[3])
        try store.setFlags([], user: "alice", mailbox: "INBOX", uid: uids[10])
        try store.expunge(user: "alice", mailbox: "INBOX", uids: [uids[5], uids[uids.count - 1]])
        try store.append(
            Array("From: Albus <albus@hogwarts.example>\r\nSubject: A new potion\r\n\r\nHouse cup news.\r\n".utf8),
            user: "alice", mailbox: "INBOX")
        let changed = try await sync.sync("INBOX", over: session)
        #expect(changed.added == 1 && changed.removed == 2 && changed.changed >= 2, "\(changed)")
        let method: IndexSync.Method =
            switch profile {
            case .qresync: .quickResync
            case .imap4rev1: .everything
            default: .changedSince
            }
        #expect(changed.method == method, "\(changed)")
        // The new message has no Date header: the sync asked how the server dates it.
        #expect(try await index.mailbox("INBOX")?.undatedSentDate == .receivedDate)
        try await expectEqualAnswers(index, session, "after changes by another client")

        // The mailbox re-created: a new UIDVALIDITY, every entry indexed again.
        _ = try store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        let rebuilt = try await sync.sync("INBOX", over: session)
        #expect(rebuilt.added == rebuilt.messages, "\(rebuilt)")
        try await expectEqualAnswers(index, session, "after a new UIDVALIDITY")
        await session.logout()
    }

    private func expectEqualAnswers(
        _ index: MessageIndex, _ session: IMAPSession, _ stage: String
    ) async throws {
        let selected = try #require(await session.selectedMailbox)
        let context = SearchContext(
            capabilities: await session.capabilities, enabledCapabilities: await session.enabled, mailbox: selected,
            today: IMAPDate(daysSinceEpoch: Self.now / 86400))
        for query in Self.queries {
            let compiled = try QueryCompiler.compile(query, context: context)
            let keys = compiled.programKeys
            let server = try await session.search(keys, ordered: false).uids.sorted()
            let local = try await index.search(keys, in: "INBOX", now: Self.now)
            #expect(local == .uids(server), "\(stage): \(query): server \(server.count)")
            // The newest few, found without reading the older ones, are the first of all of them
            // ordered newest first.
            let newest = try await index.newest(7, matching: keys, in: "INBOX", now: Self.now)
            let ordered = try await index.newestFirst(server, in: "INBOX")
            #expect(newest == .uids(Array(ordered.prefix(7))), "\(stage): \(query): newest 7")
        }
    }
}
