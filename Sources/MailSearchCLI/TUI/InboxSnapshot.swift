import MailSearch

/// The ``InboxViewModel``'s state at one moment, as a value: what the terminal screen is drawn
/// from. Taking it reads every observable property of the model, so taking it inside
/// `withObservationTracking` registers for any change the screen shows.
struct InboxSnapshot: Hashable, Sendable {
    var inboxViewState: InboxViewState = .emails
    var emailsListState: EmailsListState = .loading
    var searchState: SearchViewState = .empty
    var connection: InboxConnectionState = .closed
    var mailbox: MailboxDescription?
    var pinnedEmails: [Email] = []
    var unpinnedEmails: [Email] = []
    var searchResults: [Email] = []
    var searchResultsTotal = 0
    var query = ""
    var searchedQuery: String?
    var suggestions: [Suggestion] = []
    var recentSearches: [String] = []
    var notice: InboxNotice?
    var canLoadMore = false
    var canLoadMoreResults = false
    var isLoadingMore = false
    var isLoadingMoreResults = false

    /// An empty snapshot (a model not started yet): tests fill in what they need.
    init() {}

    /// The model's state now.
    @MainActor init(_ model: InboxViewModel) {
        inboxViewState = model.inboxViewState
        emailsListState = model.emailsListState
        searchState = model.searchState
        connection = model.connection
        mailbox = model.mailbox
        pinnedEmails = model.pinnedEmails
        unpinnedEmails = model.unpinnedEmails
        searchResults = model.searchResults
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

    /// The inbox as listed: the Pinned section, then the rest, each newest first.
    var inboxEmails: [Email] { pinnedEmails + unpinnedEmails }

    /// The loaded message `id`, from the inbox or else the results.
    func email(_ id: Email.ID) -> Email? {
        inboxEmails.first { $0.id == id } ?? searchResults.first { $0.id == id }
    }

    /// The mailbox's name for titles (INBOX before it is open).
    var mailboxName: String { mailbox?.name ?? "INBOX" }
}
