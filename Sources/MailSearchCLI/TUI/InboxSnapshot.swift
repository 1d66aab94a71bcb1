package import MailSearch

/// The ``InboxViewModel``'s state at one moment, as a value: what the terminal screen is drawn
/// from. Taking it reads every observable property of the model, so taking it inside
/// `withObservationTracking` registers for any change the screen shows. It costs no copy of
/// rows: the lists are ``MailListWindow`` values, a few pages each, shared with the model.
package struct InboxSnapshot: Hashable, Sendable {
    package var inboxViewState: InboxViewState = .emails
    package var emailsListState: EmailsListState = .loading
    package var searchState: SearchViewState = .empty
    package var connection: InboxConnectionState = .closed
    package var mailbox: MailboxDescription?
    /// The inbox: its held rows, and its numbering of those not held.
    package var inboxWindow = MailListWindow(pageSize: 50, pinnedSection: true)
    /// The search's results, likewise.
    package var resultsWindow = MailListWindow(pageSize: 50, pinnedSection: false)
    /// How many messages of the mailbox are unread, when the listing said.
    package var unreadCount: Int?
    /// The rows of the inbox the model was last told are shown.
    package var inboxShown: Range<Int> = 0..<50
    /// The rows of the results the model was last told are shown.
    package var resultsShown: Range<Int> = 0..<50
    package var searchResultsTotal = 0
    package var query = ""
    package var searchedQuery: String?
    package var suggestions: [Suggestion] = []
    package var recentSearches: [String] = []
    package var notice: InboxNotice?
    package var canLoadMore = false
    package var canLoadMoreResults = false
    package var isLoadingMore = false
    package var isLoadingMoreResults = false

    /// An empty snapshot (a model not started yet): tests fill in what they need.
    package init() {}

    /// The model's state now.
    @MainActor package init(_ model: InboxViewModel) {
        inboxViewState = model.inboxViewState
        emailsListState = model.emailsListState
        searchState = model.searchState
        connection = model.connection
        mailbox = model.mailbox
        inboxWindow = model.inboxWindow
        resultsWindow = model.resultsWindow
        unreadCount = model.unreadCount
        inboxShown = model.inboxShown
        resultsShown = model.resultsShown
        searchResultsTotal = model.searchResultsTotal
        query = model.query
        searchedQuery = model.searchedQuery
        suggestions = model.suggestions
        recentSearches = model.recentSearches
        notice = model.notice
        canLoadMore = model.canLoadMore
        canLoadMoreResults = model.canLoadMoreResults
        isLoadingMore = model.isLoadingMore
        isLoadingMoreResults = model.isLoadingMoreResults
    }

    /// The pinned messages held (tests; views read ``inboxWindow``).
    package var pinnedEmails: [Email] { inboxWindow.pinnedEmails }
    /// The other inbox messages held.
    package var unpinnedEmails: [Email] { inboxWindow.otherEmails }
    /// The results held.
    package var searchResults: [Email] { resultsWindow.residentEmails }

    /// The held message `id`, from the inbox or else the results: a look through the held rows,
    /// which are a few pages whatever was scrolled.
    package func email(_ id: Email.ID) -> Email? {
        inboxWindow.email(id) ?? resultsWindow.email(id)
    }

    /// The mailbox's name for titles (INBOX before it is open).
    package var mailboxName: String { mailbox?.name ?? "INBOX" }
}
