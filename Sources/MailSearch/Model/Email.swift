public import FoundationEssentials
public import IMAPCore
public import MailMIME

/// One message as the inbox and the search results show it (docs/inbox-view-model.md, "The
/// model"), mapped from MailMIME's decoded ``MailSummary``.
///
/// Identity is (mailbox, UIDVALIDITY, UID): the same UID in a re-created mailbox is another
/// message.
///
/// ```swift
/// let email = Email(id: Email.ID(mailbox: "INBOX", uidValidity: 7, uid: 42), summary: summary,
///                   receivedDate: nil, flags: [.seen], pinFlag: .flagged)
/// email.from.initials      // "AD"
/// email.isRead             // true
/// ```
public struct Email: Identifiable, Hashable, Sendable {
    /// Where a message lives: mailbox, UIDVALIDITY and UID.
    public struct ID: Hashable, Sendable, CustomStringConvertible {
        /// The mailbox's name.
        public var mailbox: String
        /// The mailbox's UIDVALIDITY when the UID was read.
        public var uidValidity: UInt32
        /// The message's UID in that mailbox.
        public var uid: UInt32

        /// An identity.
        public init(mailbox: String, uidValidity: UInt32, uid: UInt32) {
            self.mailbox = mailbox
            self.uidValidity = uidValidity
            self.uid = uid
        }

        /// `INBOX/7/42`.
        public var description: String { "\(mailbox)/\(uidValidity)/\(uid)" }
    }

    /// A sender or recipient: name, address and avatar initials ("Albus Dumbledore" -> "AD").
    public typealias Person = MailSummary.Person

    /// The message's identity.
    public let id: ID
    /// The first From mailbox (an empty person when the message has no From).
    public var from: Person
    /// The To mailboxes.
    public var to: [Person]
    /// The Cc mailboxes.
    public var cc: [Person]
    /// The Subject, RFC 2047 decoded; "" without one.
    public var subject: String
    /// The Date header; the date the server received it when the header is absent or unreadable.
    public var date: Date
    /// The start of the text: the server's PREVIEW, or made from the first text part.
    public var preview: String
    /// The message's flags and keywords (without `\Recent`).
    public private(set) var flags: [Flag]
    /// Whether the message carries `\Seen`.
    public private(set) var isRead: Bool
    /// Whether the message carries the mailbox's pin flag (``FlagPolicy``).
    public private(set) var isPinned: Bool
    /// Whether a part is an attachment.
    public var hasAttachment: Bool
    /// The size in bytes (RFC822.SIZE).
    public var size: Int

    /// The message's UID.
    public var uid: UInt32 { id.uid }
    /// The mailbox it is in.
    public var mailbox: String { id.mailbox }

    /// An email from its parts; `isRead` and `isPinned` follow from `flags` and `pinFlag`.
    public init(
        id: ID, from: Person, to: [Person] = [], cc: [Person] = [], subject: String, date: Date, preview: String = "",
        flags: [Flag] = [], pinFlag: Flag = .flagged, hasAttachment: Bool = false, size: Int = 0
    ) {
        self.id = id
        self.from = from
        self.to = to
        self.cc = cc
        self.subject = subject
        self.date = date
        self.preview = preview
        self.flags = []
        self.isRead = false
        self.isPinned = false
        self.hasAttachment = hasAttachment
        self.size = size
        setFlags(flags, pinFlag: pinFlag)
    }

    /// An email from the decoded summary of a message: the Date header when it has a readable
    /// one, else `receivedDate` (INTERNALDATE), else the start of 1970.
    public init(id: ID, summary: MailSummary, receivedDate: Date?, flags: [Flag], pinFlag: Flag) {
        let headerDate = summary.secondsSince1970.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        self.init(
            id: id, from: summary.from.first ?? Person(name: nil, address: ""), to: summary.to, cc: summary.cc,
            subject: summary.subject, date: headerDate ?? receivedDate ?? Date(timeIntervalSince1970: 0),
            preview: summary.preview, flags: flags, pinFlag: pinFlag, hasAttachment: summary.hasAttachment,
            size: summary.size)
    }

    /// Replaces the flags; `isRead` and `isPinned` follow.
    public mutating func setFlags(_ flags: [Flag], pinFlag: Flag) {
        // A linear check: a message carries a handful of flags at most.
        var kept: [Flag] = []
        kept.reserveCapacity(flags.count)
        for flag in flags where flag != .recent && !kept.contains(flag) { kept.append(flag) }
        self.flags = kept
        isRead = self.flags.contains(.seen)
        isPinned = self.flags.contains(pinFlag)
    }

    /// A copy with `flags` (see ``setFlags(_:pinFlag:)``).
    public func withFlags(_ flags: [Flag], pinFlag: Flag) -> Email {
        var copy = self
        copy.setFlags(flags, pinFlag: pinFlag)
        return copy
    }

    /// A copy with `flag` added (`present`) or removed.
    public func setting(_ flag: Flag, _ present: Bool, pinFlag: Flag) -> Email {
        let others = flags.filter { $0 != flag }
        return withFlags(present ? others + [flag] : others, pinFlag: pinFlag)
    }
}
