public import FoundationEssentials
public import Observation
import Synchronization

/// The inbox and search screen (docs/inbox-view-model.md), observable and UI-toolkit free: a
/// SwiftUI view on Apple platforms binds to it unchanged, and the terminal UI reads the same
/// properties.
///
/// Every transition is the pure ``InboxScreen`` state machine's; this class is its driver. It
/// performs the machine's effects against a ``MailService`` (opening, listing, searching,
/// paging, flag changes), listens to the service's events while the screen is open, keeps the
/// search history, and publishes what the screen shows as one value, ``state``
/// (``InboxScreenState``). The accessors (``emailsListState``, ``pinnedEmails``, ...) read that
/// value, each observed for its own part: an observer is woken only when what it read changed.
///
/// The lists are windows (``MailListWindow``): a view says which rows it shows (``show(_:)``,
/// ``showResults(_:)``), their pages are fetched by offset into the listing, and pages more
/// than one away from them are dropped, so scrolling 100,000 messages holds a few pages (at
/// most six of 50 for the terminal UI at 80x24, and the pinned rows near the view), and the
/// unread count (``unreadCount``) is the mailbox's, not the held rows'.
///
/// ```swift
/// struct InboxView: View {
///     @Bindable var model: InboxViewModel
///     @Environment(\.isSearching) private var isSearching
///     var body: some View {
///         List { ForEach(model.pinnedEmails) { ... }; ForEach(model.unpinnedEmails) { ... } }
///             // or, over the whole mailbox: ForEach(0..<model.inboxWindow.count) { row in
///             //     Row(model.inboxWindow[row]).onAppear { model.show(row - 50..<row + 50) } }
///             .searchable(text: $model.searchText) {
///                 ForEach(model.suggestions, id: \.text) { Text($0.text).searchCompletion($0.text) }
///             }
///             .onSubmit(of: .search) { model.submit() }
///             .onChange(of: isSearching) { model.setSearching($1) }
///             .task { model.start() }
///             .refreshable { model.refresh(); await model.settle() }
///     }
/// }
/// ```
@MainActor
public final class InboxViewModel: Observable {
    /// Where the search history is kept.
    public enum HistoryStorage: Sendable {
        /// In `history.json` in `directory` (``SearchHistory``), under `account`: persisted
        /// atomically with mode 0600, a corrupt file replaced with a notice.
        case file(account: String, directory: URL = SearchHistory.defaultDirectory())
        /// In memory only, starting with `entries` (newest first): previews and demos.
        case memory([String])
    }

    // MARK: - State, read-only

    /// What the screen shows, as one value: what a view draws from. Reading it registers for
    /// any change to the screen; each accessor below registers for its own part only.
    public var state: InboxScreenState { self[\.self] }
    /// Which screen shows: the inbox or search.
    public var inboxViewState: InboxViewState { self[\.inboxViewState] }
    /// What the inbox list shows.
    public var emailsListState: EmailsListState { self[\.emailsListState] }
    /// What search mode shows.
    public var searchState: SearchViewState { self[\.searchState] }
    /// The connection behind the screen, for a status line.
    public var connection: InboxConnectionState { self[\.connection] }
    /// The open mailbox, once opened.
    public var mailbox: MailboxDescription? { self[\.mailbox] }
    /// The "Pinned" section's rows that are held (those near what the view shows), newest
    /// first; the whole section, numbered, is ``inboxWindow``'s.
    public var pinnedEmails: [Email] { self[\.inboxWindow].pinnedEmails }
    /// The other messages held, newest first: those of the pages around what the view shows
    /// (``show(_:)``), not the whole mailbox.
    public var unpinnedEmails: [Email] { self[\.inboxWindow].otherEmails }
    /// The inbox as a window over its listing: the held rows and how many there are in all, for
    /// a view that scrolls the whole mailbox (and says what it shows with ``show(_:)``).
    public var inboxWindow: MailListWindow { self[\.inboxWindow] }
    /// How many messages of the mailbox are unread: all of them, not only the rows held (from
    /// the listing, kept up to date by every change); nil when the service did not say.
    public var unreadCount: Int? { self[\.unreadCount] }
    /// The rows of ``inboxWindow`` the view last said it shows (``show(_:)``).
    public var inboxShown: Range<Int> { self[\.inboxShown] }
    /// The rows of ``resultsWindow`` the view last said it shows (``showResults(_:)``).
    public var resultsShown: Range<Int> { self[\.resultsShown] }
    /// The held results of the submitted search, newest first.
    public var searchResults: [Email] { self[\.resultsWindow].residentEmails }
    /// The results as a window over the search's matches (``showResults(_:)``).
    public var resultsWindow: MailListWindow { self[\.resultsWindow] }
    /// How many messages matched the submitted search (less those expunged since).
    public var searchResultsTotal: Int { self[\.searchResultsTotal] }
    /// The text of the search field.
    public var query: String { self[\.query] }
    /// The submitted query (normalized) whose results show, are awaited or failed; nil before a
    /// submit. With ``searchState`` `.empty` it means "no results for this query".
    public var searchedQuery: String? { self[\.searchedQuery] }
    /// Suggestions for ``query``: recent searches, operators, then people after `from:`/`to:`.
    public var suggestions: [Suggestion] { self[\.suggestions] }
    /// Recent searches of this account, newest first.
    public var recentSearches: [String] { self[\.recentSearches] }
    /// While the query is typed: the newest matches the service found without the server (its
    /// local index), for ``typeAheadQuery``; empty when it has no local answer. Submitting asks
    /// the server, whose page becomes ``searchResults``.
    public var typeAheadResults: [Email] { self[\.typeAheadResults] }
    /// The text (normalized) ``typeAheadResults`` answer; nil when none show.
    public var typeAheadQuery: String? { self[\.typeAheadQuery] }
    /// What the screen should tell the person: a change rolled back and why, a pin keyword
    /// that fell back to `\Flagged`, a lost connection; nil when there is nothing to say.
    public var notice: InboxNotice? { self[\.notice] }
    /// Whether the inbox has a further page (``loadMore()``).
    public var canLoadMore: Bool { self[\.canLoadMore] }
    /// Whether the results have a further page (``loadMoreResults()``).
    public var canLoadMoreResults: Bool { self[\.canLoadMoreResults] }
    /// Whether a further inbox page is loading.
    public var isLoadingMore: Bool { self[\.isLoadingMore] }
    /// Whether a further results page is loading.
    public var isLoadingMoreResults: Bool { self[\.isLoadingMoreResults] }

    /// The search field's binding (`.searchable(text: $model.searchText)`): reads ``query``;
    /// writing it is ``updateQuery(_:)``.
    public var searchText: String {
        get { query }
        set { updateQuery(newValue) }
    }

    /// Whether search mode shows; writing it is ``setSearching(_:)``.
    public var isSearching: Bool {
        get { inboxViewState == .search }
        set { setSearching(newValue) }
    }

    /// The label of the read action on `email`: "Unread" when it is read, else "Read".
    public func readActionTitle(for email: Email) -> String { InboxScreen.readActionTitle(for: email) }

    /// The label of the pin action on `email`: "Unpin" when it is pinned, else "Pin".
    public func pinActionTitle(for email: Email) -> String { InboxScreen.pinActionTitle(for: email) }

    // MARK: - Observation, by part

    /// A part of ``state`` some observer read: how to tell it changed, and its key path on
    /// this model (the stored state's, extended by the part's), for the registrar.
    private struct ObservedPart {
        var changed: (InboxScreenState, InboxScreenState) -> Bool
        var willSet: (InboxViewModel) -> Void
        var didSet: (InboxViewModel) -> Void
    }

    private let registrar = ObservationRegistrar()
    /// What the screen shows, published by ``publish()``; read through the parts.
    private var published: InboxScreenState
    /// The parts read so far, by their key path into ``InboxScreenState``.
    private var observedParts: [AnyKeyPath: ObservedPart] = [:]

    /// Part `part` of the published state, registering its reader for changes to that part
    /// only: typing wakes the observers of the query, not those of the lists.
    private subscript<Value: Equatable>(part: KeyPath<InboxScreenState, Value>) -> Value {
        let path = (\InboxViewModel.published).appending(path: part)
        if observedParts[part] == nil {
            observedParts[part] = ObservedPart(
                changed: { $0[keyPath: part] != $1[keyPath: part] },
                willSet: { $0.registrar.willSet($0, keyPath: path) },
                didSet: { $0.registrar.didSet($0, keyPath: path) })
        }
        registrar.access(self, keyPath: path)
        return published[keyPath: part]
    }

    // MARK: - The driver's own state

    private enum JobKey: Hashable {
        case open, listen, list, unread, inboxPage, close, history, script, typeAhead
        case search(Int)
        case resultsPage(Int)
        case flagChange(Int)
    }

    private struct Job {
        var key: JobKey
        var task: Task<Void, Never>
    }

    private var screen: InboxScreen
    private let service: any MailService
    private let history: HistoryStore
    /// Every task started and not yet finished, by number.
    private var running: [Int: Job] = [:]
    /// The newest task of each kind, by number, for cancelling.
    private var current: [JobKey: Int] = [:]
    private var nextJob = 0

    /// The listener's task, also reachable from `deinit` (which is not on the main actor), so a
    /// model dropped without `stop()` does not leave it waiting on the service's events.
    private let listener = Mutex<Task<Void, Never>?>(nil)

    /// A screen over `service`, keeping the search history in `history`, listing `pageSize`
    /// messages a page. Nothing happens until ``start()``.
    public init(service: any MailService, history: HistoryStorage, pageSize: Int = 50) {
        self.service = service
        self.history = HistoryStore(history)
        self.screen = InboxScreen(pageSize: pageSize)
        published = screen.view
    }

    deinit {
        listener.withLock { $0?.cancel() }
    }

    // MARK: - Actions

    /// The screen appears: opens the mailbox, lists its newest page, and follows its changes.
    public func start() { send(.start) }

    /// Lists the mailbox again (pull to refresh, Retry); opens it again when that failed.
    public func refresh() { send(.refresh) }

    /// The screen goes away: stops following the mailbox, cancels the listing and searches in
    /// flight, and closes the service once the flag changes in flight are answered.
    public func stop() { send(.stop) }

    /// The search field gained (`true`) or lost focus. Leaving search mode returns to the inbox,
    /// which kept its contents, and forgets the search.
    public func setSearching(_ isSearching: Bool) { send(.searchingChanged(isSearching)) }

    /// The search field's text changed: suggestions follow, and type-ahead asks the service for
    /// its local matches (``typeAheadResults``); nothing is sent to the server.
    public func updateQuery(_ text: String) { send(.queryChanged(text)) }

    /// Searches for ``query`` on the server: a query that does not parse shows `.error` naming
    /// the column; the empty query does nothing. A newer submit cancels this one.
    public func submit() { send(.submit) }

    /// A suggestion was chosen: it fills the field and is submitted.
    public func chooseSuggestion(_ text: String) { send(.suggestionChosen(text)) }

    /// A suggestion was chosen: its text fills the field and is submitted.
    public func chooseSuggestion(_ suggestion: Suggestion) { chooseSuggestion(suggestion.text) }

    /// Loads the inbox's next page, if there is one and none is loading.
    public func loadMore() { send(.loadMore(.inbox)) }

    /// Loads the results' next page, if there is one and none is loading.
    public func loadMoreResults() { send(.loadMore(.results)) }

    /// The view shows (or is about to show) these rows of ``inboxWindow`` (pinned first): their
    /// pages load, one at a time, and pages far from them are dropped, so what is held stays a
    /// few pages however far the list is scrolled.
    public func show(_ rows: Range<Int>) { send(.show(.inbox, rows: rows)) }

    /// The view shows these rows of ``resultsWindow``.
    public func showResults(_ rows: Range<Int>) { send(.show(.results, rows: rows)) }

    /// Marks the message read or unread, whichever it is not: at once on screen, then on the
    /// server; undone with a ``notice`` if the server refuses or the call fails.
    public func toggleRead(_ id: Email.ID) { send(.toggleRead(id)) }

    /// Pins or unpins the message, whichever it is not (it moves between the sections at
    /// once); undone with a ``notice`` if the server refuses or the call fails.
    public func togglePin(_ id: Email.ID) { send(.togglePin(id)) }

    /// Clears the ``notice``.
    public func dismissNotice() { send(.dismissNotice) }

    /// Waits until every task this model started has finished, the ones those started
    /// included: opening, listing, searches, pages, flag changes, history, closing. The
    /// listener of the mailbox's events is not waited for. A call the service holds makes this
    /// wait as long.
    public func settle() async {
        while true {
            let tasks = running.values.filter { $0.key != .listen }.map(\.task)
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
        }
    }

    // MARK: - Driving the machine

    private func send(_ event: InboxScreen.Event) {
        let effects = screen.handle(event)
        publish()
        for effect in effects { perform(effect) }
    }

    /// Publishes what the screen shows now, waking the observers of the parts that changed
    /// only (the Observation macro of Swift 6.2 and later skips equal values itself; this keeps
    /// it true, part by part, whatever the macro does).
    private func publish() {
        let new = screen.view
        let changed = observedParts.values.filter { $0.changed(published, new) }
        for part in changed { part.willSet(self) }
        published = new
        for part in changed { part.didSet(self) }
    }

    private func perform(_ effect: InboxScreen.Effect) {
        let service = service
        switch effect {
        case .loadHistory:
            recordInHistory { history in await history.load() }
        case .recordHistory(let text):
            recordInHistory { history in await history.record(text) }
        case .open:
            let closing = current[.close].flatMap { running[$0]?.task }
            run(.open) {
                await closing?.value
                do throws(MailServiceError) {
                    let description = try await service.open()
                    self.send(.opened(description))
                } catch {
                    self.send(.openFailed(error))
                }
            }
        case .listen:
            let events = service.events()
            let task = run(.listen) { [weak self] in
                for await event in events {
                    guard let self else { return }
                    self.send(.mailbox(event))
                }
                self?.send(.eventsEnded)
            }
            listener.withLock { $0 = task }
        case .stopListening:
            cancel(.listen)
        case .loadList(let generation, let pageSize):
            run(.list) {
                do throws(MailServiceError) {
                    let page = try await service.list(pageSize: pageSize) { guess in
                        await self.send(.listGuessed(generation: generation, guess))
                    }
                    self.send(.listLoaded(generation: generation, page))
                } catch {
                    self.send(.listFailed(generation: generation, error))
                }
            }
        case .countUnread(let generation):
            run(.unread) {
                let uids: [UInt32]?
                do throws(MailServiceError) { uids = try await service.unreadUIDs() } catch { uids = nil }
                self.send(.unreadCounted(generation: generation, uids))
            }
        case .search(let generation, let query, let pageSize):
            run(.search(generation)) {
                do throws(MailServiceError) {
                    let page = try await service.search(query, pageSize: pageSize)
                    self.send(.searchCompleted(generation: generation, page))
                } catch {
                    self.send(.searchFailed(generation: generation, error))
                }
            }
        case .typeAhead(let generation, let query, let limit):
            run(.typeAhead) {
                let emails = await service.localMatches(query, limit: limit)
                guard !Task.isCancelled else { return }
                self.send(.typeAheadAnswered(generation: generation, emails))
            }
        case .cancelTypeAhead:
            cancel(.typeAhead)
        case .cancelSearch(let generation):
            cancel(.search(generation))
            cancel(.resultsPage(generation))
        case .loadPage(let target, let generation, let list, let offset, let pageSize):
            let key: JobKey
            switch target {
            case .inbox: key = .inboxPage
            case .results: key = .resultsPage(generation)
            }
            run(key) {
                do throws(MailServiceError) {
                    let page = try await service.page(of: list, offset: offset, pageSize: pageSize)
                    self.send(.pageLoaded(target, generation: generation, page))
                } catch {
                    self.send(.pageFailed(target, generation: generation, error))
                }
            }
        case .setRead(let ids, let isRead, let change):
            run(.flagChange(change)) {
                do throws(MailServiceError) {
                    let result = try await service.setRead(isRead, for: ids)
                    self.send(.flagChangeCompleted(change, result))
                } catch {
                    self.send(.flagChangeFailed(change, error))
                }
            }
        case .setPinned(let ids, let isPinned, let change):
            run(.flagChange(change)) {
                do throws(MailServiceError) {
                    let result = try await service.setPinned(isPinned, for: ids)
                    self.send(.flagChangeCompleted(change, result))
                } catch {
                    self.send(.flagChangeFailed(change, error))
                }
            }
        case .close:
            cancel(.open)
            cancel(.list)
            cancel(.unread)
            cancel(.inboxPage)
            // A flag change in flight is let finish: its outcome is the server's, and the
            // screen rolls it back if it fails.
            let changes = running.values.filter { job in
                if case .flagChange = job.key { return true }
                return false
            }
            .map(\.task)
            run(.close) {
                for change in changes { await change.value }
                await service.close()
            }
        }
    }

    /// Runs history work after the history work before it, so entries arrive in order.
    private func recordInHistory(_ work: @escaping @Sendable (HistoryStore) async -> InboxScreen.Event) {
        let previous = current[.history].flatMap { running[$0]?.task }
        let history = history
        run(.history, replacing: false) {
            await previous?.value
            self.send(await work(history))
        }
    }

    /// Starts `work` as the newest task of its kind, cancelling the one before unless told not to.
    @discardableResult
    private func run(
        _ key: JobKey, replacing: Bool = true, _ work: @escaping @MainActor () async -> Void
    ) -> Task<Void, Never> {
        if replacing { cancel(key) }
        nextJob += 1
        let number = nextJob
        let task = Task { [weak self] in
            await work()
            self?.finished(number)
        }
        running[number] = Job(key: key, task: task)
        current[key] = number
        return task
    }

    private func cancel(_ key: JobKey) {
        guard let number = current[key] else { return }
        running[number]?.task.cancel()
    }

    private func finished(_ number: Int) {
        guard let job = running.removeValue(forKey: number) else { return }
        if current[job.key] == number { current[job.key] = nil }
    }
}
