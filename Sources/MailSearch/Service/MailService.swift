public import IMAPCore

/// Where the product gets its mail: open a mailbox, list it newest first in pages, search it,
/// change read and pinned, and hear what changes on the server.
///
/// ``IMAPMailService`` talks to a server over a long-lived `MailboxConnection`;
/// ``InMemoryMailService`` holds messages in memory for previews and tests, and can be told to
/// be slow, to fail or to refuse a flag change. The view model sees only this protocol, so a
/// local index (synchronised beneath an implementation) can answer later without changing it.
///
/// ```swift
/// let service = IMAPMailService(configuration: configuration, credentials: credentials)
/// let mailbox = try await service.open()
/// let inbox = try await service.list(pageSize: 50)                     // newest first
/// let found = try await service.search("from:albus has:attachment")       // or a parsed Query
/// try await service.setPinned(true, for: [found.emails[0].id])
/// ```
public protocol MailService: AnyObject, Sendable {
    /// Connects when needed and opens the mailbox; what the mailbox looks like now.
    func open() async throws(MailServiceError) -> MailboxDescription

    /// The first page of the mailbox, newest first (messages marked deleted left out).
    func list(pageSize: Int) async throws(MailServiceError) -> EmailPage

    /// The first page, as `list(pageSize:)`, handing `provisional` a guess of it first when the
    /// service can make one much sooner than the listing (the default makes none). The guess's
    /// list holds only its own messages: page further from the returned page's list.
    func list(
        pageSize: Int, provisional: @escaping @Sendable (EmailPage) async -> Void
    ) async throws(MailServiceError) -> EmailPage

    /// The first page of the messages matching `query`, newest first, with the total.
    func search(_ query: Query, pageSize: Int) async throws(MailServiceError) -> EmailPage

    /// The page of `list` starting at `offset` (a later page of a listing or search).
    func page(of list: MessageList, offset: Int, pageSize: Int) async throws(MailServiceError) -> EmailPage

    /// Marks `emails` read (`\Seen` set) or unread (cleared). Reports what the server refused.
    func setRead(_ isRead: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult

    /// Pins (the pin flag set) or unpins `emails`. Reports what the server refused.
    func setPinned(_ isPinned: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult

    /// The UIDs of the open mailbox's unread messages (not marked deleted), in no particular
    /// order: what a view counts as unread without holding every row. Nil when the service
    /// cannot say (the default).
    func unreadUIDs() async throws(MailServiceError) -> [UInt32]?

    /// The newest `limit` messages matching `query` found without asking the server (a local
    /// index), newest first, for results while a query is typed; nil when the service has no
    /// such answer (no index, or a query only the server can decide exactly), the default.
    func localMatches(_ query: Query, limit: Int) async -> [Email]?

    /// What happens in the open mailbox: arrivals, expunges, flags changed elsewhere, a re-created
    /// mailbox, connection trouble. Each call returns a new stream; it ends when the service closes.
    func events() -> AsyncStream<MailServiceEvent>

    /// Ends the connection; later calls open it again.
    func close() async
}

extension MailService {
    /// The first page of the messages matching the query `text` (the query language of
    /// docs/query-language.md), newest first. One error type for both failures: text that does
    /// not parse is `.query` (with ``MailServiceError/queryError`` saying where), and the
    /// service's own are as ``search(_:pageSize:)`` throws them.
    public func search(_ text: String, pageSize: Int = 50) async throws(MailServiceError) -> EmailPage {
        let parsed: ParsedQuery
        do throws(QueryError) {
            parsed = try QueryParser.parse(text)
        } catch {
            throw MailServiceError(error)
        }
        return try await search(parsed.query, pageSize: pageSize)
    }

    /// No local answers: type-ahead shows nothing, and submitting asks the server.
    public func localMatches(_ query: Query, limit: Int) async -> [Email]? { nil }

    /// The service cannot say which messages are unread.
    public func unreadUIDs() async throws(MailServiceError) -> [UInt32]? { nil }

    /// No guess: the listing's first page only.
    public func list(
        pageSize: Int, provisional: @escaping @Sendable (EmailPage) async -> Void
    ) async throws(MailServiceError) -> EmailPage {
        try await list(pageSize: pageSize)
    }

    /// How many messages a page holds unless the caller says otherwise.
    public static var defaultPageSize: Int { 50 }

    /// The first page of the mailbox, newest first, ``defaultPageSize`` messages.
    public func list() async throws(MailServiceError) -> EmailPage { try await list(pageSize: Self.defaultPageSize) }

    /// The first page of the messages matching `query`, ``defaultPageSize`` messages.
    public func search(_ query: Query) async throws(MailServiceError) -> EmailPage {
        try await search(query, pageSize: Self.defaultPageSize)
    }
}

/// The open mailbox: its name, identity and the flag that pins in it.
public struct MailboxDescription: Hashable, Sendable {
    /// The mailbox's name.
    public var name: String
    /// Its UIDVALIDITY.
    public var uidValidity: UInt32
    /// How many messages it holds (all of them, deleted ones included).
    public var messageCount: Int
    /// The flag pins are stored with here.
    public var pinFlag: Flag
    /// Set when the configured pin keyword cannot be stored here and `\Flagged` is used instead.
    public var pinWarning: FlagPolicyWarning?
    /// Whether the mailbox is read-only (flag changes will be refused).
    public var isReadOnly: Bool

    /// A description.
    public init(
        name: String, uidValidity: UInt32, messageCount: Int, pinFlag: Flag = .flagged,
        pinWarning: FlagPolicyWarning? = nil, isReadOnly: Bool = false
    ) {
        self.name = name
        self.uidValidity = uidValidity
        self.messageCount = messageCount
        self.pinFlag = pinFlag
        self.pinWarning = pinWarning
        self.isReadOnly = isReadOnly
    }
}

/// Every message of a listing or a search, in order (newest first), without their contents:
/// pages of it are fetched on demand.
public struct MessageList: Hashable, Sendable {
    /// The messages, newest first.
    public var ids: [Email.ID]
    /// How many match (the server's count; `ids.count` unless the server counted otherwise).
    public var total: Int

    /// Whether pages leave out messages marked `\Deleted` (a listing asks the server for every
    /// message, which also gives the session its sequence-to-UID map, and drops those per page).
    public var hidesDeleted: Bool

    /// A listing's pinned messages (not marked deleted), in the list's order: the inbox's Pinned
    /// section, known before any page is fetched (one UID SEARCH of the pin flag). Empty for a
    /// search, whose results list pinned messages in order with the others.
    public var pinned: [Email.ID]

    /// A list.
    public init(ids: [Email.ID], total: Int? = nil, hidesDeleted: Bool = false, pinned: [Email.ID] = []) {
        self.ids = ids
        self.total = total ?? ids.count
        self.hidesDeleted = hidesDeleted
        self.pinned = pinned
    }
}

/// One page of a listing or a search.
public struct EmailPage: Hashable, Sendable {
    /// Everything the listing or search found, for the next pages.
    public var list: MessageList
    /// Where this page starts in `list`.
    public var offset: Int
    /// The messages of this page, newest first (a message expunged meanwhile is left out).
    public var emails: [Email]
    /// What the person should know about this search (a pin keyword that fell back to `\Flagged`).
    public var warnings: [String]

    /// A page.
    public init(list: MessageList, offset: Int, emails: [Email], warnings: [String] = []) {
        self.list = list
        self.offset = offset
        self.emails = emails
        self.warnings = warnings
    }

    /// Where the next page starts; nil when this is the last one.
    public func nextOffset(pageSize: Int) -> Int? {
        let next = offset + pageSize
        return next < list.ids.count ? next : nil
    }

    /// The page as a mail list shows it: pinned messages first, then the rest, each newest first.
    public var pinnedFirst: [Email] { emails.filter(\.isPinned) + emails.filter { !$0.isPinned } }

    /// Whether more pages follow this one, given the page size it was asked with.
    public var hasMore: Bool { offset + max(emails.count, 1) < list.ids.count }
}

/// What a flag change did.
public struct FlagChangeResult: Hashable, Sendable {
    /// The messages whose change the server refused (changed by someone else meanwhile, or the
    /// mailbox cannot store the flag), with the reason; empty when everything was applied.
    public var refused: [Email.ID: String]
    /// The messages' flags after the change, where the service knows them.
    public var flags: [Email.ID: [Flag]]

    /// A result.
    public init(refused: [Email.ID: String] = [:], flags: [Email.ID: [Flag]] = [:]) {
        self.refused = refused
        self.flags = flags
    }
}

/// Something that happened in the open mailbox.
public enum MailServiceEvent: Hashable, Sendable {
    /// New messages arrived (newest first).
    case arrived([Email])
    /// These messages were removed.
    case expunged([Email.ID])
    /// A message's flags changed (by another client, or as the server confirmed ours).
    case flagsChanged(Email.ID, [Flag])
    /// The mailbox was re-created or the connection could not tell what changed: reload it.
    case reloadNeeded(reason: String)
    /// The connection broke and is being re-established.
    case connectionLost(String)
    /// The connection is back.
    case connectionRestored
    /// The connection could not be re-established; calls will fail with this error.
    case failed(MailServiceError)
    /// A message from the server for the person (`[ALERT]`).
    case alert(String)
}
