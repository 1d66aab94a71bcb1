import Foundation
import IMAPCore
import MailMIME
import MailSearch
import SearchSemantics
import TestSupport
import Testing

/// `MessageIndex.newest` takes one of four ways to the newest matches, by how many candidates the
/// FTS tables give against the mailbox's size: looking a few up (FROM "quinn"), walking newest
/// first over listed candidates (FROM "tess" at 50), walking every row (FROM "hana"), and a walk
/// that gives up for the candidates (FROM "hanah"). Each must give the
/// first `limit` of every match ordered newest first (by INTERNALDATE, which here is not UID
/// order). 3,000 stored messages whose senders and subjects come in chosen proportions take
/// every way at the page sizes below.
@Suite(.hangGuard, .cpuBound, .timeLimit(.minutes(2)))
struct NewestMatchesTests {
    static let count = 3000

    /// The message with `uid`: senders in chosen proportions, a subject word in 1 of 3, an
    /// INTERNALDATE that goes back and forth against the UIDs. "Nana Hanh Nahum" (1 in 2) holds
    /// every trigram of "hanah" but not "hanah": FROM "hanah" has many candidates and 20 matches.
    static func record(_ uid: UInt32) -> MessageIndex.Record {
        let sender =
            uid % 300 == 0
            ? "Quinn Rare <quinn@example.com>"
            : uid % 150 == 0
                ? "Hanah Seldom <hanah@example.com>"
                : uid % 10 == 0
                    ? "Tess Tenth <tess@example.com>"
                    : uid % 2 == 0 ? "Hana Half <hana@example.com>" : "Nana Hanh Nahum <nn@example.com>"
        let subject = uid % 3 == 0 ? "quarterly figures" : "lunch"
        let bytes = Array("From: \(sender)\r\nSubject: \(subject)\r\n\r\nBody of \(uid).\r\n".utf8)
        let mime = MIMEMessage(bytes: bytes)
        let seconds = 1_700_000_000 + Int((uid * 7919) % 3001) * 3600
        let date = IMAPDateTime(
            date: IMAPDate(daysSinceEpoch: seconds / 86400), hour: seconds % 86400 / 3600,
            minute: seconds % 3600 / 60, second: 0, zoneMinutes: 0)!
        let email = Email(
            id: Email.ID(mailbox: "INBOX", uidValidity: 1, uid: uid), summary: MailSummary(message: mime),
            receivedDate: Date(timeIntervalSince1970: TimeInterval(seconds)), flags: [], pinFlag: .flagged)
        return MessageIndex.Record(
            uid: uid, flags: uid % 4 == 0 ? [.seen] : [], internalDate: date, size: bytes.count,
            modificationSequence: 1, text: SearchableText(mime), summary: CachedMessage(email))
    }

    @Test func everyWayGivesTheFirstOfAllMatchesNewestFirst() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-newest-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let index = try MessageIndex(path: directory.appendingPathComponent("index.sqlite").path)
        let records = (1...UInt32(Self.count)).map(Self.record)
        try await index.store(
            records, in: "INBOX", uidValidity: 1,
            progress: .inStep(highestModificationSequence: 1, uidNext: UInt32(Self.count + 1), at: 0))
        let queries: [[SearchKey]] = [
            [.from("quinn")], [.from("tess")], [.from("hana")], [.from("nahum")], [.subject("quarterly")],
            [.from("hanah")], [.unseen], [.from("tess"), .subject("quarterly")],
            [.or(.from("quinn"), .from("tess"))], [.text("hana")], [.from("nobody")],
        ]
        for keys in queries {
            guard case .uids(let all) = try await index.search(keys, in: "INBOX", now: 0) else {
                Issue.record("\(keys): not answered")
                continue
            }
            let ordered = try await index.newestFirst(all, in: "INBOX")
            for limit in [1, 7, 50, 400] {
                let newest = try await index.newest(limit, matching: keys, in: "INBOX", now: 0)
                #expect(newest == .uids(Array(ordered.prefix(limit))), "\(keys), newest \(limit) of \(all.count)")
            }
        }
    }

    /// Type-ahead's deadline: a search past it gives up (the server's to answer), one within
    /// it answers as without.
    @Test func aSearchPastItsDeadlineGivesUp() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-deadline-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let index = try MessageIndex(path: directory.appendingPathComponent("index.sqlite").path)
        try await index.store(
            (1...UInt32(Self.count)).map(Self.record), in: "INBOX", uidValidity: 1,
            progress: .inStep(highestModificationSequence: 1, uidNext: UInt32(Self.count + 1), at: 0))
        // Nothing matches: every message is judged.
        let keys: [SearchKey] = [.not(.body("body"))]
        let past = ContinuousClock.now - .seconds(1)
        guard
            case .serverDecides(let reason) = try await index.newest(
                50, matching: keys, in: "INBOX", now: 0, deadline: past)
        else {
            Issue.record("a search past its deadline answered")
            return
        }
        #expect(reason.contains("longer than the caller would wait"), "\(reason)")
        let later = ContinuousClock.now + .seconds(3600)
        #expect(try await index.newest(50, matching: keys, in: "INBOX", now: 0, deadline: later) == .uids([]))
        // A few rows judged (fewer than the 32 between looks at the clock) still answer.
        #expect(
            try await index.newest(1, matching: [.from("hana")], in: "INBOX", now: 0, deadline: past)
                == index.newest(1, matching: [.from("hana")], in: "INBOX", now: 0))
    }
}
