public import IMAPCore

/// A query turned into what the server is asked: where to search, the keys, and whether deleted
/// messages are left out.
public struct CompiledSearch: Hashable, Sendable {
    /// Which mailbox(es) to search (`in:`).
    public var scope: MailboxScope
    /// The search keys, without the `UNDELETED` that `excludesDeleted` adds.
    public var keys: [SearchKey]
    /// Whether `UNDELETED` is added (always, unless the query asks about `is:deleted`).
    public var excludesDeleted: Bool
    /// Things worth telling the person (a pin keyword that fell back to `\Flagged`).
    public var warnings: [FlagPolicyWarning]

    /// A compiled search.
    public init(scope: MailboxScope, keys: [SearchKey], excludesDeleted: Bool, warnings: [FlagPolicyWarning] = []) {
        self.scope = scope
        self.keys = keys
        self.excludesDeleted = excludesDeleted
        self.warnings = warnings
    }

    /// The keys as sent: `keys`, then `UNDELETED` when deleted messages are left out.
    public var programKeys: [SearchKey] { excludesDeleted ? keys + [.undeleted] : keys }
}

/// Compiles a `Query` into IMAP search keys for one server and mailbox (docs/query-language.md,
/// "Fields and their IMAP meaning").
public enum QueryCompiler {
    /// The largest size an IMAP4rev1 server can search (`number` is 32-bit there).
    public static let largestIMAP4rev1Size: UInt64 = 4_294_967_295

    /// Compiles `query` for `context`.
    public static func compile(_ query: Query, context: SearchContext) throws(QueryError) -> CompiledSearch {
        var parts: [Query]
        switch query {
        case .all: parts = []
        case .and(let inner): parts = inner
        case .term, .or, .not: parts = [query]
        }
        var scope = MailboxScope.current
        var scopeCount = 0
        parts.removeAll { part in
            guard case .term(.mailbox(let named)) = part else { return false }
            scope = named
            scopeCount += 1
            return true
        }
        guard scopeCount <= 1 else {
            throw QueryError(.misplacedMailbox, column: nil, "only one in: is allowed")
        }
        var compiler = Compiler(context: context)
        var keys: [SearchKey] = []
        for part in parts { keys += try compiler.keys(for: part) }
        if keys.isEmpty { keys = [.all] }
        return CompiledSearch(
            scope: scope, keys: keys, excludesDeleted: !compiler.mentionsDeleted,
            warnings: compiler.usesPin ? context.pinFlag.warning.map { [$0] } ?? [] : [])
    }

    /// Parses and compiles `text`.
    public static func compile(_ text: String, context: SearchContext) throws(QueryError) -> CompiledSearch {
        try compile(QueryParser.parse(text).query, context: context)
    }
}

private struct Compiler {
    let context: SearchContext
    var mentionsDeleted = false
    var usesPin = false

    init(context: SearchContext) { self.context = context }

    mutating func keys(for query: Query) throws(QueryError) -> [SearchKey] {
        switch query {
        case .all: return [.all]
        case .term(let term): return try keys(for: term)
        case .and(let parts):
            var keys: [SearchKey] = []
            for part in parts { keys += try self.keys(for: part) }
            return keys
        case .or(let left, let right):
            return [.or(Self.single(try keys(for: left)), Self.single(try keys(for: right)))]
        case .not(let inner):
            return [Self.negate(Self.single(try keys(for: inner)))]
        }
    }

    static func single(_ keys: [SearchKey]) -> SearchKey { keys.count == 1 ? keys[0] : .and(keys) }

    /// `NOT` of a flag folds into its opposite key; `NOT OR` is written `NOT (OR a b)` for people.
    static func negate(_ key: SearchKey) -> SearchKey {
        switch key {
        case .seen: return .unseen
        case .unseen: return .seen
        case .flagged: return .unflagged
        case .unflagged: return .flagged
        case .answered: return .unanswered
        case .unanswered: return .answered
        case .deleted: return .undeleted
        case .undeleted: return .deleted
        case .draft: return .undraft
        case .undraft: return .draft
        case .keyword(let flag): return .unkeyword(flag)
        case .unkeyword(let flag): return .keyword(flag)
        case .not(let inner):
            // Undo the parentheses that negating an OR added.
            if case .and(let keys) = inner, keys.count == 1 { return keys[0] }
            return inner
        case .or: return .not(.and([key]))
        case .all, .bcc, .before, .body, .cc, .from, .header, .larger, .new, .old, .on, .recent, .sentBefore,
            .sentOn, .sentSince, .since, .smaller, .subject, .text, .to, .uid, .sequenceNumbers, .and,
            .modificationSequence, .younger, .older, .gmailRaw, .filter, .savedBefore, .savedOn, .savedSince,
            .savedDateSupported:
            return .not(key)
        }
    }

    mutating func keys(for term: QueryTerm) throws(QueryError) -> [SearchKey] {
        let today = context.today
        switch term {
        case .text(let value):
            let string = ByteString(value)
            return [.or(.from(string), .or(.subject(string), .or(.to(string), .or(.cc(string), .body(string)))))]
        case .from(let value): return [.from(ByteString(value))]
        case .to(let value): return [.to(ByteString(value))]
        case .cc(let value): return [.cc(ByteString(value))]
        case .bcc(let value): return [.bcc(ByteString(value))]
        case .subject(let value): return [.subject(ByteString(value))]
        case .body(let value): return [.body(ByteString(value))]
        case .fullText(let value): return [.text(ByteString(value))]
        case .header(let name, let value): return [.header(field: ByteString(name), value: ByteString(value))]
        case .flag(let flag): return [key(for: flag)]
        case .hasAttachment:
            let hasAttachment = Flag("$HasAttachment")
            if context.mailboxFlags.contains(hasAttachment) || (context.permanentFlags ?? []).contains(hasAttachment) {
                return [.keyword(hasAttachment)]
            }
            if context.isGmail { return [.gmailRaw("has:attachment")] }
            return [
                .or(
                    .header(field: "Content-Type", value: "multipart/mixed"),
                    .header(field: "Content-Disposition", value: "attachment"))
            ]
        case .receivedAfter(let date): return [.since(date.start(today: today))]
        case .receivedBefore(let date): return [.before(date.start(today: today))]
        case .receivedOn(let date):
            if date.start(today: today) == date.end(today: today) { return [.on(date.start(today: today))] }
            return [.since(date.start(today: today))] + Self.beforeDayAfter(date.end(today: today))
        case .receivedBetween(let start, let end):
            var keys: [SearchKey] = []
            if let start { keys.append(.since(start.start(today: today))) }
            if let end { keys += Self.beforeDayAfter(end.end(today: today)) }
            return keys.isEmpty ? [.all] : keys
        case .sentAfter(let date): return [.sentSince(date.start(today: today))]
        case .sentBefore(let date): return [.sentBefore(date.start(today: today))]
        case .newerThan(let age):
            let day = age.day(before: today)
            if let seconds = withinSeconds(from: day) { return [.younger(seconds: seconds)] }
            return [.since(day)]
        case .olderThan(let age):
            let day = age.day(before: today)
            if let seconds = withinSeconds(from: day) { return [.older(seconds: seconds)] }
            return [.before(day)]
        case .larger(let size): return [.larger(try checked(size))]
        case .smaller(let size): return [.smaller(try checked(size))]
        case .uid(let set): return [.uid(set)]
        case .raw(let value):
            guard context.isGmail else {
                throw QueryError(
                    .unsupported, column: nil,
                    "raw: works only on Gmail (X-GM-EXT-1), and this server does not offer it")
            }
            return [.gmailRaw(ByteString(value))]
        case .mailbox:
            throw QueryError(
                .misplacedMailbox, column: nil,
                "in: cannot be negated or combined with OR; it chooses where the whole search runs")
        }
    }

    mutating func key(for flag: QueryFlag) -> SearchKey {
        switch flag {
        case .unread: return .unseen
        case .read: return .seen
        case .pinned, .unpinned:
            usesPin = true
            let pin = context.pinFlag.flag
            if pin == .flagged { return flag == .pinned ? .flagged : .unflagged }
            return flag == .pinned ? .keyword(pin) : .unkeyword(pin)
        case .flagged: return .flagged
        case .unflagged: return .unflagged
        case .answered: return .answered
        case .draft: return .draft
        case .deleted:
            mentionsDeleted = true
            return .deleted
        }
    }

    /// `BEFORE` the day after `day`; nothing after 31-Dec-9999, which every message is before
    /// (and a five-digit year cannot be written).
    static func beforeDayAfter(_ day: IMAPDate) -> [SearchKey] {
        let next = day.adding(days: 1)
        return next.year > 9999 ? [] : [.before(next)]
    }

    /// Seconds from the start of `day` to the start of today, when the server has WITHIN.
    func withinSeconds(from day: IMAPDate) -> UInt32? {
        guard context.capabilities.contains(.within) else { return nil }
        let seconds = (context.today.daysSinceEpoch - day.daysSinceEpoch) * 86400
        guard seconds > 0, seconds <= Int(UInt32.max) else { return nil }
        return UInt32(seconds)
    }

    func checked(_ size: UInt64) throws(QueryError) -> UInt64 {
        guard size <= QueryCompiler.largestIMAP4rev1Size || context.capabilities.contains(.imap4rev2) else {
            throw QueryError(
                .sizeTooLarge, column: nil,
                "\(size) is larger than this server can search (\(QueryCompiler.largestIMAP4rev1Size))")
        }
        return size
    }
}
