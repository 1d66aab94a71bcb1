/// Which of the two screens shows: the inbox, or search (entered when the search field gains
/// focus, docs/inbox-view-model.md "States").
public enum InboxViewState: Hashable, Sendable {
    /// The inbox list (pinned section first, then the rest newest first).
    case emails
    /// Search mode: recent searches and suggestions, a search in flight, or its results.
    case search
}

/// What the inbox list shows.
public enum EmailsListState: Hashable, Sendable {
    /// At least one message.
    case data
    /// The mailbox is being opened or listed ("Checking for Mail...").
    case loading
    /// The mailbox is empty.
    case empty
    /// Opening or listing failed; the message says why. `refresh()` retries.
    case error(String)
}

/// What search mode shows.
public enum SearchViewState: Hashable, Sendable {
    /// At least one message matched the submitted query.
    case results
    /// The submitted query is running on the server.
    case searching
    /// Nothing to list: before a submit, recent searches and suggestions; after a search that
    /// matched nothing (``InboxViewModel/searchedQuery`` is set), "no results".
    case empty
    /// The query does not parse (the message names the column) or the search failed.
    case error(String)
}

/// The state of the connection behind the screen, for a status line.
public enum InboxConnectionState: Hashable, Sendable {
    /// Not started, or stopped.
    case closed
    /// The mailbox is being opened.
    case opening
    /// The mailbox is open and its changes are being followed.
    case open
    /// The connection broke and the service is re-establishing it; the reason says what broke.
    case reconnecting(String)
    /// The connection could not be (re-)established; `refresh()` tries again.
    case failed(String)
}

/// Something the screen should tell the person once: a flag change that was rolled back, a pin
/// keyword that fell back to `\Flagged`, a lost connection, a history file that was replaced.
public struct InboxNotice: Hashable, Sendable, CustomStringConvertible {
    /// What the notice is about; new kinds can be added without breaking callers.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The kind's name.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The name.
        public var description: String { name }

        /// A read or pin change was refused or failed and has been undone.
        public static let flagChangeRolledBack = Kind("flagChangeRolledBack")
        /// The configured pin keyword cannot be stored in this mailbox; `\Flagged` pins instead.
        public static let pinKeywordFallback = Kind("pinKeywordFallback")
        /// The connection was lost, is back, or could not be restored.
        public static let connection = Kind("connection")
        /// The mailbox changed under the screen (re-created, or too many changes) and is reloaded.
        public static let reloaded = Kind("reloaded")
        /// A further page could not be loaded.
        public static let loadFailed = Kind("loadFailed")
        /// The query parsed but may not mean what was meant (`did you mean OR?`), or the search
        /// has a warning.
        public static let searchHint = Kind("searchHint")
        /// The search history could not be read (and was replaced) or could not be saved.
        public static let history = Kind("history")
        /// A message from the server for the person (`[ALERT]`).
        public static let alert = Kind("alert")
    }

    /// What the notice is about.
    public var kind: Kind
    /// One sentence for a person.
    public var message: String

    /// A notice.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The same as `message`.
    public var description: String { message }
}
