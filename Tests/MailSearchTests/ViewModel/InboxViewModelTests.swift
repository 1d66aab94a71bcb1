import Foundation
import IMAPCore
import MailSearch
import TestSupport
import Testing

private typealias Fixture = ViewModelFixture

/// The view model against the in-memory service: no sleeps; holds, failures and refusals are
/// the service's, waits are `settle()` or observation.
@Suite(.hangGuard, .timeLimit(.minutes(1))) @MainActor
struct InboxViewModelTests {
    // MARK: - Loading

    @Test func loadingThenDataWithThePinnedSectionFirst() async {
        let service = Fixture.service()
        service.hold(.list)
        let model = Fixture.model(service)
        #expect(model.emailsListState == .loading)
        model.start()
        await until { model.connection == .open }
        #expect(model.emailsListState == .loading)
        service.release(.list)
        await model.settle()
        #expect(model.emailsListState == .data)
        #expect(model.pinnedEmails.map(\.uid) == [8])
        #expect(model.unpinnedEmails.map(\.uid) == [10, 9, 7])
        #expect(model.unpinnedEmails.first?.subject == "About Nicolas Flamel")
        #expect(model.canLoadMore)
        #expect(service.callCount(.open) == 1)
        #expect(service.callCount(.list) == 1)
    }

    @Test func anEmptyMailbox() async {
        let service = Fixture.service([])
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        #expect(model.emailsListState == .empty)
        #expect(model.pinnedEmails.isEmpty && model.unpinnedEmails.isEmpty)
        #expect(!model.canLoadMore)
    }

    @Test func aFailedListingShowsTheErrorAndRetryLoads() async {
        let service = Fixture.service()
        service.setFailure(Fixture.failure, for: .list)
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        #expect(model.emailsListState == .error("the server is unreachable; check the network"))
        service.setFailure(nil, for: .list)
        model.refresh()
        #expect(model.emailsListState == .loading)
        await model.settle()
        #expect(model.emailsListState == .data)
        #expect(service.callCount(.open) == 1)
        #expect(service.callCount(.list) == 2)
    }

    @Test func aFailedOpenIsRetriedByOpeningAgain() async {
        let service = Fixture.service()
        service.setFailure(Fixture.failure, for: .open)
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        #expect(model.emailsListState == .error(Fixture.failure.message))
        #expect(model.connection == .failed(Fixture.failure.message))
        service.setFailure(nil, for: .open)
        model.refresh()
        await model.settle()
        #expect(model.emailsListState == .data)
        #expect(model.connection == .open)
        #expect(service.callCount(.open) == 2)
    }

    @Test func loadMoreAppendsPagesUntilTheEnd() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        model.loadMore()
        #expect(model.isLoadingMore)
        await model.settle()
        #expect(model.pinnedEmails.map(\.uid) == [8, 5])
        #expect(model.unpinnedEmails.map(\.uid) == [10, 9, 7, 6, 4, 3])
        model.loadMore()
        await model.settle()
        #expect(model.pinnedEmails.count + model.unpinnedEmails.count == 10)
        #expect(!model.canLoadMore)
        #expect(!model.isLoadingMore)
        model.loadMore()
        await model.settle()
        // The second page, and the pinned row (5) in view before its page was held, by UID.
        #expect(service.callCount(.page) == 2 + 1)
    }

    // MARK: - Search

    @Test func typingSuggestsWithoutTheServerAndSubmitShowsResults() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        model.setSearching(true)
        #expect(model.inboxViewState == .search)
        #expect(model.searchState == .empty)
        model.searchText = "from:alb"
        #expect(model.query == "from:alb")
        #expect(model.suggestions.map(\.text).contains("from:albus@hogwarts.example"))
        await model.settle()
        #expect(service.callCount(.search) == 0)
        model.submit()
        #expect(model.searchState == .searching)
        await model.settle()
        // Like IMAP's FROM, `from:` matches a substring: both of Albus's messages.
        #expect(model.searchState == .results)
        #expect(model.searchResults.map(\.uid) == [10, 7])
        #expect(model.searchResultsTotal == 2)
        #expect(model.searchedQuery == "from:alb")
        #expect(service.callCount(.search) == 1)
    }

    @Test func aChosenSuggestionFillsTheFieldAndSubmits() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        model.setSearching(true)
        model.chooseSuggestion(Suggestion(.person, "from:minerva@hogwarts.example"))
        #expect(model.query == "from:minerva@hogwarts.example")
        await model.settle()
        #expect(model.searchResults.map(\.subject) == ["Transfiguration timetable"])
    }

    @Test func aSearchThatMatchesNothingIsEmptyWithItsQuery() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        model.setSearching(true)
        model.updateQuery("from:voldemort")
        model.submit()
        await model.settle()
        #expect(model.searchState == .empty)
        #expect(model.searchedQuery == "from:voldemort")
        #expect(model.searchResults.isEmpty)
    }

    @Test func aQueryThatDoesNotParseNamesTheColumnAndNeverReachesTheServer() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        model.setSearching(true)
        model.updateQuery("subject:\"potions")
        model.submit()
        await model.settle()
        #expect(model.searchState == .error("unterminated quote starting at column 9"))
        #expect(service.callCount(.search) == 0)
        #expect(model.recentSearches.isEmpty)
    }

    @Test func theEmptyQueryDoesNothing() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        model.setSearching(true)
        model.updateQuery("   ")
        model.submit()
        await model.settle()
        #expect(model.searchState == .empty)
        #expect(model.searchedQuery == nil)
        #expect(service.callCount(.search) == 0)
    }

    @Test func aFailedSearchShowsTheError() async {
        let service = Fixture.service()
        service.setFailure(
            MailServiceError(.refused, "the server refused the search: SEARCH is disabled"), for: .search)
        let model = Fixture.model(service)
        model.start()
        model.setSearching(true)
        model.updateQuery("from:albus")
        model.submit()
        await model.settle()
        #expect(model.searchState == .error("the server refused the search: SEARCH is disabled"))
    }

    @Test func aSecondSearchWhileTheFirstIsHeldEndsWithTheSecondsResults() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        service.hold(.search)
        model.setSearching(true)
        model.updateQuery("from:albus")
        model.submit()
        model.updateQuery("from:minerva")
        model.submit()
        #expect(model.searchState == .searching)
        service.release(.search)
        await model.settle()
        #expect(model.searchState == .results)
        #expect(model.searchResults.map(\.subject) == ["Transfiguration timetable"])
        #expect(model.searchedQuery == "from:minerva")
        #expect(service.callCount(.search) == 2)
    }

    @Test func aLateAnswerToAnOlderSearchNeverOverwritesTheNewer() async {
        let inner = Fixture.service()
        let service = GatedSearchService(inner)
        let model = InboxViewModel(service: service, history: .memory([]), pageSize: 4)
        model.start()
        await model.settle()
        model.setSearching(true)
        model.updateQuery("from:albus")
        model.submit()
        // The older search reaches the server before the newer is submitted (submitted at once,
        // it could be cancelled before it was sent, and the second call never come).
        await service.waitForCalls(1)
        model.updateQuery("from:minerva")
        model.submit()
        await service.waitForCalls(2)
        service.release(1)
        await until { model.searchState == .results }
        #expect(model.searchResults.map(\.subject) == ["Transfiguration timetable"])
        service.release(0)
        await model.settle()
        #expect(service.answered == 2)
        #expect(model.searchResults.map(\.subject) == ["Transfiguration timetable"])
        #expect(model.searchedQuery == "from:minerva")
    }

    @Test func leavingSearchModeCancelsTheSearchAndKeepsTheInbox() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        let inbox = model.unpinnedEmails
        service.hold(.search)
        model.isSearching = true
        model.updateQuery("from:albus")
        model.submit()
        model.isSearching = false
        await model.settle()
        #expect(model.inboxViewState == .emails)
        #expect(model.searchState == .empty)
        #expect(model.query == "")
        #expect(model.searchResults.isEmpty)
        #expect(model.unpinnedEmails == inbox)
        #expect(model.emailsListState == .data)
        service.release(.search)
    }

    @Test func moreResults() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        model.setSearching(true)
        model.updateQuery("to:harry")
        model.submit()
        await model.settle()
        #expect(model.searchResults.count == 4)
        #expect(model.searchResultsTotal == 10)
        #expect(model.canLoadMoreResults)
        model.loadMoreResults()
        #expect(model.isLoadingMoreResults)
        await model.settle()
        #expect(model.searchResults.map(\.uid) == [10, 9, 8, 7, 6, 5, 4, 3])
        model.loadMoreResults()
        await model.settle()
        #expect(model.searchResults.count == 10)
        #expect(!model.canLoadMoreResults)
    }

    // MARK: - Read and pin

    @Test func readAndUnreadLabelsFollowTheMessageAndReachTheServer() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        let newest = Fixture.id(10)
        #expect(model.unpinnedEmails.first.map(model.readActionTitle(for:)) == "Read")
        model.toggleRead(newest)
        #expect(model.unpinnedEmails.first?.isRead == true)
        #expect(model.unpinnedEmails.first.map(model.readActionTitle(for:)) == "Unread")
        await model.settle()
        #expect(service.email(newest)?.isRead == true)
        model.toggleRead(newest)
        await model.settle()
        #expect(service.email(newest)?.isRead == false)
        #expect(model.unpinnedEmails.first.map(model.readActionTitle(for:)) == "Read")
        #expect(model.notice == nil)
    }

    @Test func pinMovesBetweenTheSectionsAndReachesTheServer() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        model.togglePin(Fixture.id(9))
        #expect(model.pinnedEmails.map(\.uid) == [9, 8])
        #expect(model.pinnedEmails.first.map(model.pinActionTitle(for:)) == "Unpin")
        await model.settle()
        #expect(service.email(Fixture.id(9))?.isPinned == true)
        model.togglePin(Fixture.id(8))
        #expect(model.pinnedEmails.map(\.uid) == [9])
        #expect(model.unpinnedEmails.map(\.uid) == [10, 8, 7])
        #expect(model.unpinnedEmails[1].flags.contains(.seen))
        await model.settle()
        #expect(service.email(Fixture.id(8))?.flags == [.seen])
    }

    @Test func aRefusedPinRollsBackAndShowsTheReason() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        service.refuseFlagChanges(reason: "the mailbox is read-only")
        model.togglePin(Fixture.id(10))
        #expect(model.pinnedEmails.map(\.uid) == [10, 8])
        await model.settle()
        #expect(model.pinnedEmails.map(\.uid) == [8])
        #expect(model.notice?.kind == .flagChangeRolledBack)
        #expect(model.notice?.message == "Could not pin “About Nicolas Flamel”: the mailbox is read-only.")
        #expect(service.email(Fixture.id(10))?.isPinned == false)
    }

    @Test func aFailedPinRollsBack() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        service.setFailure(MailServiceError(.connection, "the connection was lost"), for: .setPinned)
        model.togglePin(Fixture.id(8))
        #expect(model.pinnedEmails.isEmpty)
        await model.settle()
        #expect(model.pinnedEmails.map(\.uid) == [8])
        #expect(model.notice?.message == "Could not unpin “Potions homework”: the connection was lost")
    }

    @Test func theSameMessageChangesInTheInboxAndTheResultsTogether() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        model.setSearching(true)
        model.updateQuery("from:albus")
        model.submit()
        await model.settle()
        let newest = Fixture.id(10)
        model.toggleRead(newest)
        #expect(model.searchResults.first { $0.id == newest }?.isRead == true)
        #expect(model.unpinnedEmails.first { $0.id == newest }?.isRead == true)
        await model.settle()
        service.refuseFlagChanges(reason: "changed elsewhere")
        model.togglePin(newest)
        #expect(model.searchResults.first { $0.id == newest }?.isPinned == true)
        #expect(model.pinnedEmails.first?.id == newest)
        await model.settle()
        #expect(model.searchResults.first { $0.id == newest }?.isPinned == false)
        #expect(model.pinnedEmails.map(\.uid) == [8])
    }

    // MARK: - Another client

    @Test func arrivalsExpungesAndFlagChangesElsewhereReachTheModel() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        model.setSearching(true)
        model.updateQuery("from:albus")
        model.submit()
        await model.settle()

        let delivered = service.deliver(Fixture.newcomer)
        await until { model.unpinnedEmails.first?.id == delivered.id }
        #expect(model.unpinnedEmails.map(\.subject).first == "Socks")

        service.changeFlags(of: Fixture.id(7), to: [.flagged])
        await until { model.searchResults.last?.isPinned == true }
        #expect(model.searchResults.map(\.uid) == [10, 7])

        service.changeFlags(of: Fixture.id(9), to: [.seen, .flagged])
        await until { model.pinnedEmails.map(\.uid) == [9, 8, 7] }

        service.expunge([Fixture.id(10)])
        await until { model.searchResults.map(\.uid) == [7] }
        #expect(!model.unpinnedEmails.contains { $0.uid == 10 })
        #expect(model.searchResultsTotal == 1)
    }

    @Test func aReloadNeededOpensAndListsAgain() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        service.announce(.reloadNeeded(reason: "INBOX was re-created on the server"))
        await until { model.notice?.kind == .reloaded }
        await model.settle()
        #expect(model.emailsListState == .data)
        #expect(service.callCount(.open) == 2)
        #expect(service.callCount(.list) == 2)
    }

    @Test func connectionTroubleShowsAndClears() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        service.announce(.connectionLost("the connection to the server was lost; reconnecting"))
        await until { model.connection != .open }
        #expect(model.connection == .reconnecting("the connection to the server was lost; reconnecting"))
        #expect(model.notice?.kind == .connection)
        service.announce(.connectionRestored)
        await until { model.connection == .open }
        #expect(model.notice == nil)
        service.announce(.failed(Fixture.failure))
        await until { model.connection == .failed(Fixture.failure.message) }
    }

    @Test func aModelDroppedWhileListeningIsReleased() async {
        let service = Fixture.service()
        weak var released: InboxViewModel?
        do {
            let model = Fixture.model(service)
            model.start()
            await model.settle()
            #expect(model.connection == .open)
            released = model
        }
        #expect(released == nil)
    }

    @Test func stopClosesAndStartOpensAgain() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        model.togglePin(Fixture.id(10))
        model.stop()
        await model.settle()
        #expect(model.connection == .closed)
        // The flag change in flight was let finish.
        #expect(service.email(Fixture.id(10))?.isPinned == true)
        model.start()
        await model.settle()
        #expect(model.connection == .open)
        #expect(service.callCount(.open) == 2)
        service.deliver(Fixture.newcomer)
        await until { model.unpinnedEmails.first?.subject == "Socks" }
    }
}
