import IMAPCore
import MailSearch
import TestSupport
import Testing

private typealias Fixture = ScreenFixture

private func parsedQuery(_ text: String) -> Query {
    do { return try QueryParser.parse(text).query } catch { preconditionFailure("\(text): \(error)") }
}

/// One transition of the spec: a machine in `start` gets `event`.
struct ScreenTransition: Sendable, CustomStringConvertible {
    var start: ScreenFixture.Start
    var event: InboxScreen.Event
    var view: InboxViewState
    var list: EmailsListState
    var search: SearchViewState
    var effects: [InboxScreen.Effect]
    var connection: InboxConnectionState?

    var description: String { "\(start) + \(event)" }

    init(
        _ start: ScreenFixture.Start, _ event: InboxScreen.Event, _ view: InboxViewState, _ list: EmailsListState,
        _ search: SearchViewState, _ effects: [InboxScreen.Effect], connection: InboxConnectionState? = nil
    ) {
        self.start = start
        self.event = event
        self.view = view
        self.list = list
        self.search = search
        self.effects = effects
        self.connection = connection
    }
}

@Suite(.hangGuard) struct InboxScreenTests {
    static let all = MessageList(ids: ScreenFixture.emails.map(\.id))
    static let failed = EmailsListState.error(ScreenFixture.failure.message)

    static let transitions: [ScreenTransition] = [
        // Start, open, list, retry.
        .init(.fresh, .start, .emails, .loading, .empty, [.loadHistory, .open], connection: .opening),
        .init(
            .opening, .opened(Fixture.mailbox), .emails, .loading, .empty,
            [.listen, .loadList(generation: 2, pageSize: 4)], connection: .open),
        .init(.opening, .openFailed(Fixture.failure), .emails, failed, .empty, []),
        // The unread are counted once the first page shows.
        .init(
            .listing, .listLoaded(generation: 2, Fixture.page()), .emails, .data, .empty,
            [.countUnread(generation: 2)]),
        .init(
            .listing, .listLoaded(generation: 2, Fixture.page([])), .emails, .empty, .empty,
            [.countUnread(generation: 2)]),
        .init(.listing, .listFailed(generation: 2, Fixture.failure), .emails, failed, .empty, []),
        // A guess of the first page shows while the listing loads; nothing else is asked for.
        .init(.listing, .listGuessed(generation: 2, Fixture.page()), .emails, .data, .empty, []),
        .init(.listing, .listGuessed(generation: 2, Fixture.page([])), .emails, .loading, .empty, []),
        .init(.listing, .listGuessed(generation: 1, Fixture.page()), .emails, .loading, .empty, []),
        .init(.data, .listGuessed(generation: 2, Fixture.page()), .emails, .data, .empty, []),
        .init(.listing, .listLoaded(generation: 1, Fixture.page()), .emails, .loading, .empty, []),
        .init(.listFailed, .refresh, .emails, .loading, .empty, [.loadList(generation: 3, pageSize: 4)]),
        .init(.openFailed, .refresh, .emails, .loading, .empty, [.open], connection: .opening),
        .init(.data, .refresh, .emails, .loading, .empty, [.loadList(generation: 3, pageSize: 4)]),
        .init(.data, .start, .emails, .loading, .empty, [.loadList(generation: 3, pageSize: 4)]),
        .init(.opening, .refresh, .emails, .loading, .empty, []),
        .init(.stopped, .start, .emails, .loading, .empty, [.open], connection: .opening),
        .init(.connectionFailed, .refresh, .emails, .loading, .empty, [.open], connection: .opening),
        // Search mode in and out; the inbox keeps its contents.
        .init(.data, .searchingChanged(true), .search, .data, .empty, []),
        .init(.searchEmpty, .searchingChanged(false), .emails, .data, .empty, []),
        .init(.results, .searchingChanged(false), .emails, .data, .empty, [.cancelTypeAhead]),
        .init(
            .searching, .searchingChanged(false), .emails, .data, .empty,
            [.cancelSearch(generation: 1), .cancelTypeAhead]),
        .init(.searchFailed, .searchingChanged(false), .emails, .data, .empty, [.cancelTypeAhead]),
        .init(.searchEmpty, .searchingChanged(true), .search, .data, .empty, []),
        // Typing: suggestions, and type-ahead asks the service (not the server) for text that parses.
        .init(
            .searchEmpty, .queryChanged("from:alb"), .search, .data, .empty,
            [.typeAhead(generation: 1, parsedQuery("from:alb"), limit: 4)]),
        .init(.results, .queryChanged("is:"), .search, .data, .results, []),
        // Submit: parse, search, record; a parse error names the column; the empty query does nothing.
        .init(
            .searchEmpty, .suggestionChosen("from:albus"), .search, .data, .searching,
            [
                .typeAhead(generation: 1, parsedQuery("from:albus"), limit: 4),
                .search(generation: 1, parsedQuery("from:albus"), pageSize: 4), .recordHistory("from:albus"),
            ]),
        .init(
            .data, .suggestionChosen("  is:unread   from:albus "), .search, .data, .searching,
            [
                .search(generation: 1, parsedQuery("is:unread from:albus"), pageSize: 4),
                .recordHistory("is:unread from:albus"),
            ]),
        .init(
            .searchEmpty, .suggestionChosen("from:\"albus"), .search, .data,
            .error("unterminated quote starting at column 6"), []),
        .init(.searchEmpty, .submit, .search, .data, .empty, []),
        .init(.searchTyped, .queryChanged("   "), .search, .data, .empty, []),
        .init(.data, .submit, .emails, .data, .empty, []),
        .init(.searching, .searchCompleted(generation: 1, Fixture.page()), .search, .data, .results, []),
        .init(.searching, .searchCompleted(generation: 1, Fixture.page([])), .search, .data, .empty, []),
        .init(
            .searching, .searchFailed(generation: 1, Fixture.failure), .search, .data,
            .error(Fixture.failure.message), []),
        // A newer submit cancels the older; the older's answer is ignored.
        .init(
            .searching, .suggestionChosen("from:minerva"), .search, .data, .searching,
            [
                .cancelTypeAhead, .typeAhead(generation: 2, parsedQuery("from:minerva"), limit: 4),
                .cancelSearch(generation: 1), .search(generation: 2, parsedQuery("from:minerva"), pageSize: 4),
                .recordHistory("from:minerva"),
            ]),
        .init(.searching, .searchCompleted(generation: 0, Fixture.page()), .search, .data, .searching, []),
        .init(
            .searching, .suggestionChosen("(oops"), .search, .data,
            .error("unbalanced \"(\" at column 1"), [.cancelSearch(generation: 1)]),
        .init(
            .results, .suggestionChosen("from:minerva"), .search, .data, .searching,
            [
                .cancelTypeAhead, .typeAhead(generation: 2, parsedQuery("from:minerva"), limit: 4),
                .search(generation: 2, parsedQuery("from:minerva"), pageSize: 4), .recordHistory("from:minerva"),
            ]),
        // More pages.
        .init(
            .data, .loadMore(.inbox), .emails, .data, .empty,
            [.loadPage(.inbox, generation: 2, all, offset: 4, pageSize: 4)]),
        .init(
            .results, .loadMore(.results), .search, .data, .results,
            [.loadPage(.results, generation: 1, all, offset: 4, pageSize: 4)]),
        .init(.resultsLoadingMore, .loadMore(.results), .search, .data, .results, []),
        .init(.listing, .loadMore(.inbox), .emails, .loading, .empty, []),
        .init(.searching, .loadMore(.results), .search, .data, .searching, []),
        // Read and pin.
        .init(.data, .toggleRead(Fixture.id(1)), .emails, .data, .empty, [.setRead([Fixture.id(1)], true, change: 1)]),
        .init(
            .data, .toggleRead(Fixture.id(3)), .emails, .data, .empty, [.setRead([Fixture.id(3)], false, change: 1)]),
        .init(
            .data, .togglePin(Fixture.id(1)), .emails, .data, .empty, [.setPinned([Fixture.id(1)], true, change: 1)]),
        .init(
            .data, .togglePin(Fixture.id(3)), .emails, .data, .empty, [.setPinned([Fixture.id(3)], false, change: 1)]),
        .init(.fresh, .toggleRead(Fixture.id(1)), .emails, .loading, .empty, []),
        // The mailbox changes.
        .init(
            .data, .mailbox(.reloadNeeded(reason: "INBOX was re-created")), .emails, .loading, .empty, [.open],
            connection: .opening),
        .init(
            .results, .mailbox(.reloadNeeded(reason: "INBOX was re-created")), .search, .loading, .searching,
            [.open, .search(generation: 2, parsedQuery("from:albus"), pageSize: 4)]),
        .init(.stopped, .mailbox(.reloadNeeded(reason: "late")), .emails, .data, .empty, [], connection: .closed),
        .init(
            .data, .mailbox(.connectionLost("reset")), .emails, .data, .empty, [], connection: .reconnecting("reset")),
        .init(.reconnecting, .mailbox(.connectionRestored), .emails, .data, .empty, [], connection: .open),
        .init(
            .data, .mailbox(.failed(Fixture.failure)), .emails, .data, .empty, [],
            connection: .failed(Fixture.failure.message)),
        .init(.data, .mailbox(.arrived([Fixture.newcomer])), .emails, .data, .empty, []),
        .init(.empty, .mailbox(.arrived([Fixture.newcomer])), .emails, .data, .empty, []),
        // The page shown is gone: the next one, not held yet, is what shows now.
        .init(
            .data, .mailbox(.expunged([1, 2, 3, 4].map(Fixture.id))), .emails, .data, .empty,
            [.loadPage(.inbox, generation: 2, all, offset: 4, pageSize: 4)]),
        .init(.data, .mailbox(.expunged(Fixture.emails.map(\.id))), .emails, .empty, .empty, []),
        .init(.results, .mailbox(.expunged(Fixture.emails.map(\.id))), .search, .empty, .empty, []),
        // Stop.
        .init(.data, .stop, .emails, .data, .empty, [.stopListening, .close], connection: .closed),
        .init(
            .searching, .stop, .search, .data, .empty,
            [.stopListening, .cancelSearch(generation: 1), .cancelTypeAhead, .close],
            connection: .closed),
        .init(.fresh, .stop, .emails, .loading, .empty, []),
        .init(.stopped, .stop, .emails, .data, .empty, []),
    ]

    @Test(arguments: transitions)
    func transition(_ row: ScreenTransition) {
        var screen = row.start.screen
        let effects = screen.handle(row.event)
        #expect(effects == row.effects)
        #expect(screen.inboxViewState == row.view)
        #expect(screen.emailsListState == row.list)
        #expect(screen.searchState == row.search)
        if let connection = row.connection { #expect(screen.connection == connection) }
        #expect(ScreenFixture.invariantViolations(screen) == [])
    }

    /// Every starting state gets every event: the invariants hold after each.
    @Test(arguments: ScreenFixture.Start.allCases)
    func everyEventKeepsTheInvariants(_ start: ScreenFixture.Start) {
        let before = start.screen
        #expect(ScreenFixture.invariantViolations(before) == [])
        for event in ScreenFixture.events(for: before) {
            var screen = before
            _ = screen.handle(event)
            #expect(ScreenFixture.invariantViolations(screen) == [], "after \(event)")
        }
    }

    /// An answer to a superseded request changes nothing at all.
    @Test(arguments: ScreenFixture.Start.allCases)
    func staleAnswersChangeNothing(_ start: ScreenFixture.Start) {
        let before = start.screen
        let (list, search) = (before.listGeneration, before.searchGeneration)
        let stale: [InboxScreen.Event] = [
            .listLoaded(generation: list - 1, Fixture.page()), .listFailed(generation: list - 1, Fixture.failure),
            .searchCompleted(generation: search - 1, Fixture.page()),
            .searchFailed(generation: search - 1, Fixture.failure),
            .pageLoaded(.inbox, generation: list - 1, Fixture.page(offset: 4)),
            .pageLoaded(.results, generation: search - 1, Fixture.page(offset: 4)),
            .pageFailed(.results, generation: search - 1, Fixture.failure),
            .flagChangeCompleted(999, FlagChangeResult(refused: [Fixture.id(1): "no"])),
            .flagChangeFailed(999, Fixture.failure),
        ]
        for event in stale {
            var screen = before
            #expect(screen.handle(event) == [], "\(event)")
            #expect(screen == before, "\(event)")
        }
    }

    /// The starting states reach every case of every state enum.
    @Test func everyStateIsReached() {
        var reached: Set<String> = []
        for start in ScreenFixture.Start.allCases {
            let screen = start.screen
            switch screen.inboxViewState {
            case .emails: reached.insert("view.emails")
            case .search: reached.insert("view.search")
            }
            switch screen.emailsListState {
            case .data: reached.insert("list.data")
            case .loading: reached.insert("list.loading")
            case .empty: reached.insert("list.empty")
            case .error: reached.insert("list.error")
            }
            switch screen.searchState {
            case .results: reached.insert("search.results")
            case .searching: reached.insert("search.searching")
            case .empty: reached.insert("search.empty")
            case .error: reached.insert("search.error")
            }
            switch screen.connection {
            case .closed: reached.insert("connection.closed")
            case .opening: reached.insert("connection.opening")
            case .open: reached.insert("connection.open")
            case .reconnecting: reached.insert("connection.reconnecting")
            case .failed: reached.insert("connection.failed")
            }
        }
        #expect(reached.count == 15, "\(reached.sorted())")
    }

    // MARK: - Sections and labels

    @Test func pinnedSectionFirstAndLabelsFollowTheState() {
        let screen = ScreenFixture.Start.data.screen
        #expect(screen.pinnedEmails.map(\.uid) == [3])
        #expect(screen.unpinnedEmails.map(\.uid) == [1, 2, 4])
        let unread = Fixture.email(1)
        let readPinned = Fixture.email(3)
        #expect(InboxScreen.readActionTitle(for: unread) == "Read")
        #expect(InboxScreen.pinActionTitle(for: unread) == "Pin")
        #expect(InboxScreen.readActionTitle(for: readPinned) == "Unread")
        #expect(InboxScreen.pinActionTitle(for: readPinned) == "Unpin")
    }

    @Test func pinMovesToPinnedAtOnceAndStaysWhenTheServerAgrees() {
        var screen = ScreenFixture.Start.data.screen
        _ = screen.handle(.togglePin(Fixture.id(2)))
        #expect(screen.pinnedEmails.map(\.uid) == [2, 3])
        #expect(screen.unpinnedEmails.map(\.uid) == [1, 4])
        #expect(InboxScreen.pinActionTitle(for: screen.email(Fixture.id(2))!) == "Unpin")
        _ = screen.handle(.flagChangeCompleted(1, FlagChangeResult(flags: [Fixture.id(2): [.seen, .flagged]])))
        #expect(screen.pendingChanges.isEmpty)
        #expect(screen.pinnedEmails.map(\.uid) == [2, 3])
        #expect(screen.notice == nil)
        // Unpinned, it goes back into date order.
        _ = screen.handle(.togglePin(Fixture.id(2)))
        #expect(screen.unpinnedEmails.map(\.uid) == [1, 2, 4])
    }

    @Test func refusedPinRollsBackWithTheReason() {
        var screen = ScreenFixture.Start.data.screen
        _ = screen.handle(.togglePin(Fixture.id(1)))
        #expect(screen.email(Fixture.id(1))?.isPinned == true)
        _ = screen.handle(
            .flagChangeCompleted(1, FlagChangeResult(refused: [Fixture.id(1): "the mailbox is read-only"])))
        #expect(screen.email(Fixture.id(1))?.isPinned == false)
        #expect(screen.pinnedEmails.map(\.uid) == [3])
        #expect(screen.notice?.kind == .flagChangeRolledBack)
        #expect(screen.notice?.message == "Could not pin “About Nicolas Flamel”: the mailbox is read-only.")
        #expect(screen.pendingChanges.isEmpty)
    }

    @Test func failedReadRollsBackWithTheError() {
        var screen = ScreenFixture.Start.data.screen
        _ = screen.handle(.toggleRead(Fixture.id(3)))
        #expect(screen.email(Fixture.id(3))?.isRead == false)
        _ = screen.handle(.flagChangeFailed(1, Fixture.failure))
        #expect(screen.email(Fixture.id(3))?.isRead == true)
        #expect(
            screen.notice
                == InboxNotice(
                    .flagChangeRolledBack,
                    "Could not mark as unread “Potions homework”: the server is unreachable; check the network"))
    }

    @Test func theSameMessageChangesInTheInboxAndTheResultsTogether() {
        var screen = ScreenFixture.Start.results.screen
        _ = screen.handle(.toggleRead(Fixture.id(1)))
        #expect(screen.inbox.first { $0.uid == 1 }?.isRead == true)
        #expect(screen.searchResults.first { $0.uid == 1 }?.isRead == true)
        _ = screen.handle(.flagChangeFailed(1, Fixture.failure))
        #expect(screen.inbox.first { $0.uid == 1 }?.isRead == false)
        #expect(screen.searchResults.first { $0.uid == 1 }?.isRead == false)
        // Another client's change reaches both.
        _ = screen.handle(.mailbox(.flagsChanged(Fixture.id(2), [.seen, .flagged])))
        #expect(screen.inbox.first { $0.uid == 2 }?.isPinned == true)
        #expect(screen.searchResults.first { $0.uid == 2 }?.isPinned == true)
        #expect(screen.pinnedEmails.map(\.uid) == [2, 3])
    }

    @Test func aChangeElsewhereWhileOursIsPendingIsKeptWhenOursIsRefused() {
        var screen = ScreenFixture.Start.data.screen
        _ = screen.handle(.togglePin(Fixture.id(1)))
        // Read on a phone meanwhile: the row shows read and (still, optimistically) pinned.
        _ = screen.handle(.mailbox(.flagsChanged(Fixture.id(1), [.seen])))
        #expect(screen.email(Fixture.id(1))?.isRead == true)
        #expect(screen.email(Fixture.id(1))?.isPinned == true)
        _ = screen.handle(.flagChangeCompleted(1, FlagChangeResult(refused: [Fixture.id(1): "conflict"])))
        #expect(screen.email(Fixture.id(1))?.flags == [.seen])
    }

    @Test func twoQuickTogglesEndAsTheServerAnswers() {
        var screen = ScreenFixture.Start.data.screen
        let effects = screen.handle(.toggleRead(Fixture.id(1))) + screen.handle(.toggleRead(Fixture.id(1)))
        #expect(effects == [.setRead([Fixture.id(1)], true, change: 1), .setRead([Fixture.id(1)], false, change: 2)])
        #expect(screen.email(Fixture.id(1))?.isRead == false)
        // The first is applied, the second refused: the message stays read.
        _ = screen.handle(.flagChangeCompleted(1, FlagChangeResult()))
        #expect(screen.email(Fixture.id(1))?.isRead == false)
        _ = screen.handle(.flagChangeCompleted(2, FlagChangeResult(refused: [Fixture.id(1): "conflict"])))
        #expect(screen.email(Fixture.id(1))?.isRead == true)
    }

    @Test func aPendingChangeShowsOnAPageLoadedMeanwhile() {
        var screen = ScreenFixture.Start.results.screen
        _ = screen.handle(.togglePin(Fixture.id(1)))
        _ = screen.handle(.refresh)
        // The listing was read before the server applied the pin.
        _ = screen.handle(.listLoaded(generation: screen.listGeneration, Fixture.page()))
        #expect(screen.pinnedEmails.map(\.uid) == [1, 3])
        _ = screen.handle(.flagChangeCompleted(1, FlagChangeResult(refused: [Fixture.id(1): "conflict"])))
        #expect(screen.pinnedEmails.map(\.uid) == [3])
    }

    @Test func pinUsesTheMailboxsPinFlagAndWarnsWhenItFellBack() {
        var screen = InboxScreen(pageSize: 4)
        _ = screen.handle(.start)
        let keyword = MailboxDescription(name: "INBOX", uidValidity: 1, messageCount: 10, pinFlag: "$Pinned")
        _ = screen.handle(.opened(keyword))
        _ = screen.handle(.listLoaded(generation: screen.listGeneration, Fixture.page()))
        // The sample's \Flagged is not the pin here.
        #expect(screen.pinnedEmails.isEmpty)
        _ = screen.handle(.togglePin(Fixture.id(1)))
        #expect(screen.email(Fixture.id(1))?.flags == ["$Pinned"])
        #expect(screen.pinnedEmails.map(\.uid) == [1])

        var fallback = InboxScreen(pageSize: 4)
        _ = fallback.handle(.start)
        let warning = FlagPolicyWarning(keyword: "$Pinned")
        _ = fallback.handle(
            .opened(MailboxDescription(name: "INBOX", uidValidity: 1, messageCount: 10, pinWarning: warning)))
        #expect(fallback.notice == InboxNotice(.pinKeywordFallback, warning.message))
    }

    @Test func aReadOnlyMailboxRefusesAtOnce() {
        var screen = InboxScreen(pageSize: 4)
        _ = screen.handle(.start)
        _ = screen.handle(
            .opened(MailboxDescription(name: "INBOX", uidValidity: 1, messageCount: 10, isReadOnly: true)))
        _ = screen.handle(.listLoaded(generation: screen.listGeneration, Fixture.page()))
        #expect(screen.handle(.togglePin(Fixture.id(1))) == [])
        #expect(screen.email(Fixture.id(1))?.isPinned == false)
        #expect(screen.notice?.message == "Could not pin “About Nicolas Flamel”: the mailbox is read-only.")
    }

    // MARK: - Live changes

    @Test func arrivalsGoOnTopOfTheInboxNotIntoTheResults() {
        var screen = ScreenFixture.Start.results.screen
        _ = screen.handle(.mailbox(.arrived([Fixture.newcomer])))
        #expect(screen.unpinnedEmails.map(\.uid) == [11, 1, 2, 4])
        #expect(!screen.searchResults.contains { $0.uid == 11 })
        // Twice is once.
        _ = screen.handle(.mailbox(.arrived([Fixture.newcomer])))
        #expect(screen.inbox.count == 5)
    }

    @Test func expungedMessagesLeaveBothListsAndTheCount() {
        var screen = ScreenFixture.Start.results.screen
        #expect(screen.searchResultsTotal == 10)
        _ = screen.handle(.mailbox(.expunged([Fixture.id(1), Fixture.id(9)])))
        #expect(screen.inbox.map(\.uid) == [2, 3, 4])
        #expect(screen.searchResults.map(\.uid) == [2, 3, 4])
        #expect(screen.searchResultsTotal == 8)
    }

    @Test func changesDuringAListingAreReplayedOntoIt() {
        var screen = ScreenFixture.Start.listing.screen
        _ = screen.handle(.mailbox(.arrived([Fixture.newcomer])))
        _ = screen.handle(.mailbox(.expunged([Fixture.id(2)])))
        _ = screen.handle(.mailbox(.flagsChanged(Fixture.id(1), [.seen])))
        // The listing was computed before all three.
        _ = screen.handle(.listLoaded(generation: screen.listGeneration, Fixture.page()))
        #expect(screen.inbox.map(\.uid) == [11, 1, 3, 4])
        #expect(screen.email(Fixture.id(1))?.isRead == true)
    }

    @Test func aGuessedFirstPageShowsUntilTheListingReplacesIt() {
        var screen = ScreenFixture.Start.listing.screen
        let generation = screen.listGeneration
        // The guess: the newest by sequence number, in a list of only its own messages.
        let guess = EmailPage(
            list: MessageList(ids: [Fixture.id(10), Fixture.id(9), Fixture.id(8), Fixture.id(7)]), offset: 0,
            emails: [10, 9, 8, 7].map(Fixture.email))
        _ = screen.handle(.mailbox(.flagsChanged(Fixture.id(9), [.seen])))
        #expect(screen.handle(.listGuessed(generation: generation, guess)) == [])
        #expect(screen.emailsListState == .data)
        #expect(screen.inbox.map(\.uid) == [10, 9, 8, 7])
        #expect(screen.email(Fixture.id(9))?.isRead == true)
        // Nothing pages from the guess's short list while the listing is out.
        #expect(screen.handle(.loadMore(.inbox)) == [])
        #expect(screen.handle(.show(.inbox, rows: 0..<40)) == [])
        // The sorted listing replaces it, and only then is the unread count asked for.
        let effects = screen.handle(.listLoaded(generation: generation, Fixture.page()))
        #expect(effects == [.countUnread(generation: generation)])
        #expect(screen.inbox.map(\.uid) == [1, 2, 3, 4])
        #expect(screen.inboxWindow.list == MessageList(ids: Fixture.emails.map(\.id)))
        // A guess arriving late changes nothing.
        #expect(screen.handle(.listGuessed(generation: generation, guess)) == [])
        #expect(screen.inbox.map(\.uid) == [1, 2, 3, 4])
    }

    @Test func changesDuringASearchAreReplayedOntoItsResults() {
        var screen = ScreenFixture.Start.searching.screen
        _ = screen.handle(.mailbox(.expunged([Fixture.id(1), Fixture.id(7)])))
        _ = screen.handle(.mailbox(.flagsChanged(Fixture.id(2), [])))
        _ = screen.handle(.mailbox(.arrived([Fixture.newcomer])))
        _ = screen.handle(.searchCompleted(generation: screen.searchGeneration, Fixture.page()))
        #expect(screen.searchResults.map(\.uid) == [2, 3, 4])
        #expect(screen.searchResults.first?.isRead == false)
        #expect(screen.searchResultsTotal == 8)
    }

    @Test func notices() {
        var screen = ScreenFixture.Start.data.screen
        _ = screen.handle(.mailbox(.connectionLost("the connection was reset")))
        #expect(screen.notice == InboxNotice(.connection, "the connection was reset"))
        _ = screen.handle(.mailbox(.connectionRestored))
        #expect(screen.notice == nil)
        _ = screen.handle(.mailbox(.alert("maintenance at 2 am")))
        #expect(screen.notice == InboxNotice(.alert, "maintenance at 2 am"))
        _ = screen.handle(.dismissNotice)
        #expect(screen.notice == nil)
        _ = screen.handle(.suggestionChosen("alice or bob"))
        #expect(screen.notice?.kind == .searchHint)
        #expect(screen.notice?.message.contains("did you mean OR?") == true)
    }

    // MARK: - Suggestions, paging

    @Test func suggestionsComeFromHistoryOperatorsAndPeopleWithoutServerEffects() {
        var screen = ScreenFixture.Start.data.screen
        _ = screen.handle(.historyLoaded(["from:albus", "invoice"], warning: nil))
        #expect(screen.recentSearches == ["from:albus", "invoice"])
        #expect(screen.handle(.searchingChanged(true)) == [])
        #expect(screen.suggestions.map(\.text) == ["from:albus", "invoice"])
        #expect(
            screen.handle(.queryChanged("from:se")) == [.typeAhead(generation: 1, parsedQuery("from:se"), limit: 4)])
        #expect(screen.suggestions.map(\.text) == ["from:\"Severus Snape\"", "from:severus@hogwarts.example"])
        #expect(
            screen.handle(.queryChanged("fr")) == [
                .cancelTypeAhead, .typeAhead(generation: 2, parsedQuery("fr"), limit: 4),
            ])
        #expect(screen.suggestions.map(\.text) == ["from:albus", "from:"])
    }

    @Test func loadMoreAppendsUntilTheEnd() {
        var screen = ScreenFixture.Start.data.screen
        #expect(screen.canLoadMore)
        _ = screen.handle(.loadMore(.inbox))
        #expect(screen.isLoadingMore)
        #expect(screen.handle(.loadMore(.inbox)) == [])
        _ = screen.handle(.pageLoaded(.inbox, generation: screen.listGeneration, Fixture.page(offset: 4)))
        #expect(screen.inbox.map(\.uid) == Array(1...8))
        #expect(screen.pinnedEmails.map(\.uid) == [3, 6])
        _ = screen.handle(.loadMore(.inbox))
        _ = screen.handle(.pageLoaded(.inbox, generation: screen.listGeneration, Fixture.page(offset: 8)))
        #expect(screen.inbox.count == 10)
        #expect(!screen.canLoadMore)
        #expect(screen.handle(.loadMore(.inbox)) == [])
    }

    @Test func aPageForAListingThatWasRefreshedIsIgnored() {
        var screen = ScreenFixture.Start.data.screen
        _ = screen.handle(.loadMore(.inbox))
        let old = screen.listGeneration
        _ = screen.handle(.refresh)
        _ = screen.handle(.listLoaded(generation: screen.listGeneration, Fixture.page()))
        _ = screen.handle(.pageLoaded(.inbox, generation: old, Fixture.page(offset: 4)))
        #expect(screen.inbox.count == 4)
        #expect(!screen.isLoadingMore)
    }

    @Test func resultsPagesAndTheirFailure() {
        var screen = ScreenFixture.Start.resultsLoadingMore.screen
        _ = screen.handle(.pageFailed(.results, generation: screen.searchGeneration, Fixture.failure))
        #expect(screen.notice?.kind == .loadFailed)
        #expect(screen.searchResults.count == 4)
        _ = screen.handle(.loadMore(.results))
        _ = screen.handle(.pageLoaded(.results, generation: screen.searchGeneration, Fixture.page(offset: 4)))
        #expect(screen.searchResults.map(\.uid) == Array(1...8))
        #expect(screen.canLoadMoreResults)
    }
}
