import IMAPCore

/// The inbox and search screen as a pure state machine (docs/inbox-view-model.md): feed it an
/// ``Event``, it changes its state and returns the ``Effect``s to perform. It does no I/O;
/// ``InboxViewModel`` performs the effects and feeds their outcomes back as events.
///
/// It is a small coordinator of parts with one job each: ``InboxListing`` (opening, listing,
/// the inbox's pages), ``InboxSearch`` (search mode and its results' pages), ``FlagChanges``
/// (optimistic Read/Pin), ``LiveEventLog`` (changes an answer in flight missed) and
/// ``SearchSuggestions`` (the field, the history, suggestions). It routes each event to the
/// parts it concerns and produces what the screen shows as one value, ``view``.
///
/// ```swift
/// var screen = InboxScreen(pageSize: 50)
/// screen.handle(.start)                          // [.loadHistory, .open]
/// screen.handle(.opened(description))            // [.listen, .loadList(generation: 1, pageSize: 50)]
/// screen.handle(.listLoaded(generation: 1, page))
/// screen.view.emailsListState                    // .data
/// ```
///
/// Answers carry the generation of the request they answer; an answer for a request that has
/// been superseded (a newer search, a refresh, leaving search mode) changes nothing.
@dynamicMemberLookup
package struct InboxScreen: Hashable, Sendable {
    /// How many messages a page holds.
    package let pageSize: Int
    var listing: InboxListing
    var search: InboxSearch
    var flags = FlagChanges()
    var log = LiveEventLog()
    var field = SearchSuggestions()
    var typeAhead: TypeAhead
    /// What the screen should tell the person.
    var notice: InboxNotice?

    /// A screen whose pages hold `pageSize` messages (at least one).
    package init(pageSize: Int = 50) {
        self.pageSize = max(1, pageSize)
        listing = InboxListing(pageSize: self.pageSize)
        search = InboxSearch(pageSize: self.pageSize)
        typeAhead = TypeAhead(limit: self.pageSize)
    }

    // MARK: - What the views read

    /// What the screen shows now, as one value.
    package var view: InboxScreenState {
        var view = InboxScreenState(pageSize: pageSize)
        view.inboxViewState = search.viewState
        view.emailsListState = listing.listState
        view.searchState = search.searchState
        view.connection = listing.connection
        view.mailbox = listing.mailbox
        view.inboxWindow = listing.inbox.window
        view.resultsWindow = search.results.window
        view.unreadCount = listing.unreadUIDs?.count
        view.inboxShown = listing.inbox.shown
        view.resultsShown = search.results.shown
        view.searchResultsTotal = search.total
        view.query = field.query
        view.searchedQuery = search.searchedQuery
        view.suggestions = field.suggestions
        view.recentSearches = field.recentSearches
        view.typeAheadResults = typeAhead.results
        view.typeAheadQuery = typeAhead.answeredQuery
        view.notice = notice
        view.isLoadingMore = listing.inbox.request != nil
        view.isLoadingMoreResults = search.results.request != nil
        return view
    }

    /// A part of ``view`` (`screen.emailsListState`).
    package subscript<Value>(dynamicMember part: KeyPath<InboxScreenState, Value>) -> Value { view[keyPath: part] }

    /// The held message `id`, from the inbox or else the results.
    package func email(_ id: Email.ID) -> Email? { view.email(id) }
    /// Counts listings; a listing's or inbox page's answer must carry the current one.
    package var listGeneration: Int { listing.generation }
    /// Counts submits; a search's answer must carry the current one.
    package var searchGeneration: Int { search.generation }
    /// Flag changes the server has not answered yet, oldest first.
    package var pendingChanges: [FlagChange] { flags.pending }
    /// How many pages are kept either side of the pages the view shows.
    package static let pagesKeptAround = ListPaging.pagesKeptAround

    /// The label of the read action for `email`: "Unread" when it is read, else "Read".
    package static func readActionTitle(for email: Email) -> String { email.isRead ? "Unread" : "Read" }
    /// The label of the pin action for `email`: "Unpin" when it is pinned, else "Pin".
    package static func pinActionTitle(for email: Email) -> String { email.isPinned ? "Unpin" : "Pin" }

    // MARK: - Events

    /// Applies `event`; returns what the driver must do, in order.
    package mutating func handle(_ event: Event) -> [Effect] {
        var effects: [Effect] = []
        for action in route(event) {
            switch action {
            case .effect(let effect):
                effects.append(effect)
                if let request = Self.request(effect) { log.event(.started(request)) }
            case .notice(let new):
                notice = new
            case .seen(let emails):
                // Never asks for anything: people only join the suggestions.
                _ = field.event(.seen(emails, following: search.viewState == .search))
            }
        }
        var inFlight: Set<LiveEventLog.Request> = []
        switch listing.load {
        case .none: break
        case .listing: inFlight.insert(.list)
        case .countingUnread: inFlight.insert(.unread)
        }
        if listing.inbox.request != nil { inFlight.insert(.inboxPage) }
        if search.isSearching { inFlight.insert(.search) }
        if search.results.request != nil { inFlight.insert(.resultsPage) }
        log.event(.inFlight(inFlight))
        return effects
    }

    private mutating func route(_ event: Event) -> [InboxAction] {
        switch event {
        case .start: return fieldEvent(.start) + listing.event(.start)
        case .refresh: return listing.event(.refresh)
        case .stop:
            // Nothing to stop: not even the search is cancelled.
            guard listing.isRunning else { return [] }
            return listing.event(.stop) + search.event(.stop) + typeAheadEvent(.clear) + [.effect(.close)]
        case .opened(let description):
            let pinFlag = listing.pinFlag
            let actions = listing.event(.opened(description))
            if listing.pinFlag != pinFlag { _ = search.event(.repinned(listing.pinFlag)) }
            return actions
        case .openFailed(let error): return listing.event(.openFailed(error))
        case .listGuessed(let generation, let page):
            guard listing.awaits(.listing, generation), listing.acceptsGuess else { return [] }
            let (emails, expunged) = prepare(page.emails, answering: .list, insertingArrivals: false)
            return listing.event(.guessed(page, emails, expunged: expunged))
        case .listLoaded(let generation, let page):
            guard listing.awaits(.listing, generation) else { return [] }
            let (emails, expunged) = prepare(page.emails, answering: .list, insertingArrivals: true)
            return listing.event(.listed(page, emails, expunged: expunged))
        case .listFailed(let generation, let error):
            guard listing.awaits(.listing, generation) else { return [] }
            return listing.event(.listFailed(error))
        case .unreadCounted(let generation, let uids):
            guard listing.awaits(.countingUnread, generation) else { return [] }
            return listing.event(.unreadCounted(uids, since: log.changes(since: .unread)))
        case .searchingChanged(let isSearching):
            let before = search.viewState
            let actions = search.event(.searchingChanged(isSearching))
            switch (before, search.viewState) {
            case (.emails, .search): return actions + fieldEvent(.follow)
            case (.search, .emails): return actions + fieldEvent(.clear) + typeAheadEvent(.clear)
            case (.emails, .emails), (.search, .search): return actions
            }
        case .queryChanged(let text): return fieldEvent(.typed(text)) + typed(text)
        case .submit: return search.event(.submit(field.query))
        case .suggestionChosen(let text):
            return fieldEvent(.typed(text)) + typed(text) + search.event(.submit(text))
        case .typeAheadAnswered(let generation, let emails):
            return typeAheadEvent(.answered(generation: generation, emails))
        case .searchCompleted(let generation, let page):
            guard search.awaits(generation) else { return [] }
            // Whether new mail matches is the server's to say: arrivals wait for the next search.
            let (emails, expunged) = prepare(page.emails, answering: .search, insertingArrivals: false)
            return search.event(.completed(page, emails, expunged: expunged))
        case .searchFailed(let generation, let error):
            guard search.awaits(generation) else { return [] }
            return search.event(.failed(error))
        case .loadMore(.inbox): return listing.event(.paging(.loadMore))
        case .loadMore(.results): return search.event(.paging(.loadMore))
        case .show(.inbox, let rows): return listing.event(.paging(.show(rows)))
        case .show(.results, let rows): return search.event(.paging(.show(rows)))
        case .pageLoaded(.inbox, let generation, let page):
            guard generation == listing.generation, listing.inbox.request(answeredBy: page) != nil else { return [] }
            return listing.event(.pageLoaded(prepare(page.emails, answering: .inboxPage, insertingArrivals: false).0))
        case .pageLoaded(.results, let generation, let page):
            guard generation == search.generation, search.results.request(answeredBy: page) != nil else { return [] }
            let (emails, expunged) = prepare(page.emails, answering: .resultsPage, insertingArrivals: false)
            return search.event(.pageLoaded(emails, expunged: expunged))
        case .pageFailed(.inbox, let generation, let error):
            guard generation == listing.generation, listing.inbox.request != nil else { return [] }
            let notice = InboxNotice(.loadFailed, "Could not load more messages: \(error.message)")
            return listing.event(.paging(.pageFailed)) + [.notice(notice)]
        case .pageFailed(.results, let generation, let error):
            guard generation == search.generation, search.results.request != nil else { return [] }
            let notice = InboxNotice(.loadFailed, "Could not load more results: \(error.message)")
            return search.event(.paging(.pageFailed)) + [.notice(notice)]
        case .toggleRead(let id): return toggle(.read, id)
        case .togglePin(let id): return toggle(.pin, id)
        case .flagChangeCompleted(let change, let result): return flagsChanged(.completed(change, result))
        case .flagChangeFailed(let change, let error): return flagsChanged(.failed(change, error))
        case .mailbox(let change): return mailboxChanged(change)
        case .eventsEnded: return listing.event(.eventsEnded)
        case .historyLoaded(let entries, let warning):
            return fieldEvent(.historyLoaded(entries)) + (warning.map { [.notice(InboxNotice(.history, $0))] } ?? [])
        case .historyFailed(let message): return [.notice(InboxNotice(.history, message))]
        case .dismissNotice:
            notice = nil
            return []
        }
    }

    /// Brings an answer to `request` up to date with the live changes since it was sent, and
    /// shows the pending flag changes on it; returns it and the messages expunged meanwhile.
    private mutating func prepare(
        _ emails: [Email], answering request: LiveEventLog.Request, insertingArrivals: Bool
    ) -> ([Email], Set<Email.ID>) {
        var emails = emails
        let expunged = log.replay(
            request, onto: &emails, insertingArrivals: insertingArrivals, pinFlag: listing.pinFlag)
        var adopted: [Email] = []
        for case .adopted(let rows) in flags.event(.loaded(emails), pinFlag: listing.pinFlag) { adopted = rows }
        return (adopted, expunged)
    }

    /// The request an effect sends, whose answer is brought up to date with what it missed.
    private static func request(_ effect: Effect) -> LiveEventLog.Request? {
        switch effect {
        case .loadList: return .list
        case .countUnread: return .unread
        case .search: return .search
        case .loadPage(.inbox, _, _, _, _): return .inboxPage
        case .loadPage(.results, _, _, _, _): return .resultsPage
        case .loadHistory, .open, .listen, .stopListening, .cancelSearch, .setRead, .setPinned, .recordHistory,
            .close, .typeAhead, .cancelTypeAhead:
            return nil
        }
    }

    /// The field's text changed: in search mode, type-ahead asks for it.
    private mutating func typed(_ text: String) -> [InboxAction] {
        search.viewState == .search ? typeAheadEvent(.typed(text)) : []
    }

    private mutating func typeAheadEvent(_ event: TypeAhead.Event) -> [InboxAction] {
        typeAhead.event(event).map { action in
            switch action {
            case .ask(let generation, let query, let limit):
                return .effect(.typeAhead(generation: generation, query, limit: limit))
            case .cancel: return .effect(.cancelTypeAhead)
            }
        }
    }

    private mutating func fieldEvent(_ event: SearchSuggestions.Event) -> [InboxAction] {
        field.event(event).map { action in
            switch action {
            case .loadHistory: return .effect(.loadHistory)
            }
        }
    }

    /// Both lists' rows shown may now be on pages not held: ask for them.
    mutating func windowsChanged() -> [InboxAction] {
        let inbox = listing.event(.paging(.windowChanged))
        return search.viewState == .search ? inbox + search.event(.paging(.windowChanged)) : inbox
    }
}
