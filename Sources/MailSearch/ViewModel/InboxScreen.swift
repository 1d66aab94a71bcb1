package import IMAPCore

/// The inbox and search screen as a pure state machine (docs/inbox-view-model.md): feed it an
/// ``Event``, it changes its state and returns the ``Effect``s to perform. It does no I/O;
/// ``InboxViewModel`` performs the effects and feeds their outcomes back as events.
///
/// ```swift
/// var screen = InboxScreen(pageSize: 50)
/// screen.handle(.start)                          // [.loadHistory, .open]
/// screen.handle(.opened(description))            // [.listen, .loadList(generation: 1, pageSize: 50)]
/// screen.handle(.listLoaded(generation: 1, page))
/// screen.emailsListState                         // .data
/// ```
///
/// Answers carry the generation of the request they answer; an answer for a request that has
/// been superseded (a newer search, a refresh, leaving search mode) changes nothing.
package struct InboxScreen: Hashable, Sendable {
    /// What happens to the screen: the person's actions and the answers to effects.
    package enum Event: Hashable, Sendable {
        /// The screen appears: open the mailbox and list it.
        case start
        /// Pull to refresh, or Retry after an error: list again (open again when it failed).
        case refresh
        /// The screen goes away: stop listening, cancel what is in flight, close.
        case stop
        /// The mailbox is open.
        case opened(MailboxDescription)
        /// Opening failed.
        case openFailed(MailServiceError)
        /// A guess of the listing's first page arrived before the listing
        /// (`MailService.list(pageSize:provisional:)`): shown while the listing is still loading,
        /// replaced by its `listLoaded`.
        case listGuessed(generation: Int, EmailPage)
        /// The first page of the listing arrived.
        case listLoaded(generation: Int, EmailPage)
        /// The listing failed.
        case listFailed(generation: Int, MailServiceError)
        /// The mailbox's unread messages were counted (nil: the service cannot say; a failure
        /// is nil too, the count is not worth a notice).
        case unreadCounted(generation: Int, [UInt32]?)
        /// The search field gained (true) or lost (false) focus.
        case searchingChanged(Bool)
        /// The search field's text changed.
        case queryChanged(String)
        /// The search field was submitted.
        case submit
        /// A suggestion was chosen: it fills the field and submits.
        case suggestionChosen(String)
        /// The first page of a search's results arrived.
        case searchCompleted(generation: Int, EmailPage)
        /// A search failed.
        case searchFailed(generation: Int, MailServiceError)
        /// The person scrolled to the end of the inbox or of the results: the next page joins
        /// the rows shown.
        case loadMore(Target)
        /// The view shows (or is about to show) `rows` of the inbox or the results, numbered as
        /// ``MailListWindow`` numbers them: their pages are loaded, one at a time, and kept with
        /// one page either side; every other page is dropped.
        case show(Target, rows: Range<Int>)
        /// A further page arrived.
        case pageLoaded(Target, generation: Int, EmailPage)
        /// A further page could not be loaded.
        case pageFailed(Target, generation: Int, MailServiceError)
        /// The Read/Unread action on a message.
        case toggleRead(Email.ID)
        /// The Pin/Unpin action on a message.
        case togglePin(Email.ID)
        /// The server answered a flag change.
        case flagChangeCompleted(Int, FlagChangeResult)
        /// A flag change failed (connection lost, the server said NO).
        case flagChangeFailed(Int, MailServiceError)
        /// Something happened in the open mailbox.
        case mailbox(MailServiceEvent)
        /// The service's event stream ended (it was closed).
        case eventsEnded
        /// The search history was read or written: its entries, newest first, and the warning
        /// when the file could not be read and was replaced.
        case historyLoaded([String], warning: String?)
        /// The search history could not be saved.
        case historyFailed(String)
        /// The person dismissed the notice.
        case dismissNotice
    }

    /// What the driver should do.
    package enum Effect: Hashable, Sendable {
        /// Read the search history.
        case loadHistory
        /// Open the mailbox (`MailService.open()`), answer with `opened`/`openFailed`.
        case open
        /// Listen to `MailService.events()`, feeding each as `mailbox(_:)`, then `eventsEnded`.
        case listen
        /// Stop listening.
        case stopListening
        /// List the mailbox's first page; answer with `listLoaded`/`listFailed` of `generation`.
        case loadList(generation: Int, pageSize: Int)
        /// Find the mailbox's unread messages (`MailService.unreadUIDs()`), after its first page
        /// is in; answer with `unreadCounted` of `generation`.
        case countUnread(generation: Int)
        /// Run a search; answer with `searchCompleted`/`searchFailed` of `generation`.
        case search(generation: Int, Query, pageSize: Int)
        /// Cancel the search of `generation` and its page loads (their answers would be ignored).
        case cancelSearch(generation: Int)
        /// Load a further page; answer with `pageLoaded`/`pageFailed`.
        case loadPage(Target, generation: Int, MessageList, offset: Int, pageSize: Int)
        /// Mark messages read or unread; answer with `flagChangeCompleted`/`flagChangeFailed`.
        case setRead([Email.ID], Bool, change: Int)
        /// Pin or unpin messages; answer with `flagChangeCompleted`/`flagChangeFailed`.
        case setPinned([Email.ID], Bool, change: Int)
        /// Record a submitted query in the history; answer with `historyLoaded`/`historyFailed`.
        case recordHistory(String)
        /// Cancel the listing and the page loads in flight, and close the service once the flag
        /// changes in flight are answered.
        case close
    }

    /// Which list a page belongs to.
    package enum Target: Hashable, Sendable {
        /// The inbox.
        case inbox
        /// The search results.
        case results
    }

    /// Which flag a change sets.
    package enum FlagKind: Hashable, Sendable {
        /// `\Seen`.
        case read
        /// The mailbox's pin flag.
        case pin
    }

    /// An optimistic flag change waiting for the server.
    package struct FlagChange: Hashable, Sendable {
        /// Its number, carried by the answer.
        package var id: Int
        /// Which flag.
        package var kind: FlagKind
        /// Set (true) or cleared.
        package var value: Bool
        /// The messages it changes.
        package var emails: [Email.ID]
    }

    /// A request in flight: the generation its answer must carry, and the first live event it
    /// may have missed (events from then on are replayed onto its answer).
    private struct Request: Hashable, Sendable {
        var generation: Int
        var firstEvent: Int
        /// The page asked for (page loads).
        var page = 0
        /// The pinned messages asked for by UID, when it is their rows that load.
        var pinned: [Email.ID]?
    }

    /// How many messages a page holds.
    package let pageSize: Int

    /// Which screen shows.
    package private(set) var inboxViewState: InboxViewState = .emails
    /// What the inbox shows. Before the first start it is `loading`: a view calls start when it
    /// appears, and "Checking for Mail..." is right from the first frame.
    package private(set) var emailsListState: EmailsListState = .loading
    /// What search mode shows.
    package private(set) var searchState: SearchViewState = .empty
    /// The connection behind the screen.
    package private(set) var connection: InboxConnectionState = .closed
    /// The open mailbox, once opened.
    package private(set) var mailbox: MailboxDescription?

    /// The inbox: the rows of the pages around what the view shows, the pinned ones, and the
    /// arrivals since the listing.
    package private(set) var inboxWindow: MailListWindow
    /// The listing the inbox's pages come from.
    package private(set) var inboxList: MessageList?
    /// The rows of the inbox the view shows (``MailListWindow`` numbering).
    package private(set) var inboxShown: Range<Int>

    /// The results of the submitted search, through the same kind of window (no Pinned section).
    package private(set) var resultsWindow: MailListWindow
    /// The search's full list of matches, for further pages.
    package private(set) var resultsList: MessageList?
    /// The rows of the results the view shows.
    package private(set) var resultsShown: Range<Int>
    /// Matches of `resultsList` removed since the search (expunged elsewhere).
    private var resultsRemoved: Set<Email.ID> = []

    /// The text of the search field.
    package private(set) var query = ""
    /// The submitted query (normalized) whose results show, are awaited, or failed; nil before a
    /// submit and after leaving search mode.
    package private(set) var searchedQuery: String?
    /// Suggestions for `query`: recent searches, operators, people.
    package private(set) var suggestions: [Suggestion] = []
    /// Recent searches, newest first.
    package private(set) var recentSearches: [String] = []
    /// What the screen should tell the person.
    package private(set) var notice: InboxNotice?

    /// Counts submits; a search's answer must carry the current one.
    package private(set) var searchGeneration = 0
    /// Counts listings; a listing's or inbox page's answer must carry the current one.
    package private(set) var listGeneration = 0

    /// Flag changes the server has not answered yet, oldest first.
    package private(set) var pendingChanges: [FlagChange] = []
    /// For each message with a pending change: its flags as the server last told them. What
    /// shows is these with the pending changes applied; a refusal shows these again.
    private var confirmedFlags: [Email.ID: [Flag]] = [:]
    private var nextChangeID = 1

    /// The inbox's unread messages by UID, from the listing and kept up to date by every flag
    /// change, arrival and expunge (held rows or not); nil when the listing did not say.
    private var unreadUIDs: Set<UInt32>?

    private var people = PeopleIndex()
    /// The messages whose people are counted, as runs of UIDs per mailbox: a mailbox scrolled
    /// page by page is a few runs, not a set of every message scrolled past.
    private var peopleCounted: [MailboxKey: UIDRuns] = [:]
    private var historyRequested = false
    private var isListening = false

    private var listLoad: Request?
    private var unreadLoad: Request?
    private var inboxPageLoad: Request?
    private var searchLoad: Request?
    private var resultsPageLoad: Request?
    /// Live changes (arrivals, expunges, flag changes) since the oldest request in flight, so an
    /// answer computed before them is brought up to date. `eventLog[0]` has number `eventLogStart`.
    private var eventLog: [MailServiceEvent] = []
    private var eventLogStart = 0

    /// A screen whose pages hold `pageSize` messages (at least one).
    package init(pageSize: Int = 50) {
        self.pageSize = max(1, pageSize)
        inboxWindow = MailListWindow(pageSize: max(1, pageSize), pinnedSection: true)
        resultsWindow = MailListWindow(pageSize: max(1, pageSize), pinnedSection: false)
        inboxShown = 0..<max(1, pageSize)
        resultsShown = 0..<max(1, pageSize)
    }

    // MARK: - What the views read

    /// The held inbox messages in the server's order (newest first), pinned or not: built on
    /// each read, for tests and previews; views read ``inboxWindow``.
    package var inbox: [Email] { inboxWindow.residentEmails }
    /// The held results, newest first (built on each read).
    package var results: [Email] { resultsWindow.residentEmails }
    /// The pinned messages of the inbox whose rows are held, in the inbox's order (second design
    /// document); the section keeps every pinned message seen, by UID (``inboxWindow``).
    package var pinnedEmails: [Email] { inboxWindow.pinnedEmails }
    /// The held inbox messages that are not pinned, newest first.
    package var unpinnedEmails: [Email] { inboxWindow.otherEmails }
    /// How many messages of the inbox are unread (the whole mailbox, not the rows held); nil
    /// when the service did not say.
    package var unreadCount: Int? { unreadUIDs?.count }
    /// Whether the inbox has a page after the last one held.
    package var canLoadMore: Bool { Self.hasPageAfterResident(inboxWindow) }
    /// Whether the results have a page after the last one held.
    package var canLoadMoreResults: Bool { Self.hasPageAfterResident(resultsWindow) }

    private static func hasPageAfterResident(_ window: MailListWindow) -> Bool {
        guard window.pageCount > 0 else { return false }
        return (window.residentPages.last ?? -1) < window.pageCount - 1
    }
    /// Whether an inbox page is loading.
    package var isLoadingMore: Bool { inboxPageLoad != nil }
    /// Whether a results page is loading.
    package var isLoadingMoreResults: Bool { resultsPageLoad != nil }
    /// How many messages matched the search (less those expunged since); 0 before a search.
    package var resultsTotal: Int { max(0, (resultsList?.total ?? 0) - resultsRemoved.count) }
    /// The flag that pins in the open mailbox.
    package var pinFlag: Flag { mailbox?.pinFlag ?? .flagged }

    /// The label of the read action for `email`: "Unread" when it is read, else "Read".
    package static func readActionTitle(for email: Email) -> String { email.isRead ? "Unread" : "Read" }
    /// The label of the pin action for `email`: "Unpin" when it is pinned, else "Pin".
    package static func pinActionTitle(for email: Email) -> String { email.isPinned ? "Unpin" : "Pin" }

    /// The held message `id`, from the inbox or else the results.
    package func email(_ id: Email.ID) -> Email? {
        inboxWindow.email(id) ?? resultsWindow.email(id)
    }

    // MARK: - Events

    /// Applies `event`; returns what the driver must do, in order.
    package mutating func handle(_ event: Event) -> [Effect] {
        defer { trimEventLog() }
        switch event {
        case .start: return start()
        case .refresh: return refresh()
        case .stop: return stop()
        case .opened(let description): return opened(description)
        case .openFailed(let error): return openFailed(error)
        case .listGuessed(let generation, let page): return listGuessed(generation, page)
        case .listLoaded(let generation, let page): return listLoaded(generation, page)
        case .listFailed(let generation, let error): return listFailed(generation, error)
        case .unreadCounted(let generation, let uids): return unreadCounted(generation, uids)
        case .searchingChanged(let isSearching): return searchingChanged(isSearching)
        case .queryChanged(let text):
            query = text
            suggest()
            return []
        case .submit: return submit()
        case .suggestionChosen(let text):
            query = text
            suggest()
            return submit()
        case .searchCompleted(let generation, let page): return searchCompleted(generation, page)
        case .searchFailed(let generation, let error): return searchFailed(generation, error)
        case .loadMore(let target): return loadMore(target)
        case .show(let target, let rows): return show(target, rows)
        case .pageLoaded(let target, let generation, let page): return pageLoaded(target, generation, page)
        case .pageFailed(let target, let generation, let error): return pageFailed(target, generation, error)
        case .toggleRead(let id): return toggle(.read, id)
        case .togglePin(let id): return toggle(.pin, id)
        case .flagChangeCompleted(let change, let result): return flagChangeCompleted(change, result)
        case .flagChangeFailed(let change, let error): return flagChangeFailed(change, error)
        case .mailbox(let event): return mailboxEvent(event)
        case .eventsEnded:
            isListening = false
            return []
        case .historyLoaded(let entries, let warning):
            recentSearches = entries
            if let warning { notice = InboxNotice(.history, warning) }
            suggest()
            return []
        case .historyFailed(let message):
            notice = InboxNotice(.history, message)
            return []
        case .dismissNotice:
            notice = nil
            return []
        }
    }

    // MARK: - Opening and listing

    private mutating func start() -> [Effect] {
        var effects: [Effect] = []
        if !historyRequested {
            historyRequested = true
            effects.append(.loadHistory)
        }
        switch connection {
        case .closed, .failed: return effects + beginOpening()
        case .opening: return effects
        case .open, .reconnecting: return effects + reloadList()
        }
    }

    private mutating func refresh() -> [Effect] {
        switch connection {
        case .closed, .failed: return beginOpening()
        case .opening: return []
        case .open, .reconnecting: return reloadList()
        }
    }

    private mutating func beginOpening() -> [Effect] {
        connection = .opening
        emailsListState = .loading
        listGeneration += 1
        listLoad = nil
        unreadLoad = nil
        inboxPageLoad = nil
        return [.open]
    }

    private mutating func reloadList() -> [Effect] {
        listGeneration += 1
        listLoad = Request(generation: listGeneration, firstEvent: nextEventNumber)
        inboxPageLoad = nil
        emailsListState = .loading
        return [.loadList(generation: listGeneration, pageSize: pageSize)]
    }

    private mutating func stop() -> [Effect] {
        if connection == .closed && !isListening { return [] }
        var effects: [Effect] = []
        if isListening {
            isListening = false
            effects.append(.stopListening)
        }
        if searchLoad != nil || resultsPageLoad != nil {
            effects.append(.cancelSearch(generation: searchGeneration))
            if searchLoad != nil {
                // The search will not answer: show the query again, as before its submit.
                searchState = .empty
                searchedQuery = nil
            }
            searchGeneration += 1
            searchLoad = nil
            resultsPageLoad = nil
        }
        listGeneration += 1
        listLoad = nil
        unreadLoad = nil
        inboxPageLoad = nil
        connection = .closed
        effects.append(.close)
        return effects
    }

    private mutating func opened(_ description: MailboxDescription) -> [Effect] {
        guard connection == .opening else { return [] }
        if description.pinFlag != pinFlag {
            inboxWindow.updateAll { $0.setFlags($0.flags, pinFlag: description.pinFlag) }
            resultsWindow.updateAll { $0.setFlags($0.flags, pinFlag: description.pinFlag) }
        }
        mailbox = description
        connection = .open
        if let warning = description.pinWarning { notice = InboxNotice(.pinKeywordFallback, warning.message) }
        var effects: [Effect] = []
        if !isListening {
            isListening = true
            effects.append(.listen)
        }
        return effects + reloadList()
    }

    private mutating func openFailed(_ error: MailServiceError) -> [Effect] {
        guard connection == .opening else { return [] }
        connection = .failed(error.message)
        emailsListState = .error(error.message)
        return []
    }

    /// Shows the guess at once. The listing stays in flight (`listLoad`), so nothing pages
    /// from the guess's short list; its answer replaces the rows.
    private mutating func listGuessed(_ generation: Int, _ page: EmailPage) -> [Effect] {
        guard let request = listLoad, request.generation == generation, emailsListState == .loading else { return [] }
        // A guess is for a first screen only: over a listing already shown (a refresh, a
        // reconnect) its short list would take the place the view is at.
        guard inboxList == nil else { return [] }
        var emails = page.emails
        let expunged = replay(since: request.firstEvent, onto: &emails, insertingArrivals: false)
        let adopted = adopting(emails)
        guard !adopted.isEmpty else { return [] }
        showFirstInboxPage(page, adopted, expunged: expunged)
        if !inboxWindow.isEmpty { emailsListState = .data }
        return []
    }

    /// A new inbox window over `page`'s list, scrolled to the top: `emails` in the page's place,
    /// `arrivals` on top, `expunged` left out.
    private mutating func showFirstInboxPage(
        _ page: EmailPage, _ emails: [Email], arrivals: [Email] = [], expunged: Set<Email.ID>
    ) {
        inboxWindow = MailListWindow(
            list: page.list, pageSize: pageSize, pinnedSection: true, revision: inboxWindow.revision &+ 1)
        inboxWindow.insert(page: inboxWindow.page(ofOffset: page.offset), emails)
        if !arrivals.isEmpty { inboxWindow.arrive(arrivals) }
        inboxWindow.remove(expunged)
        inboxShown = 0..<pageSize
    }

    private mutating func listLoaded(_ generation: Int, _ page: EmailPage) -> [Effect] {
        guard let request = listLoad, request.generation == generation else { return [] }
        listLoad = nil
        var emails = page.emails
        let expunged = replay(since: request.firstEvent, onto: &emails, insertingArrivals: true)
        let adopted = adopting(emails)
        // What arrived during the listing goes on top; the rest is the listing's first page.
        let listed = Set(page.emails.map(\.id))
        showFirstInboxPage(
            page, adopted.filter { listed.contains($0.id) }, arrivals: adopted.filter { !listed.contains($0.id) },
            expunged: expunged)
        inboxList = page.list
        emailsListState = inboxWindow.isEmpty ? .empty : .data
        countPeople(in: adopted)
        if !page.warnings.isEmpty { notice = InboxNotice(.searchHint, page.warnings.joined(separator: " ")) }
        // Counted once the first page shows, so the count never delays it.
        unreadLoad = Request(generation: generation, firstEvent: nextEventNumber)
        return [.countUnread(generation: generation)]
    }

    private mutating func unreadCounted(_ generation: Int, _ uids: [UInt32]?) -> [Effect] {
        guard let request = unreadLoad, request.generation == generation else { return [] }
        unreadLoad = nil
        guard let uids else {
            unreadUIDs = nil
            return []
        }
        unreadUIDs = Set(uids)
        // What changed since the count was asked for is brought onto it; held rows are the
        // freshest word on their own flags (pending changes shown).
        for event in eventLog[min(max(0, request.firstEvent - eventLogStart), eventLog.count)...] {
            switch event {
            case .flagsChanged(let id, let flags): markRead(id, flags.contains(.seen))
            case .expunged(let ids): for id in ids { forgetUnread(id) }
            case .arrived(let emails): for email in emails { markRead(email.id, email.isRead) }
            case .reloadNeeded, .connectionLost, .connectionRestored, .failed, .alert: continue
            }
        }
        for email in inboxWindow.residentEmails { markRead(email.id, email.isRead) }
        return []
    }

    private mutating func listFailed(_ generation: Int, _ error: MailServiceError) -> [Effect] {
        guard let request = listLoad, request.generation == generation else { return [] }
        listLoad = nil
        emailsListState = .error(error.message)
        return []
    }

    // MARK: - Search

    private mutating func searchingChanged(_ isSearching: Bool) -> [Effect] {
        switch (inboxViewState, isSearching) {
        case (.emails, true):
            inboxViewState = .search
            searchState = .empty
            suggest()
            return []
        case (.search, false):
            return leaveSearch()
        case (.emails, false), (.search, true):
            return []
        }
    }

    /// Back to the inbox (which kept its contents); the search is cancelled and forgotten.
    private mutating func leaveSearch() -> [Effect] {
        let effects = cancelSearchInFlight()
        searchGeneration += 1
        inboxViewState = .emails
        searchState = .empty
        query = ""
        searchedQuery = nil
        clearResults()
        suggestions = []
        return effects
    }

    private mutating func cancelSearchInFlight() -> [Effect] {
        guard searchLoad != nil || resultsPageLoad != nil else { return [] }
        searchLoad = nil
        resultsPageLoad = nil
        return [.cancelSearch(generation: searchGeneration)]
    }

    private mutating func clearResults() {
        resultsWindow = MailListWindow(pageSize: pageSize, pinnedSection: false, revision: resultsWindow.revision &+ 1)
        resultsShown = 0..<pageSize
        resultsList = nil
        resultsRemoved = []
    }

    private mutating func submit() -> [Effect] {
        let text = SearchHistory.normalized(query)
        guard !text.isEmpty else { return [] }
        var effects = cancelSearchInFlight()
        searchGeneration += 1
        inboxViewState = .search
        clearResults()
        searchedQuery = text
        let parsed: ParsedQuery
        do {
            parsed = try QueryParser.parse(text)
        } catch {
            searchState = .error(error.message)
            return effects
        }
        searchLoad = Request(generation: searchGeneration, firstEvent: nextEventNumber)
        searchState = .searching
        if !parsed.hints.isEmpty {
            notice = InboxNotice(.searchHint, parsed.hints.map(\.message).joined(separator: "; "))
        }
        effects.append(.search(generation: searchGeneration, parsed.query, pageSize: pageSize))
        effects.append(.recordHistory(text))
        return effects
    }

    private mutating func searchCompleted(_ generation: Int, _ page: EmailPage) -> [Effect] {
        guard let request = searchLoad, request.generation == generation else { return [] }
        searchLoad = nil
        var emails = page.emails
        // Whether new mail matches is the server's to say: arrivals wait for the next search.
        let expunged = replay(since: request.firstEvent, onto: &emails, insertingArrivals: false)
        let adopted = adopting(emails)
        resultsWindow = MailListWindow(
            list: page.list, pageSize: pageSize, pinnedSection: false, revision: resultsWindow.revision &+ 1)
        resultsWindow.insert(page: resultsWindow.page(ofOffset: page.offset), adopted)
        resultsWindow.remove(expunged)
        resultsList = page.list
        resultsShown = 0..<pageSize
        resultsRemoved = expunged.intersection(page.list.ids)
        searchState = resultsWindow.isEmpty ? .empty : .results
        countPeople(in: adopted)
        if !page.warnings.isEmpty { notice = InboxNotice(.searchHint, page.warnings.joined(separator: " ")) }
        return []
    }

    private mutating func searchFailed(_ generation: Int, _ error: MailServiceError) -> [Effect] {
        guard let request = searchLoad, request.generation == generation else { return [] }
        searchLoad = nil
        searchState = .error(error.message)
        return []
    }

    private mutating func suggest() {
        suggestions = Suggestions.suggest(for: query, history: recentSearches, people: people)
    }

    /// Counts the senders and recipients of messages not counted yet, for suggestions (which
    /// follow when search mode shows).
    private mutating func countPeople(in emails: [Email]) {
        var counted = false
        for email in emails
        where peopleCounted[MailboxKey(email.id), default: UIDRuns()].insert(email.id.uid) {
            for person in [email.from] + email.to + email.cc where !person.address.isEmpty {
                people.add(address: person.address, name: person.name)
                counted = true
            }
        }
        if counted && inboxViewState == .search { suggest() }
    }

    // MARK: - Further pages: the window

    /// How many pages are kept either side of the pages the view shows (``Event/show(_:rows:)``):
    /// the rows held are those pages', the pinned ones among the rows shown and a page either
    /// side of them (the Pinned section keeps every pinned message seen, by UID, and fetches
    /// their rows again by UID), and the arrivals, never more. The terminal UI shows a screenful
    /// and asks for two more either side (five screenfuls, 105 rows at 80x24, touching at most
    /// four pages of 50), so at most six pages of 50 and 205 pinned rows are held, however far
    /// it scrolled.
    package static let pagesKeptAround = 1

    private mutating func loadMore(_ target: Target) -> [Effect] {
        let window = window(target)
        guard isPageable(target), pageLoad(target) == nil, Self.hasPageAfterResident(window) else { return [] }
        let next = (window.residentPages.last ?? -1) + 1
        let end = window.pinnedCount + window.start(ofPage: next) + 1
        let shown = shown(target)
        setShown(target, min(shown.lowerBound, end - 1)..<max(shown.upperBound, end))
        return windowChanged(target)
    }

    private mutating func show(_ target: Target, _ rows: Range<Int>) -> [Effect] {
        guard shown(target) != rows else { return [] }
        setShown(target, rows)
        return windowChanged(target)
    }

    /// Whether pages of `target` may be loaded now: its first page is in and nothing replaces it.
    private func isPageable(_ target: Target) -> Bool {
        switch target {
        case .inbox:
            guard listLoad == nil else { return false }
            switch emailsListState {
            case .data, .empty: return true
            case .loading, .error: return false
            }
        case .results:
            guard searchLoad == nil else { return false }
            switch searchState {
            case .results, .empty: return true
            case .searching, .error: return false
            }
        }
    }

    /// The pages that `rows` of `window` fall in; nil when the list has none.
    private static func pages(_ rows: Range<Int>, in window: MailListWindow) -> ClosedRange<Int>? {
        guard window.pageCount > 0, window.othersCount > window.start(ofPage: 0) else { return nil }
        let last = window.pageCount - 1
        func page(_ position: Int) -> Int {
            let other = max(0, position - window.pinnedCount)
            if let page = window.page(ofOther: other) { return page }
            return other < window.othersCount ? 0 : last
        }
        let first = page(rows.lowerBound)
        let final = page(max(rows.lowerBound, rows.upperBound - 1))
        return min(first, final)...max(first, final)
    }

    /// The pages of `target` held: those shown and ``pagesKeptAround`` either side.
    private func keptPages(_ target: Target) -> ClosedRange<Int>? {
        guard let wanted = Self.pages(shown(target), in: window(target)) else { return nil }
        return (wanted.lowerBound - Self.pagesKeptAround)...(wanted.upperBound + Self.pagesKeptAround)
    }

    /// Drops the pages far from what the view shows and asks for the missing page nearest the
    /// middle of it (one page load at a time: its answer asks for the next), so `G` at the end
    /// of 100,000 messages loads the last page, not the pages before it.
    private mutating func windowChanged(_ target: Target) -> [Effect] {
        guard let wanted = Self.pages(shown(target), in: window(target)), let kept = keptPages(target) else {
            return []
        }
        let shown = shown(target)
        // Pinned rows are held near the view only, like pages: a page of rows either side.
        let keptPinned = (shown.lowerBound - pageSize)..<max(shown.lowerBound - pageSize, shown.upperBound + pageSize)
        modifyWindow(target) { window in
            for page in window.residentPages where !kept.contains(page) { window.drop(page: page) }
            window.dropPinnedRows(outside: keptPinned)
        }
        guard pageLoad(target) == nil, isPageable(target), let list = list(target) else { return [] }
        let window = window(target)
        let generation = target == .inbox ? listGeneration : searchGeneration
        let pinnedShown = window.pinnedNotHeld(in: shown)
        if !pinnedShown.isEmpty {
            // Pinned rows in view come first: fetched by UID, not by page.
            setPageLoad(
                target, Request(generation: generation, firstEvent: nextEventNumber, page: -1, pinned: pinnedShown))
            return [
                .loadPage(target, generation: generation, MessageList(ids: pinnedShown), offset: 0, pageSize: pageSize)
            ]
        }
        // The middle of the rows shown is what is in view (the view asks for as many rows either
        // side of it), also at the ends of the list.
        let center = shown.lowerBound + shown.count / 2
        let middle = Self.pages(center..<center + 1, in: window)?.lowerBound ?? wanted.lowerBound
        let missing = wanted.filter { !window.isResident($0) }.min { abs($0 - middle) < abs($1 - middle) }
        guard let missing else { return [] }
        setPageLoad(target, Request(generation: generation, firstEvent: nextEventNumber, page: missing))
        return [
            .loadPage(target, generation: generation, list, offset: window.offset(ofPage: missing), pageSize: pageSize)
        ]
    }

    private mutating func pageLoaded(_ target: Target, _ generation: Int, _ page: EmailPage) -> [Effect] {
        guard let request = pageLoad(target), request.generation == generation else { return [] }
        if let asked = request.pinned {
            guard page.list.ids == asked else { return [] }
        } else {
            guard window(target).page(ofOffset: page.offset) == request.page else { return [] }
        }
        setPageLoad(target, nil)
        var emails = page.emails
        let expunged = replay(since: request.firstEvent, onto: &emails, insertingArrivals: false)
        let adopted = adopting(emails)
        if let asked = request.pinned {
            modifyWindow(target) { $0.insertPinned(adopted, asked: asked) }
            for email in adopted { markRead(email.id, email.isRead) }
            countPeople(in: adopted)
            return windowChanged(target)
        }
        let keep = keptPages(target)?.contains(request.page) ?? false
        modifyWindow(target) { $0.insert(page: request.page, adopted, keep: keep) }
        for email in adopted { markRead(email.id, email.isRead) }
        switch target {
        case .inbox:
            emailsListState = inboxWindow.isEmpty ? .empty : .data
        case .results:
            if let list = resultsList { resultsRemoved.formUnion(expunged.intersection(list.ids)) }
            searchState = resultsWindow.isEmpty ? .empty : .results
        }
        countPeople(in: adopted)
        return windowChanged(target)
    }

    private mutating func pageFailed(_ target: Target, _ generation: Int, _ error: MailServiceError) -> [Effect] {
        guard let request = pageLoad(target), request.generation == generation else { return [] }
        setPageLoad(target, nil)
        switch target {
        case .inbox: notice = InboxNotice(.loadFailed, "Could not load more messages: \(error.message)")
        case .results: notice = InboxNotice(.loadFailed, "Could not load more results: \(error.message)")
        }
        return []
    }

    private func window(_ target: Target) -> MailListWindow {
        switch target {
        case .inbox: return inboxWindow
        case .results: return resultsWindow
        }
    }

    /// Changes the window of `target` in place (no copy of its rows).
    private mutating func modifyWindow(_ target: Target, _ change: (inout MailListWindow) -> Void) {
        switch target {
        case .inbox: change(&inboxWindow)
        case .results: change(&resultsWindow)
        }
    }

    private func shown(_ target: Target) -> Range<Int> {
        switch target {
        case .inbox: return inboxShown
        case .results: return resultsShown
        }
    }

    private mutating func setShown(_ target: Target, _ rows: Range<Int>) {
        switch target {
        case .inbox: inboxShown = rows
        case .results: resultsShown = rows
        }
    }

    private func list(_ target: Target) -> MessageList? {
        switch target {
        case .inbox: return inboxList
        case .results: return resultsList
        }
    }

    private func pageLoad(_ target: Target) -> Request? {
        switch target {
        case .inbox: return inboxPageLoad
        case .results: return resultsPageLoad
        }
    }

    private mutating func setPageLoad(_ target: Target, _ request: Request?) {
        switch target {
        case .inbox: inboxPageLoad = request
        case .results: resultsPageLoad = request
        }
    }

    // MARK: - Read and pin

    private func flag(_ kind: FlagKind) -> Flag {
        switch kind {
        case .read: return .seen
        case .pin: return pinFlag
        }
    }

    private mutating func toggle(_ kind: FlagKind, _ id: Email.ID) -> [Effect] {
        guard let email = email(id) else { return [] }
        let value: Bool
        switch kind {
        case .read: value = !email.isRead
        case .pin: value = !email.isPinned
        }
        if mailbox?.isReadOnly == true && id.mailbox == mailbox?.name {
            notice = InboxNotice(
                .flagChangeRolledBack,
                "Could not \(Self.verb(kind, value)) “\(email.subject)”: the mailbox is read-only.")
            return []
        }
        let change = FlagChange(id: nextChangeID, kind: kind, value: value, emails: [id])
        nextChangeID += 1
        if confirmedFlags[id] == nil { confirmedFlags[id] = email.flags }
        pendingChanges.append(change)
        show(id)
        switch kind {
        case .read: return [.setRead([id], value, change: change.id)]
        case .pin: return [.setPinned([id], value, change: change.id)]
        }
    }

    private static func verb(_ kind: FlagKind, _ value: Bool) -> String {
        switch (kind, value) {
        case (.read, true): return "mark as read"
        case (.read, false): return "mark as unread"
        case (.pin, true): return "pin"
        case (.pin, false): return "unpin"
        }
    }

    private mutating func flagChangeCompleted(_ changeID: Int, _ result: FlagChangeResult) -> [Effect] {
        guard let index = pendingChanges.firstIndex(where: { $0.id == changeID }) else { return [] }
        let change = pendingChanges.remove(at: index)
        var refusals: [String] = []
        for id in change.emails {
            if let reason = result.refused[id] {
                refusals.append("Could not \(Self.verb(change.kind, change.value)) \(describe(id)): \(reason).")
            } else if let flags = result.flags[id] {
                confirmedFlags[id] = flags
            } else {
                confirmedFlags[id] = Self.setting(flag(change.kind), change.value, in: confirmedFlags[id] ?? [])
            }
            show(id)
        }
        if !refusals.isEmpty { notice = InboxNotice(.flagChangeRolledBack, refusals.joined(separator: " ")) }
        return []
    }

    private mutating func flagChangeFailed(_ changeID: Int, _ error: MailServiceError) -> [Effect] {
        guard let index = pendingChanges.firstIndex(where: { $0.id == changeID }) else { return [] }
        let change = pendingChanges.remove(at: index)
        for id in change.emails { show(id) }
        let what = change.emails.count == 1 ? describe(change.emails[0]) : "\(change.emails.count) messages"
        notice = InboxNotice(
            .flagChangeRolledBack, "Could not \(Self.verb(change.kind, change.value)) \(what): \(error.message)")
        return []
    }

    private func describe(_ id: Email.ID) -> String {
        guard let subject = email(id)?.subject, !subject.isEmpty else { return "the message" }
        return "“\(subject)”"
    }

    /// Shows message `id` with its confirmed flags and its pending changes applied, in the inbox
    /// and in the results alike; forgets the confirmed flags once nothing is pending.
    private mutating func show(_ id: Email.ID) {
        guard var flags = confirmedFlags[id] else { return }
        var isPending = false
        for change in pendingChanges where change.emails.contains(id) {
            flags = Self.setting(flag(change.kind), change.value, in: flags)
            isPending = true
        }
        setFlags(flags, of: id)
        if !isPending { confirmedFlags[id] = nil }
    }

    private mutating func setFlags(_ flags: [Flag], of id: Email.ID) {
        let pinFlag = pinFlag
        resultsWindow.update(id) { $0.setFlags(flags, pinFlag: pinFlag) }
        inboxWindow.update(id) { $0.setFlags(flags, pinFlag: pinFlag) }
        if !flags.contains(pinFlag) {
            inboxWindow.unpinNotHeld(id)
        } else if let mailbox, id.mailbox == mailbox.name, id.uidValidity == mailbox.uidValidity {
            // Pinned from the results, or elsewhere: every pinned message of the inbox is in its
            // Pinned section, held or not.
            inboxWindow.pinNotHeld(id, row: resultsWindow.email(id))
        }
        markRead(id, flags.contains(.seen))
    }

    /// Counts inbox message `id` as read or unread (a message of another mailbox, found by a
    /// search, is not the inbox's).
    private mutating func markRead(_ id: Email.ID, _ isRead: Bool) {
        guard unreadUIDs != nil, let mailbox, id.mailbox == mailbox.name, id.uidValidity == mailbox.uidValidity
        else { return }
        if isRead { unreadUIDs?.remove(id.uid) } else { unreadUIDs?.insert(id.uid) }
    }

    private mutating func forgetUnread(_ id: Email.ID) {
        guard let mailbox, id.mailbox == mailbox.name, id.uidValidity == mailbox.uidValidity else { return }
        unreadUIDs?.remove(id.uid)
    }

    /// Freshly loaded messages as they show: pinned by this mailbox's pin flag; for one with a
    /// pending change, its loaded flags become the confirmed ones and the change shows on top.
    private mutating func adopting(_ emails: [Email]) -> [Email] {
        emails.map { email in
            var flags = email.flags
            var isPending = false
            for change in pendingChanges where change.emails.contains(email.id) {
                flags = Self.setting(flag(change.kind), change.value, in: flags)
                isPending = true
            }
            if isPending { confirmedFlags[email.id] = email.flags }
            return email.withFlags(flags, pinFlag: pinFlag)
        }
    }

    private static func setting(_ flag: Flag, _ present: Bool, in flags: [Flag]) -> [Flag] {
        let others = flags.filter { $0 != flag }
        return present ? others + [flag] : others
    }

    // MARK: - Live changes

    private var nextEventNumber: Int { eventLogStart + eventLog.count }

    private mutating func mailboxEvent(_ event: MailServiceEvent) -> [Effect] {
        switch event {
        case .arrived(let emails):
            eventLog.append(event)
            switch emailsListState {
            case .data, .empty:
                let fresh = emails.filter { !$0.flags.contains(.deleted) && inboxWindow.email($0.id) == nil }
                inboxWindow.arrive(fresh.map { $0.withFlags($0.flags, pinFlag: pinFlag) })
                for email in fresh { markRead(email.id, email.isRead) }
                emailsListState = inboxWindow.isEmpty ? .empty : .data
                countPeople(in: fresh)
            case .loading, .error:
                break
            }
            return []
        case .expunged(let ids):
            eventLog.append(event)
            let removed = Set(ids)
            inboxWindow.remove(removed)
            resultsWindow.remove(removed)
            for id in ids { forgetUnread(id) }
            if let list = resultsList { resultsRemoved.formUnion(removed.intersection(list.ids)) }
            inboxEmptinessChanged()
            if searchState == .results && resultsWindow.isEmpty { searchState = .empty }
            // The rows shown may now be on a page not held: ask for it.
            return windowChanged(.inbox) + (inboxViewState == .search ? windowChanged(.results) : [])
        case .flagsChanged(let id, let flags):
            eventLog.append(event)
            // The lists show what `list` shows: no message marked deleted, live.
            if flags.contains(.deleted) {
                inboxWindow.hide(id)
                resultsWindow.hide(id)
                forgetUnread(id)
                if searchState == .results && resultsWindow.isEmpty { searchState = .empty }
                inboxEmptinessChanged()
                return windowChanged(.inbox) + (inboxViewState == .search ? windowChanged(.results) : [])
            }
            let pinFlag = pinFlag
            let wasHidden = inboxWindow.isHidden(id) || resultsWindow.isHidden(id)
            inboxWindow.unhide(id) { $0.setFlags(flags, pinFlag: pinFlag) }
            resultsWindow.unhide(id) { $0.setFlags(flags, pinFlag: pinFlag) }
            if wasHidden {
                markRead(id, flags.contains(.seen))
                inboxEmptinessChanged()
            }
            if confirmedFlags[id] != nil {
                confirmedFlags[id] = flags
                show(id)
            } else {
                setFlags(flags, of: id)
            }
            return wasHidden ? windowChanged(.inbox) + (inboxViewState == .search ? windowChanged(.results) : []) : []
        case .reloadNeeded(let reason):
            notice = InboxNotice(.reloaded, "Reloading: \(reason).")
            return reload()
        case .connectionLost(let reason):
            // The first word of an outage is a notice; a later one (offline, retrying) replaces
            // it, or, once the person dismissed it, only the status.
            let wasReconnecting: Bool
            if case .reconnecting = connection { wasReconnecting = true } else { wasReconnecting = false }
            connection = .reconnecting(reason)
            if !wasReconnecting || notice?.kind == .connection { notice = InboxNotice(.connection, reason) }
            return []
        case .connectionRestored:
            switch connection {
            case .reconnecting, .failed: connection = .open
            case .closed, .opening, .open: break
            }
            if notice?.kind == .connection { notice = nil }
            return []
        case .failed(let error):
            connection = .failed(error.message)
            notice = InboxNotice(.connection, error.message)
            return []
        case .alert(let text):
            notice = InboxNotice(.alert, text)
            return []
        }
    }

    /// A shown inbox is `empty` or `data` as its window is, after a live change.
    private mutating func inboxEmptinessChanged() {
        switch emailsListState {
        case .data, .empty: emailsListState = inboxWindow.isEmpty ? .empty : .data
        case .loading, .error: break
        }
    }

    /// What was listed may no longer exist (a re-created mailbox): open again, list again, and
    /// run the shown search again.
    private mutating func reload() -> [Effect] {
        var effects: [Effect]
        switch connection {
        case .closed: return []
        case .opening: effects = []
        case .open, .reconnecting, .failed: effects = beginOpening()
        }
        switch searchState {
        case .results, .searching:
            if let text = searchedQuery {
                query = text
                effects += submit().filter { effect in
                    if case .recordHistory = effect { return false }
                    return true
                }
            }
        case .empty, .error:
            break
        }
        return effects
    }

    /// Brings an answer computed before the live changes since event `first` up to date;
    /// returns the messages expunged meanwhile.
    private func replay(since first: Int, onto emails: inout [Email], insertingArrivals: Bool) -> Set<Email.ID> {
        let start = max(0, first - eventLogStart)
        var expunged: Set<Email.ID> = []
        guard start < eventLog.count else { return expunged }
        for event in eventLog[start...] {
            switch event {
            case .arrived(let arrived):
                guard insertingArrivals else { continue }
                let known = Set(emails.map(\.id))
                let fresh = arrived.filter { !known.contains($0.id) && !$0.flags.contains(.deleted) }
                emails.insert(contentsOf: fresh.map { $0.withFlags($0.flags, pinFlag: pinFlag) }, at: 0)
            case .expunged(let ids):
                let removed = Set(ids)
                expunged.formUnion(removed)
                emails.removeAll { removed.contains($0.id) }
            case .flagsChanged(let id, let flags):
                if flags.contains(.deleted) {
                    emails.removeAll { $0.id == id }
                    continue
                }
                for index in emails.indices where emails[index].id == id {
                    emails[index].setFlags(flags, pinFlag: pinFlag)
                }
            case .reloadNeeded, .connectionLost, .connectionRestored, .failed, .alert:
                continue
            }
        }
        return expunged
    }

    /// Forgets live changes no request in flight can have missed.
    private mutating func trimEventLog() {
        let oldest = [listLoad, unreadLoad, inboxPageLoad, searchLoad, resultsPageLoad].compactMap { $0?.firstEvent }
            .min()
        let keepFrom = oldest ?? nextEventNumber
        let drop = min(eventLog.count, max(0, keepFrom - eventLogStart))
        if drop > 0 {
            eventLog.removeFirst(drop)
            eventLogStart += drop
        }
    }
}

/// A mailbox by name and UIDVALIDITY.
private struct MailboxKey: Hashable, Sendable {
    var name: String
    var uidValidity: UInt32

    init(_ id: Email.ID) {
        name = id.mailbox
        uidValidity = id.uidValidity
    }
}

/// A set of UIDs as sorted runs that neither overlap nor touch.
private struct UIDRuns: Hashable, Sendable {
    private var runs: [ClosedRange<UInt32>] = []

    /// Adds `uid`; false when it was in already.
    mutating func insert(_ uid: UInt32) -> Bool {
        // The first run that does not end before `uid`.
        var (low, high) = (0, runs.count)
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].upperBound < uid { low = middle + 1 } else { high = middle }
        }
        if low < runs.count && runs[low].contains(uid) { return false }
        let joinsBefore = low > 0 && runs[low - 1].upperBound + 1 == uid
        let joinsAfter = low < runs.count && uid + 1 == runs[low].lowerBound
        switch (joinsBefore, joinsAfter) {
        case (true, true):
            runs[low - 1] = runs[low - 1].lowerBound...runs[low].upperBound
            runs.remove(at: low)
        case (true, false): runs[low - 1] = runs[low - 1].lowerBound...uid
        case (false, true): runs[low] = uid...runs[low].upperBound
        case (false, false): runs.insert(uid...uid, at: low)
        }
        return true
    }
}
