import Foundation
import IMAPCore
import MailMIME
import MailSearch
import SearchSemantics
import Testing

/// What lists show, kept in the index (it superseded the summary cache): under a mailbox and its
/// UIDVALIDITY only, indexed messages read from their indexed rows and never kept twice, a
/// bounded number, never a search answer, and gone with `drop`.
@Suite struct ListingStoreTests {
    static func message(_ uid: UInt32, subject: String? = nil) -> CachedMessage {
        CachedMessage(
            Email(
                id: Email.ID(mailbox: "INBOX", uidValidity: 7, uid: uid),
                from: Email.Person(name: "Grace Jones", address: "grace\(uid)@example.com"), to: [], cc: [],
                subject: subject ?? "Invoice #\(uid) — naïve", date: Date(timeIntervalSince1970: 1_700_000_000),
                preview: "quarterly calendar \(uid)", flags: [], size: 1000))
    }

    /// An index in a fresh directory, and the directory (removed by the caller).
    static func index() throws -> (MessageIndex, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listing-store-\(UUID())")
        return (try MessageIndex(path: directory.appendingPathComponent("index.sqlite").path), directory)
    }

    /// Indexes message `uid` of INBOX (UIDVALIDITY 7) with the subject `subject`.
    static func indexMessage(_ uid: UInt32, subject: String, in index: MessageIndex) async throws {
        let mime = MIMEMessage(bytes: Array("From: a@b.example\r\nSubject: \(subject)\r\n\r\ntext\r\n".utf8))
        let email = Email(
            id: Email.ID(mailbox: "INBOX", uidValidity: 7, uid: uid), summary: MailSummary(message: mime),
            receivedDate: Date(timeIntervalSince1970: 0), flags: [], pinFlag: .flagged)
        try await index.store(
            [
                MessageIndex.Record(
                    uid: uid, flags: [], internalDate: IMAPDateTime(secondsSinceEpoch: 86_400), size: 40,
                    modificationSequence: 1, text: SearchableText(mime), summary: CachedMessage(email))
            ], in: "INBOX", uidValidity: 7, progress: .indexedDownTo(uid))
    }

    @Test func keptMessagesComeBackUnderTheirMailboxAndUIDValidityOnly() async throws {
        let (index, directory) = try Self.index()
        defer { try? FileManager.default.removeItem(at: directory) }
        defer { index.close() }
        let messages = (1...40).map { Self.message(UInt32($0)) }
        try await index.keepListed(messages, in: "INBOX", uidValidity: 7)
        let found = try await index.summaries(Array(1...50), in: "INBOX", uidValidity: 7)
        #expect(found.count == 40)
        #expect(found[17] == messages[16])
        // A few spread out are read one by one: the same answer.
        #expect(try await index.summaries([3, 1000, 2_000_000], in: "INBOX", uidValidity: 7) == [3: messages[2]])
        #expect(try await index.summaries([1], in: "INBOX", uidValidity: 8).isEmpty)
        #expect(try await index.summaries([1], in: "Archive", uidValidity: 7).isEmpty)
        // Kept for lists is not indexed: no mailbox, no search answer.
        #expect(try await index.mailboxes().isEmpty)
        #expect(try await index.search([.subject("invoice")], in: "INBOX", now: 0) == .notIndexed)
    }

    @Test func aMailboxKeptUnderANewUIDValidityLosesItsOldMessages() async throws {
        let (index, directory) = try Self.index()
        defer { try? FileManager.default.removeItem(at: directory) }
        defer { index.close() }
        try await index.keepListed((1...5).map { Self.message(UInt32($0)) }, in: "INBOX", uidValidity: 7)
        try await index.keepListed([Self.message(9)], in: "Archive", uidValidity: 7)
        try await index.keepListed([Self.message(1, subject: "new message 1")], in: "INBOX", uidValidity: 8)
        #expect(try await index.summaries(Array(1...5), in: "INBOX", uidValidity: 7).isEmpty)
        #expect(try await index.summaries([1], in: "INBOX", uidValidity: 8)[1]?.subject == "new message 1")
        #expect(try await index.summaries([9], in: "Archive", uidValidity: 7).count == 1)
        #expect(try await index.listedCount() == 2)
    }

    @Test func indexedMessagesAreReadFromTheIndexAndNotKeptTwice() async throws {
        let (index, directory) = try Self.index()
        defer { try? FileManager.default.removeItem(at: directory) }
        defer { index.close() }
        try await Self.indexMessage(4, subject: "indexed four", in: index)
        try await index.keepListed([Self.message(4), Self.message(5)], in: "INBOX", uidValidity: 7)
        #expect(try await index.listedCount() == 1)
        let found = try await index.summaries([4, 5], in: "INBOX", uidValidity: 7)
        #expect(found[4]?.subject == "indexed four")
        #expect(found[5] == Self.message(5))
        // Under another UIDVALIDITY the indexed row is not this message.
        #expect(try await index.summaries([4], in: "INBOX", uidValidity: 8).isEmpty)
    }

    @Test func pastTheLimitTheOlderHalfGoes() async throws {
        let (index, directory) = try Self.index()
        defer { try? FileManager.default.removeItem(at: directory) }
        defer { index.close() }
        for batch in 0..<10 {
            let messages = (1...10).map { Self.message(UInt32(batch * 10 + $0)) }
            try await index.keepListed(messages, in: "INBOX", uidValidity: 7, keepingAtMost: 25)
        }
        let count = try await index.listedCount()
        #expect(count <= 25 && count > 0, "\(count)")
        #expect(try await index.summaries([100], in: "INBOX", uidValidity: 7).count == 1)
        #expect(try await index.summaries([1], in: "INBOX", uidValidity: 7).isEmpty)
    }

    @Test(arguments: [nil, "INBOX"] as [String?]) func dropRemovesWhatListsKept(mailbox: String?) async throws {
        let (index, directory) = try Self.index()
        defer { try? FileManager.default.removeItem(at: directory) }
        defer { index.close() }
        try await index.keepListed([Self.message(1)], in: "INBOX", uidValidity: 7)
        try await index.keepListed([Self.message(2)], in: "Archive", uidValidity: 7)
        try await index.drop(mailbox: mailbox)
        #expect(try await index.summaries([1], in: "INBOX", uidValidity: 7).isEmpty)
        #expect(try await index.listedCount() == (mailbox == nil ? 0 : 1))
    }
}
