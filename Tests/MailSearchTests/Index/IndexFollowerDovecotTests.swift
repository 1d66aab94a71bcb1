import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import TestSupport
import Testing

/// A service that answers from a local index keeps it in step with a real Dovecot while the
/// mailbox is open: mail appended, flags changed and messages expunged by another client (told
/// by IDLE), and the service's own pin, each reach the index, whose answers then equal the
/// server's. Each wait is for the index's own report of a catch-up, never for time.
@Suite(
    .hangGuard,
    .enabled("Dovecot is not installed (apt-get install dovecot-imapd)") { try DovecotProcess.isAvailable() },
    .timeLimit(.minutes(1)))
struct IndexFollowerDovecotTests {
    @Test func changesByAnotherClientAndByTheServiceReachTheIndex() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-follow-\(UUID())")
        defer { try? FileManager.default.removeItem(at: work) }
        let maildir = work.appendingPathComponent("dana").path
        _ = try await TestProcess.run(
            "/usr/bin/env",
            ["python3", DovecotProcess.script("generate-maildir.py"), "--out", maildir, "--count", "40", "--seed", "5"])
        let dovecot = try await DovecotProcess.start([
            "--users", "dana:\(DovecotProcess.password)", "--maildir-from", "dana=\(maildir)",
        ])
        defer { Task { await dovecot.stop() } }
        let index = try MessageIndex(path: work.appendingPathComponent("index.sqlite").path)
        let service = DovecotServiceTests.service(dovecot)
        _ = try await service.syncIndex(index, mailboxes: ["INBOX"])
        var updates = service.indexUpdates().makeAsyncIterator()
        let events = service.events()
        _ = try await service.list(pageSize: 5)
        await service.answerLocally(from: index)

        let other = try await IMAPSession.connect(DovecotServiceTests.configuration(dovecot))
        try await other.login(.password(user: "dana", password: DovecotProcess.password))
        try await other.select(MailboxName(wire: "INBOX"))
        let context = try await service.searchContext()

        /// Reads the index's reports until its answer to `text` equals Dovecot's. Dovecot is
        /// asked on `other` after a NOOP: the service's own connection may not have been told
        /// of the change yet, and answers for the mailbox as it knew it.
        @discardableResult
        func expectCaughtUp(_ text: String, _ stage: String) async throws -> [UInt32] {
            let query = try QueryParser.parse(text).query
            _ = try await other.execute(.noop)
            let keys = try QueryCompiler.compile(query, context: context).programKeys
            let server = try await other.search(keys, ordered: false).uids.sorted()
            // The index itself is asked, without type-ahead's 10 ms budget (a loaded machine
            // can take longer, and a query given up would look like an index not caught up).
            func local() async throws -> [UInt32]? {
                let answer = try await index.search(keys, in: "INBOX", now: Int(Date().timeIntervalSince1970))
                guard case .uids(let uids) = answer else { return nil }
                return uids.sorted()
            }
            while try await local() != server {
                switch await updates.next() {
                case .caughtUp: continue
                case .failed(let reason): Issue.record("\(stage): \(reason)")
                case nil: Issue.record("\(stage): the reports ended")
                }
                return server
            }
            return server
        }

        let message = """
            From: Zora Neale <zora@example.org>\r
            To: dana@example.org\r
            Subject: Notes from Eatonville\r
            Date: Tue, 2 Jul 2024 09:30:00 +0000\r
            Message-ID: <eatonville@example.org>\r
            \r
            The porch talk ran late; the zanzibar crate arrives Thursday.\r

            """
        try await other.execute(
            .append(MailboxName(wire: "INBOX"), AppendMessage(data: ByteString(Array(message.utf8)))))
        #expect(try await expectCaughtUp("zanzibar", "after an APPEND by another client").count == 1)

        let uids = try await other.search([.all], ordered: false).uids.sorted()
        _ = try await other.store(SequenceSet(numbers: [uids[1], uids[2]]), .add, [.flagged])
        try await expectCaughtUp("is:pinned", "after another client pinned two messages")
        _ = try await other.store(SequenceSet(numbers: [uids[3]]), .add, [.deleted])
        _ = try await other.execute(.uidExpunge(SequenceSet(numbers: [uids[3]])))
        try await expectCaughtUp("-is:pinned", "after another client expunged a message")

        let newest = try await service.list(pageSize: 1).emails[0]
        _ = try await service.setPinned(!newest.isPinned, for: [newest.id])
        let pinned = try await expectCaughtUp("is:pinned", "after the service's own pin")
        #expect(pinned.contains(newest.uid) == !newest.isPinned)

        for text in ["from:zora", "eatonville", "is:unread", "-is:pinned crate", "e"] {
            try await expectCaughtUp(text, "at the end")
        }
        await other.logout()
        await service.close()
        _ = events
    }
}
