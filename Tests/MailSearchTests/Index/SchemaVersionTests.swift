import Foundation
import IMAPCore
import MailMIME
import MailSearch
import SearchSemantics
import TestSupport
import Testing

/// A file of another schema version is rebuilt on open (the index can always be rebuilt from
/// the server): every table of the old one dropped, FTS5 tables and their own tables included,
/// and the new schema in their place, empty.
@Suite(.hangGuard, .timeLimit(.minutes(1)))
struct SchemaVersionTests {
    @Test func aFileOfAnotherVersionIsRebuiltEmpty() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-schema-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        let index = try MessageIndex(path: path)
        let message = MIMEMessage(bytes: Array("From: a@b.example\r\nSubject: old\r\n\r\nold text\r\n".utf8))
        let date = IMAPDateTime(date: IMAPDate(daysSinceEpoch: 19_000), hour: 1, minute: 0, second: 0, zoneMinutes: 0)!
        let email = Email(
            id: Email.ID(mailbox: "INBOX", uidValidity: 5, uid: 1), summary: MailSummary(message: message),
            receivedDate: Date(timeIntervalSince1970: 0), flags: [], pinFlag: .flagged)
        try await index.store(
            [
                MessageIndex.Record(
                    uid: 1, flags: [], internalDate: date, size: 40, modificationSequence: 1,
                    text: SearchableText(message), summary: CachedMessage(email))
            ], in: "INBOX", uidValidity: 5, progress: .indexedDownTo(1))
        index.close()
        // An older version, as an earlier MailSearch left it (with its rows and FTS5 tables).
        _ = try await TestProcess.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version=3')", path,
            ])

        let reopened = try MessageIndex(path: path)
        defer { reopened.close() }
        #expect(try await reopened.mailboxes() == [])
        #expect(try await reopened.search([.subject("old")], in: "INBOX", now: 0) == .notIndexed)
        try await reopened.store([], in: "INBOX", uidValidity: 6, progress: .indexedDownTo(1))
        #expect(try await reopened.mailbox("INBOX")?.uidValidity == 6)
    }
}
