import MailSearch
import TestSupport
import Testing

/// Every preview reaches its state through the real driver over the in-memory service.
@Suite(.hangGuard, .timeLimit(.minutes(1))) @MainActor
struct InboxViewModelPreviewTests {
    @Test(arguments: InboxViewModel.PreviewScenario.allCases)
    func previewReachesItsState(_ scenario: InboxViewModel.PreviewScenario) async {
        let service = InMemoryMailService(emails: InMemoryMailService.sampleEmails())
        let model = InboxViewModel.preview(scenario, service: service)
        switch scenario {
        case .loading:
            await until { model.connection == .open && !model.recentSearches.isEmpty }
        case .searching:
            await until { model.emailsListState == .data && model.recentSearches.count == 3 }
        case .data, .empty, .error, .searchSuggestions, .searchResults, .searchEmpty, .searchError, .queryError:
            await model.settle()
        }
        // Submitted queries go on top of the preview's recent searches.
        #expect(Array(model.recentSearches.suffix(3)) == InboxViewModel.previewRecentSearches)
        let unreachable = "the server imap.example.com cannot be reached; check the network"
        switch scenario {
        case .data:
            #expect(model.emailsListState == .data)
            #expect(model.pinnedEmails.count == 2)
            #expect(model.unpinnedEmails.count == 8)
        case .loading:
            #expect(model.emailsListState == .loading)
        case .empty:
            #expect(model.emailsListState == .empty)
        case .error:
            #expect(model.emailsListState == .error(unreachable))
        case .searchSuggestions:
            #expect(model.inboxViewState == .search)
            #expect(model.searchState == .empty)
            #expect(model.suggestions.contains(Suggestion(.person, "from:albus@hogwarts.example")))
        case .searching:
            #expect(model.searchState == .searching)
        case .searchResults:
            #expect(model.searchState == .results)
            #expect(model.searchResults.map(\.subject) == ["About Nicolas Flamel", "Thing about pain"])
        case .searchEmpty:
            #expect(model.searchState == .empty)
            #expect(model.searchedQuery == "from:voldemort")
        case .searchError:
            #expect(model.searchState == .error(unreachable))
        case .queryError:
            #expect(model.searchState == .error("unterminated quote starting at column 6"))
        }
        service.release(.list)
        service.release(.search)
        await model.settle()
    }
}
