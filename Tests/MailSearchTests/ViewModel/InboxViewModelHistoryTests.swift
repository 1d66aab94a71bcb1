import Foundation
import MailSearch
import TestSupport
import Testing

private typealias Fixture = ViewModelFixture

/// The search history as the view model keeps it: per account, in a file that survives a
/// restart, capped and deduplicated; a corrupt file is replaced, never fatal.
@Suite(.hangGuard, .timeLimit(.minutes(1))) @MainActor
struct InboxViewModelHistoryTests {
    private func search(_ model: InboxViewModel, _ query: String) {
        model.setSearching(true)
        model.updateQuery(query)
        model.submit()
    }

    @Test func historySurvivesARestart() async throws {
        let directory = try HistoryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        let storage = InboxViewModel.HistoryStorage.file(account: "harry@hogwarts.example", directory: directory.url)
        let first = Fixture.model(Fixture.service(), history: storage)
        first.start()
        search(first, "from:albus")
        search(first, "  has:attachment   is:unread ")
        await first.settle()
        #expect(first.recentSearches == ["has:attachment is:unread", "from:albus"])
        first.stop()
        await first.settle()

        let second = Fixture.model(Fixture.service(), history: storage)
        second.start()
        await second.settle()
        #expect(second.recentSearches == ["has:attachment is:unread", "from:albus"])
        second.setSearching(true)
        #expect(second.suggestions.map(\.text) == ["has:attachment is:unread", "from:albus"])
        #expect(second.notice == nil)
        // Another account has its own.
        let other = Fixture.model(
            Fixture.service(), history: .file(account: "ron@hogwarts.example", directory: directory.url))
        other.start()
        await other.settle()
        #expect(other.recentSearches.isEmpty)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func historyIsCappedAndDeduplicated() async throws {
        let directory = try HistoryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        let storage = InboxViewModel.HistoryStorage.file(account: "a", directory: directory.url)
        let model = Fixture.model(Fixture.service(), history: storage)
        model.start()
        for number in 1...25 { search(model, "subject:\"week \(number)\"") }
        search(model, "SUBJECT:\"Week 10\"")
        await model.settle()
        #expect(model.recentSearches.count == 20)
        #expect(model.recentSearches.first == "SUBJECT:\"Week 10\"")
        #expect(model.recentSearches.filter { $0.lowercased() == "subject:\"week 10\"" }.count == 1)
        #expect(model.recentSearches.last == "subject:\"week 6\"")
        // Only what parsed and was sent is recorded.
        search(model, "subject:\"unterminated")
        search(model, "   ")
        await model.settle()
        #expect(model.recentSearches.count == 20)
        #expect(model.recentSearches.first == "SUBJECT:\"Week 10\"")
        let reopened = try SearchHistory(account: "a", directory: directory.url)
        #expect(reopened.entries == model.recentSearches)
    }

    @Test func aCorruptHistoryFileIsReplacedNotFatal() async throws {
        let directory = try HistoryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        try Data("{\"version\":1,\"accounts\":{\"a\":[".utf8).write(to: directory.file)
        let model = Fixture.model(
            Fixture.service(), history: .file(account: "a", directory: directory.url))
        model.start()
        await model.settle()
        #expect(model.emailsListState == .data)
        #expect(model.recentSearches.isEmpty)
        #expect(model.notice?.kind == .history)
        #expect(model.notice?.message.contains("replaced with an empty one") == true)
        model.dismissNotice()
        search(model, "from:albus")
        await model.settle()
        #expect(model.searchState == .results)
        #expect(model.recentSearches == ["from:albus"])
        #expect(model.notice == nil)
        #expect(try SearchHistory(account: "a", directory: directory.url).entries == ["from:albus"])
    }

    @Test func anUnwritableHistoryIsANoticeAndTheSearchStillRuns() async throws {
        let directory = try HistoryDirectory()
        defer { #expect(throws: Never.self) { try directory.remove() } }
        // A file where the history's directory should be.
        let blocked = directory.url.appendingPathComponent("blocked")
        try Data().write(to: blocked)
        let model = Fixture.model(Fixture.service(), history: .file(account: "a", directory: blocked))
        model.start()
        search(model, "from:albus")
        await model.settle()
        #expect(model.searchState == .results)
        #expect(model.notice?.kind == .history)
        #expect(model.notice?.message.hasPrefix("The search was not saved in the history") == true)
    }

    @Test func inMemoryHistoryFollowsTheSameRules() async {
        let model = Fixture.model(Fixture.service(), history: .memory(["from:albus", "FROM:albus", " invoice "]))
        model.start()
        await model.settle()
        #expect(model.recentSearches == ["from:albus", "invoice"])
        search(model, "Invoice")
        await model.settle()
        #expect(model.recentSearches == ["Invoice", "from:albus"])
    }
}
