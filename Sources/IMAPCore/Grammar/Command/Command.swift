/// A client command without its tag (RFC 3501 6, RFC 9051 6, and the extensions a search client
/// uses: IDLE, ID, ENABLE, NAMESPACE, UNSELECT, UIDPLUS, MOVE, SORT, ESEARCH, CONDSTORE, BINARY,
/// LIST-EXTENDED, SASL-IR).
///
/// `C: a9 UID SEARCH FROM "grace" SINCE 1-Jan-2025` is
/// `.uidSearch(keys: [.from("grace"), .since(date)])` with the tag `a9`. The commands with a `uid`
/// prefix are cases of their own, so a switch names every form.
public enum Command: Hashable, Sendable {
    /// `CAPABILITY`.
    case capability
    /// `NOOP`.
    case noop
    /// `LOGOUT`.
    case logout
    /// `STARTTLS`.
    case startTLS
    /// `LOGIN user password`.
    case login(username: ByteString, password: ByteString)
    /// `AUTHENTICATE mechanism [initial-response]`. The initial response (SASL-IR, RFC 4959) is
    /// the base64 text as sent; an empty one goes on the wire as `=`.
    case authenticate(mechanism: String, initialResponse: ByteString? = nil)
    /// `ENABLE capability ...` (RFC 5161).
    case enable([Capability])
    /// `ID (fields)` or `ID NIL` (RFC 2971).
    case id([IDParameter]?)
    /// `SELECT mailbox [(parameters)]`.
    case select(MailboxName, parameters: [SelectParameter] = [])
    /// `EXAMINE mailbox [(parameters)]`.
    case examine(MailboxName, parameters: [SelectParameter] = [])
    /// `CREATE mailbox`.
    case create(MailboxName)
    /// `DELETE mailbox`.
    case delete(MailboxName)
    /// `RENAME from to`.
    case rename(from: MailboxName, to: MailboxName)
    /// `SUBSCRIBE mailbox`.
    case subscribe(MailboxName)
    /// `UNSUBSCRIBE mailbox`.
    case unsubscribe(MailboxName)
    /// `LIST [(selection)] reference pattern(s) [RETURN (options)]` (RFC 5258 when options are used).
    case list(
        selection: [ListSelectOption] = [], reference: MailboxName, patterns: [ByteString],
        returnOptions: [ListReturnOption] = [])
    /// `LSUB reference pattern` (IMAP4rev1).
    case lsub(reference: MailboxName, pattern: ByteString)
    /// `STATUS mailbox (attributes)`.
    case status(MailboxName, [StatusAttribute])
    /// `NAMESPACE` (RFC 2342).
    case namespace
    /// `CLOSE`.
    case close
    /// `UNSELECT` (RFC 3691).
    case unselect
    /// `EXPUNGE`.
    case expunge
    /// `UID EXPUNGE set` (RFC 4315 UIDPLUS).
    case uidExpunge(SequenceSet)
    /// `APPEND mailbox [(flags)] [date-time] literal`.
    case append(MailboxName, AppendMessage)
    /// `CHECK` (IMAP4rev1).
    case check
    /// `SEARCH [RETURN (options)] [CHARSET charset] keys`: at least one key; several mean all of
    /// them. `returnOptions` nil sends no RETURN (a plain `* SEARCH` answer); `[]` sends `RETURN ()`.
    case search(charset: String? = nil, returnOptions: [SearchReturnOption]? = nil, keys: [SearchKey])
    /// `UID SEARCH [RETURN (options)] [CHARSET charset] keys`, answered with UIDs.
    case uidSearch(charset: String? = nil, returnOptions: [SearchReturnOption]? = nil, keys: [SearchKey])
    /// `SORT [RETURN (options)] (criteria) charset keys` (RFC 5256, RFC 5267 ESORT).
    case sort(
        criteria: [SortCriterion], charset: String, keys: [SearchKey], returnOptions: [SearchReturnOption]? = nil)
    /// `UID SORT [RETURN (options)] (criteria) charset keys`.
    case uidSort(
        criteria: [SortCriterion], charset: String, keys: [SearchKey], returnOptions: [SearchReturnOption]? = nil)
    /// `FETCH set (items) [(modifiers)]`. The macros ALL, FAST and FULL arrive expanded.
    case fetch(SequenceSet, [FetchAttribute], modifiers: [FetchModifier] = [])
    /// `UID FETCH set (items) [(modifiers)]`.
    case uidFetch(SequenceSet, [FetchAttribute], modifiers: [FetchModifier] = [])
    /// `STORE set [(UNCHANGEDSINCE n)] flags` (RFC 7162 for UNCHANGEDSINCE).
    case store(SequenceSet, unchangedSince: UInt64? = nil, StoreFlags)
    /// `UID STORE set [(UNCHANGEDSINCE n)] flags`.
    case uidStore(SequenceSet, unchangedSince: UInt64? = nil, StoreFlags)
    /// `COPY set mailbox`.
    case copy(SequenceSet, MailboxName)
    /// `UID COPY set mailbox`.
    case uidCopy(SequenceSet, MailboxName)
    /// `MOVE set mailbox` (RFC 6851).
    case move(SequenceSet, MailboxName)
    /// `UID MOVE set mailbox`.
    case uidMove(SequenceSet, MailboxName)
    /// `IDLE` (RFC 2177); the client ends it with `DONE`, which is not a command.
    case idle

    /// The command name as it goes on the wire (`UID FETCH`), for logs and BAD replies.
    public var name: String {
        switch self {
        case .capability: return "CAPABILITY"
        case .noop: return "NOOP"
        case .logout: return "LOGOUT"
        case .startTLS: return "STARTTLS"
        case .login: return "LOGIN"
        case .authenticate: return "AUTHENTICATE"
        case .enable: return "ENABLE"
        case .id: return "ID"
        case .select: return "SELECT"
        case .examine: return "EXAMINE"
        case .create: return "CREATE"
        case .delete: return "DELETE"
        case .rename: return "RENAME"
        case .subscribe: return "SUBSCRIBE"
        case .unsubscribe: return "UNSUBSCRIBE"
        case .list: return "LIST"
        case .lsub: return "LSUB"
        case .status: return "STATUS"
        case .namespace: return "NAMESPACE"
        case .close: return "CLOSE"
        case .unselect: return "UNSELECT"
        case .expunge: return "EXPUNGE"
        case .uidExpunge: return "UID EXPUNGE"
        case .append: return "APPEND"
        case .check: return "CHECK"
        case .search: return "SEARCH"
        case .uidSearch: return "UID SEARCH"
        case .sort: return "SORT"
        case .uidSort: return "UID SORT"
        case .fetch: return "FETCH"
        case .uidFetch: return "UID FETCH"
        case .store: return "STORE"
        case .uidStore: return "UID STORE"
        case .copy: return "COPY"
        case .uidCopy: return "UID COPY"
        case .move: return "MOVE"
        case .uidMove: return "UID MOVE"
        case .idle: return "IDLE"
        }
    }
}
