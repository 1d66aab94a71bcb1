import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MockIMAPServer
import TestSupport
import Testing

/// Servers differ on whether BODY finds a word in the header of an attached message (RFC 5322
/// puts it in the body; the mock's BODY finds it, Dovecot 2.3's does not: LocalIndexDovecotTests).
/// A sync asks the server once and the index answers by what it learned; not knowing, it never
/// guesses. The same for the sent date of a message without a Date header (the mock takes its
/// received date, Dovecot 1-Jan-1970: LocalIndexCorpusTests).
@Suite(.hangGuard, .timeLimit(.minutes(2)))
struct AttachedHeaderRuleTests {
    static let forwarded = """
        From: Ann <ann@example.com>\r
        To: bob@example.com\r
        Subject: Fwd: news\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="b"\r
        \r
        --b\r
        Content-Type: text/plain\r
        \r
        See below.\r
        --b\r
        Content-Type: message/rfc822\r
        \r
        From: Carol <carol@example.com>\r
        Subject: Zanzibar plans\r
        \r
        The inner text.\r
        --b--\r

        """

    @Test func aSyncLearnsTheServersRuleAndTheIndexAnswersByIt() async throws {
        let mailbox = try await SyncedMailbox.start([
            "From: Dan <dan@example.com>\r\nSubject: plain\r\n\r\nNothing attached.\r\n", Self.forwarded,
        ])
        defer { Task { await mailbox.finish() } }
        let (server, index, session) = (mailbox.server, mailbox.index, mailbox.session)

        #expect(try await index.mailbox("INBOX")?.attachedHeadersInBody == true, "the mock's BODY finds it")
        let keys: [SearchKey] = [.body("zanzibar")]
        let found = try await session.search(keys, ordered: false).uids
        #expect(found == [2])
        #expect(try await index.search(keys, in: "INBOX", now: 0) == .uids(found))

        try await index.setAttachedHeadersInBody(nil, in: "INBOX")
        guard case .serverDecides(let reason) = try await index.search(keys, in: "INBOX", now: 0) else {
            Issue.record("not knowing the server's rule, the index answered")
            return
        }
        #expect(reason.contains("attached message's header"), "\(reason)")
        // A key the attached header does not decide is still answered.
        #expect(try await index.search([.body("below")], in: "INBOX", now: 0) == .uids([2]))

        try await index.setAttachedHeadersInBody(false, in: "INBOX")
        #expect(try await index.search(keys, in: "INBOX", now: 0) == .uids([]))

        // The next sync that brings a message telling the two apart asks again.
        try await index.setAttachedHeadersInBody(nil, in: "INBOX")
        try server.store.append(Array(Self.forwarded.utf8), user: "alice", mailbox: "INBOX")
        _ = try await IndexSync(index: index, clock: { 0 }).sync("INBOX", over: session)
        #expect(try await index.mailbox("INBOX")?.attachedHeadersInBody == true)
        await session.logout()
    }

    @Test func undatedMessagesAreJudgedByTheRuleTheSyncLearned() async throws {
        let mailbox = try await SyncedMailbox.start([
            "From: Dan <dan@example.com>\r\nSubject: undated\r\n\r\nNo Date header.\r\n",
            "From: Eve <eve@example.com>\r\nDate: Mon, 4 Mar 2024 10:00:00 +0000\r\n\r\nDated.\r\n",
        ])
        defer { Task { await mailbox.finish() } }
        let (server, index, session) = (mailbox.server, mailbox.index, mailbox.session)
        #expect(try await index.mailbox("INBOX")?.undatedSentDate == .receivedDate, "the mock's rule")

        let keys: [SearchKey] = [.sentBefore(IMAPDate(year: 2025, month: 1, day: 1)!)]
        let found = try await session.search(keys, ordered: false).uids
        #expect(found == [2], "the undated message was received now, after 2025")
        #expect(try await index.search(keys, in: "INBOX", now: 0) == .uids(found))

        try await index.setUndatedSentDate(.epoch, in: "INBOX")
        #expect(try await index.search(keys, in: "INBOX", now: 0) == .uids([1, 2]))
        for unknown: MessageIndex.UndatedRule? in [nil, .neither] {
            try await index.setUndatedSentDate(unknown, in: "INBOX")
            guard case .serverDecides(let reason) = try await index.search(keys, in: "INBOX", now: 0) else {
                Issue.record("not knowing the server's rule (\(String(describing: unknown))), the index answered")
                continue
            }
            #expect(reason.contains("Date header"), "\(reason)")
            // A key that does not read the sent date is still answered.
            #expect(try await index.search([.from("eve")], in: "INBOX", now: 0) == .uids([2]))
        }

        // The next sync that brings an undated message asks again.
        try await index.setUndatedSentDate(nil, in: "INBOX")
        try server.store.append(Array("Subject: another\r\n\r\nUndated too.\r\n".utf8), user: "alice", mailbox: "INBOX")
        _ = try await IndexSync(index: index, clock: { 0 }).sync("INBOX", over: session)
        #expect(try await index.mailbox("INBOX")?.undatedSentDate == .receivedDate)
        await session.logout()
    }
}

/// The mock server holding `messages` in INBOX, a session logged in to it, and an index of
/// INBOX synced over it, in a directory of its own (``finish()`` stops the one and removes the
/// other).
private struct SyncedMailbox {
    let server: MockIMAPServer
    let directory: URL
    let index: MessageIndex
    let session: IMAPSession

    static func start(_ messages: [String]) async throws -> SyncedMailbox {
        let server = try await MockIMAPServer.start(
            .init(
                listeners: [.implicitTLS()], tls: .selfSigned(hosts: ["localhost"]),
                users: [.init("alice", password: "secret")]))
        for message in messages { try server.store.append(Array(message.utf8), user: "alice", mailbox: "INBOX") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-rule-\(UUID())")
        let index = try MessageIndex(path: directory.appendingPathComponent("index.sqlite").path)
        let session = try await IMAPSession.connect(ServiceFixture.configuration(server))
        try await session.login(.password(user: "alice", password: "secret"))
        _ = try await IndexSync(index: index, clock: { 0 }).sync("INBOX", over: session)
        return SyncedMailbox(server: server, directory: directory, index: index, session: session)
    }

    func finish() async {
        await server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
