import Foundation
import MailSearch
import TestSupport
import Testing

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var historyFile: URL { url.appendingPathComponent("history.json") }

    func remove() throws { try FileManager.default.removeItem(at: url) }
}

@Suite(.hangGuard) struct SearchHistoryTests {
    @Test func persistsAcrossInstancesPerAccount() throws {
        let directory = try TemporaryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        var alice = try SearchHistory(account: "alice@example.com", directory: directory.url)
        #expect(try alice.record("from:bob"))
        #expect(try alice.record("  is:unread\t  from:carol \n"))
        var bob = try SearchHistory(account: "bob@example.com", directory: directory.url)
        #expect(try bob.record("invoice"))

        let reopened = try SearchHistory(account: "alice@example.com", directory: directory.url)
        #expect(reopened.entries == ["is:unread from:carol", "from:bob"])
        #expect(reopened.warning == nil)
        #expect(try SearchHistory(account: "bob@example.com", directory: directory.url).entries == ["invoice"])
    }

    /// A history directory that is a link (into a directory others can read) is neither read nor
    /// written: the error says why, and nothing lands where the link points.
    @Test func aHistoryDirectoryThatIsALinkIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        let elsewhere = directory.url.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
        let linked = directory.url.appendingPathComponent("mailsearch")
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: elsewhere)
        do {
            var history = try SearchHistory(account: "a", directory: linked)
            try history.record("from:bob")
            Issue.record("the history was used through a link")
        } catch {
            #expect(error.code == .notPrivate)
            #expect(error.message.contains("symbolic link"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    @Test func emptyQueryIsNeverRecorded() throws {
        let directory = try TemporaryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        var history = try SearchHistory(account: "a", directory: directory.url)
        #expect(try history.record("   ") == false)
        #expect(try history.record("") == false)
        #expect(history.entries.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.historyFile.path))
    }

    @Test func dedupesIgnoringCaseAndMovesTheRepeatToTheTop() throws {
        let directory = try TemporaryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        var history = try SearchHistory(account: "a", directory: directory.url)
        try history.record("from:bob")
        try history.record("invoice")
        try history.record("FROM:Bob")
        #expect(history.entries == ["FROM:Bob", "invoice"])
        #expect(try SearchHistory(account: "a", directory: directory.url).entries == ["FROM:Bob", "invoice"])
    }

    @Test func keepsTheNewestTwenty() throws {
        let directory = try TemporaryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        var history = try SearchHistory(account: "a", directory: directory.url)
        for number in 1...25 { try history.record("query \(number)") }
        let expected = (6...25).reversed().map { "query \($0)" }
        #expect(history.entries == expected)
        #expect(try SearchHistory(account: "a", directory: directory.url).entries == expected)
    }

    @Test func fileIsPrivateAndWrittenAtomically() throws {
        let directory = try TemporaryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        var history = try SearchHistory(account: "a", directory: directory.url)
        // An existing file with loose permissions is replaced by a 0600 one.
        try Data(#"{"version":1,"accounts":{}}"#.utf8).write(to: directory.historyFile)
        #expect(chmod(directory.historyFile.path, 0o644) == 0)
        try history.record("from:bob")
        try history.record("from:carol")
        var status = stat()
        #expect(stat(directory.historyFile.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        // Only history.json is left: no temporary files.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["history.json"])
    }

    @Test func createsTheDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        let nested = directory.url.appendingPathComponent("state/mailsearch")
        var history = try SearchHistory(account: "a", directory: nested)
        try history.record("x")
        #expect(FileManager.default.fileExists(atPath: nested.appendingPathComponent("history.json").path))
    }

    @Test(arguments: ["not json at all", #"{"version":7,"accounts":{}}"#, #"{"accounts":[1,2]}"#])
    func corruptFileIsReplacedWithAWarning(_ content: String) throws {
        let directory = try TemporaryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        try Data(content.utf8).write(to: directory.historyFile)
        var history = try SearchHistory(account: "a", directory: directory.url)
        #expect(history.entries.isEmpty)
        let warning = try #require(history.warning)
        #expect(warning.path == directory.historyFile.path)
        #expect(warning.message.hasPrefix("the search history at \(directory.historyFile.path) was replaced"))
        // Replaced on disk: a second reader sees a valid, empty history and no warning.
        let again = try SearchHistory(account: "a", directory: directory.url)
        #expect(again.warning == nil)
        try history.record("from:bob")
        #expect(try SearchHistory(account: "a", directory: directory.url).entries == ["from:bob"])
    }

    @Test func defaultDirectoryFollowsXDG() {
        #expect(
            SearchHistory.defaultDirectory(environment: ["XDG_STATE_HOME": "/state", "HOME": "/home/me"]).path
                == "/state/mailsearch")
        #expect(
            SearchHistory.defaultDirectory(environment: ["HOME": "/home/me"]).path
                == "/home/me/.local/state/mailsearch")
        #expect(
            SearchHistory.defaultDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/home/me"]).path
                == "/home/me/.local/state/mailsearch")
    }
}
