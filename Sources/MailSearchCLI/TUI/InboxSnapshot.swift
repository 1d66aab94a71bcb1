package import MailSearch

/// The ``InboxViewModel``'s state at one moment, as a value: what the terminal screen is drawn
/// from. Taking it reads every observable property of the model, so taking it inside
/// `withObservationTracking` registers for any change the screen shows.
package struct InboxSnapshot: Hashable, Sendable {
    package var inboxViewState: InboxViewState = .emails
    package var emailsListState: EmailsListState = .loading
    package var searchState: SearchViewState = .empty
    package var connection: InboxConnectionState = .closed
    package var mailbox: MailboxDescription?
    package var pinnedEmails: [Email] = [] {
        didSet { joinInbox() }
    }
    package var unpinnedEmails: [Email] = [] {
        didSet { joinInbox() }
    }
    package var searchResults: [Email] = []
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
        joinInbox()
    }

    /// The inbox as listed: the Pinned section, then the rest, each newest first. Joined once
    /// when the sections change, not on every read: a key press reads it several times, and a
    /// list scrolled to its end holds the whole mailbox.
    package private(set) var inboxEmails: [Email] = []
    /// How many of ``inboxEmails`` are unread.
    package private(set) var inboxUnreadCount = 0

    private mutating func joinInbox() {
        inboxEmails = pinnedEmails + unpinnedEmails
        inboxUnreadCount = inboxEmails.reduce(0) { $0 + ($1.isRead ? 0 : 1) }
    }

    /// The loaded message `id`, from the inbox or else the results.
    package func email(_ id: Email.ID) -> Email? {
        inboxEmails.first { $0.id == id } ?? searchResults.first { $0.id == id }
    }

    /// The mailbox's name for titles (INBOX before it is open).
    package var mailboxName: String { mailbox?.name ?? "INBOX" }
}
