import Foundation
import Testing

@testable import MailSearch

/// What keeps type-ahead's local search within its budget: SQLite stops a statement once the
/// deadline passes (a progress handler), and the FTS candidates are listed as ascending arrays
/// whose intersection, union, range and membership equal the sets they stand for.
@Suite(.timeLimit(.minutes(1)))
struct SearchDeadlineTests {
    /// A statement that steps a million times in SQLite's virtual machine before its one row.
    static let long =
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000) SELECT count(*) FROM n"

    static func connection() throws -> (SQLiteConnection, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-deadline-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (try SQLiteConnection(path: directory.appendingPathComponent("x.sqlite").path), directory)
    }

    @Test func aStatementPastTheDeadlineIsStopped() throws {
        let (connection, directory) = try Self.connection()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let count = try connection.stopping(at: ContinuousClock.now - .seconds(1)) {
                () throws(StoreError) -> Int64? in try connection.integer(Self.long)
            }
            Issue.record("the statement ran to the end past its deadline: \(String(describing: count))")
        } catch {
            #expect(error.isOverdue, "\(error)")
            #expect(error.message.contains("longer than the caller would wait"), "\(error)")
        }
        // The handler is gone afterwards, and without a deadline the statement runs to its end.
        #expect(try connection.integer(Self.long) == 1_000_000)
        let far = ContinuousClock.now + .seconds(3600)
        #expect(
            try connection.stopping(at: far) { () throws(StoreError) -> Int64? in try connection.integer(Self.long) }
                == 1_000_000)
    }

    @Test func ascendingListsEqualTheSetsTheyStandFor() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            func list() -> [Int64] {
                Set(
                    (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                        Int64.random(in: 0...60, using: &generator)
                    }
                )
                .sorted()
            }
            let (first, second) = (list(), list())
            let narrowing = MessageIndex.Narrowing.self
            #expect(narrowing.intersection(first, second) == Set(first).intersection(second).sorted())
            #expect(narrowing.union(first, second) == Set(first).union(second).sorted())
            let low = Int64.random(in: 0...60, using: &generator)
            let range = low..<(low + Int64.random(in: 0...30, using: &generator))
            #expect(narrowing.within(first, range) == first.filter(range.contains))
            for rowid in Int64(-1)...61 {
                #expect(narrowing.contains(first, rowid) == first.contains(rowid), "\(rowid) in \(first)")
            }
        }
    }
}
