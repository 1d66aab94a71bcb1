public import IMAPCore

/// A parsed search query: what a person typed into the search field, as a tree.
///
/// `from:alice OR from:bob is:unread` is
/// `.and([.or(.term(.from("alice")), .term(.from("bob"))), .term(.flag(.unread))])`.
/// Values are NFC-normalized; nothing here depends on the server yet (see `QueryCompiler`).
public indirect enum Query: Hashable, Sendable {
    /// The empty query: every message.
    case all
    /// One field or bare word.
    case term(QueryTerm)
    /// Every part must match (juxtaposition or `AND`); at least two parts.
    case and([Query])
    /// Either side may match (`OR`).
    case or(Query, Query)
    /// The inner query must not match (`-` or `NOT`).
    case not(Query)
}

/// One term of a query: a bare word or phrase, or `field:value`.
public enum QueryTerm: Hashable, Sendable {
    /// A bare word or `"a phrase"`: sender, recipients, subject or body, as Apple Mail means it.
    case text(String)
    /// `from:s`.
    case from(String)
    /// `to:s`.
    case to(String)
    /// `cc:s`.
    case cc(String)
    /// `bcc:s`.
    case bcc(String)
    /// `subject:s`.
    case subject(String)
    /// `body:s`.
    case body(String)
    /// `text:s`: all headers and the body.
    case fullText(String)
    /// `header:Name=value`.
    case header(name: String, value: String)
    /// `is:...`.
    case flag(QueryFlag)
    /// `has:attachment`.
    case hasAttachment
    /// `after:D`: received on or after the first day of `D`.
    case receivedAfter(QueryDate)
    /// `before:D`: received before the first day of `D`.
    case receivedBefore(QueryDate)
    /// `on:D`: received during `D` (a day, a month or a year).
    case receivedOn(QueryDate)
    /// `date:A..B`: received from the start of `A` through the end of `B`; either end may be open.
    case receivedBetween(QueryDate?, QueryDate?)
    /// `sent-after:D`: the Date header is on or after the first day of `D`.
    case sentAfter(QueryDate)
    /// `sent-before:D`: the Date header is before the first day of `D`.
    case sentBefore(QueryDate)
    /// `newer_than:N`.
    case newerThan(QueryAge)
    /// `older_than:N`.
    case olderThan(QueryAge)
    /// `larger:S`, in bytes.
    case larger(UInt64)
    /// `smaller:S`, in bytes.
    case smaller(UInt64)
    /// `uid:set`.
    case uid(SequenceSet)
    /// `raw:"..."`: a Gmail search expression.
    case raw(String)
    /// `in:Name` or `in:all`: which mailbox(es) to search.
    case mailbox(MailboxScope)
}

/// The `is:` values.
public enum QueryFlag: String, Hashable, Sendable, CaseIterable {
    /// `is:unread`.
    case unread
    /// `is:read`.
    case read
    /// `is:pinned`: the pin flag of the `FlagPolicy`.
    case pinned
    /// `is:unpinned`.
    case unpinned
    /// `is:flagged` (also `is:starred`).
    case flagged
    /// `is:unflagged`.
    case unflagged
    /// `is:answered`.
    case answered
    /// `is:draft`.
    case draft
    /// `is:deleted`.
    case deleted
}

/// A day, month or year as a query names it; `today` and `yesterday` are resolved at compile time.
public enum QueryDate: Hashable, Sendable {
    /// `YYYY-MM-DD` or `YYYY/MM/DD`.
    case day(IMAPDate)
    /// `YYYY-MM`: the whole month.
    case month(year: Int, month: Int)
    /// `YYYY`: the whole year.
    case year(Int)
    /// `today`.
    case today
    /// `yesterday`.
    case yesterday

    /// The first day of the period, with `today` taken from the caller.
    public func start(today: IMAPDate) -> IMAPDate {
        switch self {
        case .day(let date): return date
        case .month(let year, let month): return IMAPDate(year: year, month: month, day: 1) ?? today
        case .year(let year): return IMAPDate(year: year, month: 1, day: 1) ?? today
        case .today: return today
        case .yesterday: return today.adding(days: -1)
        }
    }

    /// The last day of the period.
    public func end(today: IMAPDate) -> IMAPDate {
        switch self {
        case .day(let date): return date
        case .month(let year, let month):
            return IMAPDate(year: year, month: month, day: IMAPDate.daysInMonth(year: year, month: month)) ?? today
        case .year(let year): return IMAPDate(year: year, month: 12, day: 31) ?? today
        case .today: return today
        case .yesterday: return today.adding(days: -1)
        }
    }
}

/// A relative age: `7d`, `2w`, `3m` (months), `1y`.
public struct QueryAge: Hashable, Sendable {
    /// The unit of an age.
    public enum Unit: String, Hashable, Sendable {
        /// `d`.
        case days = "d"
        /// `w`.
        case weeks = "w"
        /// `m`: calendar months.
        case months = "m"
        /// `y`: calendar years.
        case years = "y"
    }

    /// How many units (at least 1).
    public var count: Int
    /// The unit.
    public var unit: Unit

    /// An age of `count` units.
    public init(_ count: Int, _ unit: Unit) {
        self.count = count
        self.unit = unit
    }

    /// The earliest day a query reaches: IMAP writes years with four digits.
    public static let earliestDay = IMAPDate(year: 1000, month: 1, day: 1)!

    /// The day that lies this age before `today` (months and years clamp to the month's last day),
    /// never before `earliestDay`.
    public func day(before today: IMAPDate) -> IMAPDate {
        let day: IMAPDate
        switch unit {
        case .days: day = today.adding(days: -count)
        case .weeks: day = today.adding(days: -7 * count)
        case .months: day = Self.shift(today, months: -count)
        case .years: day = Self.shift(today, months: -12 * count)
        }
        return max(day, Self.earliestDay)
    }

    private static func shift(_ date: IMAPDate, months: Int) -> IMAPDate {
        let index = date.year * 12 + (date.month - 1) + months
        guard index >= earliestDay.year * 12 else { return earliestDay }
        let year = index / 12
        let month = index % 12 + 1
        let day = min(date.day, IMAPDate.daysInMonth(year: year, month: month))
        return IMAPDate(year: year, month: month, day: day) ?? earliestDay
    }
}

/// Which mailbox(es) a search runs in.
public enum MailboxScope: Hashable, Sendable {
    /// The selected mailbox.
    case current
    /// The named mailbox (`in:Archive`).
    case mailbox(String)
    /// Every selectable mailbox (`in:all`).
    case allMailboxes
}
