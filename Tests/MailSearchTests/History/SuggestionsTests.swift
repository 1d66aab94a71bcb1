import MailSearch
import TestSupport
import Testing

@Suite(.hangGuard) struct SuggestionsTests {
    static let people: PeopleIndex = {
        var index = PeopleIndex()
        for _ in 0..<5 { index.add(address: "alice@example.com", name: "Alice Smith") }
        for _ in 0..<9 { index.add(address: "al@example.org") }
        index.add(address: "bob@example.com", name: "Bob")
        return index
    }()

    @Test func recentThenOperators() {
        let suggestions = Suggestions.suggest(for: "fr", history: ["from:bob", "invoice", "FROM:carol"])
        #expect(
            suggestions == [
                Suggestion(.recentSearch, "from:bob"), Suggestion(.recentSearch, "FROM:carol"),
                Suggestion(.operatorCompletion, "from:"),
            ])
    }

    @Test func isValues() {
        let texts = Suggestions.suggest(for: "is:", history: []).map(\.text)
        #expect(Array(texts.prefix(3)) == ["is:unread", "is:read", "is:pinned"])
        #expect(
            Suggestions.suggest(for: "invoice is:un", history: []).map(\.text) == [
                "invoice is:unread", "invoice is:unpinned", "invoice is:unflagged",
            ])
        #expect(Suggestions.suggest(for: "newer_than:", history: []).first?.text == "newer_than:7d")
        #expect(Suggestions.suggest(for: "-i", history: []).map(\.text) == ["-is:", "-in:"])
    }

    @Test func peopleAfterFromMostFrequentFirst() {
        let suggestions = Suggestions.suggest(for: "from:al", history: ["from:alex"], people: Self.people)
        #expect(
            suggestions == [
                Suggestion(.recentSearch, "from:alex"), Suggestion(.person, "from:al@example.org"),
                Suggestion(.person, "from:\"Alice Smith\""), Suggestion(.person, "from:alice@example.com"),
            ])
        #expect(
            Suggestions.suggest(for: "to:smi", history: [], people: Self.people).map(\.text) == [
                "to:\"Alice Smith\""
            ])
        #expect(Suggestions.suggest(for: "subject:al", history: [], people: Self.people).isEmpty)
    }

    @Test func atMostTenWithoutDuplicates() {
        let history = (1...15).map { "s\($0)" } + ["S1"]
        let suggestions = Suggestions.suggest(for: "s", history: history)
        #expect(suggestions.count == 10)
        #expect(suggestions.allSatisfy { $0.kind == .recentSearch })
        #expect(suggestions.map(\.text) == (1...10).map { "s\($0)" })
        #expect(Suggestions.suggest(for: "", history: ["a", "b"]).map(\.text) == ["a", "b"])
    }

    @Test func frequenciesCanBeGivenDirectly() {
        let index = PeopleIndex(frequencies: ["x@example.com": 2, "xavier@example.com": 7, "zero@example.com": 0])
        #expect(index.matching("x") == ["xavier@example.com", "x@example.com"])
        #expect(index.matching("zero").isEmpty)
    }
}
