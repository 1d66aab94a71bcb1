public import IMAPCore

/// What the inbox and search screen shows at one moment, as one value (docs/inbox-view-model.md
/// "What the views read"): ``InboxScreen`` produces it after every event, ``InboxViewModel``
/// publishes it, and every view (SwiftUI, the terminal UI) draws from it. It costs no copy of
/// rows: the lists are ``MailListWindow`` values of a few pages, shared with the screen.
public struct InboxScreenState: Hashable, Sendable {
    /// Which screen shows: the inbox or search.
    public var inboxViewState: InboxViewState = .emails
    /// What the inbox list shows.
    public var emailsListState: EmailsListState = .loading
    /// What search mode shows.
    public var searchState: SearchViewState = .empty
    /// The connection behind the screen, for a status line.
    public var connection: InboxConnectionState = .closed
    /// The open mailbox, once opened.
    public var mailbox: MailboxDescription?
    /// The inbox as a window over its listing: the held rows (the Pinned section first) and
    /// how many there are in all.
    public var inboxWindow: MailListWindow
    /// The results of the submitted search as a window over its matches (no Pinned section).
    public var resultsWindow: MailListWindow
    /// How many messages of the mailbox are unread: all of them, not only the rows held; nil
    /// when the service did not say.
    public var unreadCount: Int?
    /// The rows of ``inboxWindow`` the view last said it shows.
    public var inboxShown: Range<Int>
    /// The rows of ``resultsWindow`` the view last said it shows.
    public var resultsShown: Range<Int>
    /// How many messages matched the submitted search (less those expunged since).
    public var searchResultsTotal = 0
    /// The text of the search field.
    public var query = ""
    /// The submitted query (normalized) whose results show, are awaited or failed; nil before a
    /// submit. With ``searchState`` `.empty` it means "no results for this query".
    public var searchedQuery: String?
    /// Suggestions for ``query``: recent searches, operators, then people after `from:`/`to:`.
    public var suggestions: [Suggestion] = []
    /// Recent searches of this account, newest first.
    public var recentSearches: [String] = []
    /// While the query is typed: the newest matches the service found without the server (its
    /// local index) for ``typeAheadQuery``; empty when it has none. Submitting asks the server.
    public var typeAheadResults: [Email] = []
    /// The text (normalized) ``typeAheadResults`` answer; nil when none show.
    public var typeAheadQuery: String?
    /// What the screen should tell the person; nil when there is nothing to say.
    public var notice: InboxNotice?
    /// Whether a further inbox page is loading.
    public var isLoadingMore = false
    /// Whether a further results page is loading.
    public var isLoadingMoreResults = false

    /// A screen not started yet, with pages of `pageSize` messages.
    public init(pageSize: Int = 50) {
        let size = max(1, pageSize)
        inboxWindow = MailListWindow(pageSize: size, pinnedSection: true)
        resultsWindow = MailListWindow(pageSize: size, pinnedSection: false)
        inboxShown = 0..<size
        resultsShown = 0..<size
    }

    /// The "Pinned" section's rows that are held (those near what the view shows), newest
    /// first; built on each read (views read ``inboxWindow``).
    public var pinnedEmails: [Email] { inboxWindow.pinnedEmails }
    /// The other inbox messages held, newest first (built on each read).
    public var unpinnedEmails: [Email] { inboxWindow.otherEmails }
    /// The held inbox messages in the server's order, pinned or not (built on each read).
    public var inbox: [Email] { inboxWindow.residentEmails }
    /// The held results, newest first (built on each read).
    public var searchResults: [Email] { resultsWindow.residentEmails }
    /// Whether the inbox has a page after the last one held.
    public var canLoadMore: Bool { inboxWindow.hasPageAfterHeld }
    /// Whether the results have a page after the last one held.
    public var canLoadMoreResults: Bool { resultsWindow.hasPageAfterHeld }
    /// The flag that pins in the open mailbox.
    public var pinFlag: Flag { mailbox?.pinFlag ?? .flagged }
    /// The mailbox's name for titles (INBOX before it is open).
    public var mailboxName: String { mailbox?.name ?? "INBOX" }

    /// The held message `id`, from the inbox or else the results: a look through the held rows,
    /// which are a few pages whatever was scrolled.
    public func email(_ id: Email.ID) -> Email? {
        inboxWindow.email(id) ?? resultsWindow.email(id)
    }
}
