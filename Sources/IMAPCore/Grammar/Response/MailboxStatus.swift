/// The values of a STATUS response (RFC 3501 7.2.4, RFC 9051 7.3.2, RFC 7162): `* STATUS INBOX
/// (MESSAGES 20000 UIDNEXT 20001 UIDVALIDITY 1796004237 UNSEEN 7871 HIGHESTMODSEQ 2)`.
///
/// Each value is nil when the server did not send it.
public struct MailboxStatus: Hashable, Sendable {
    public var messageCount: UInt32?
    public var recentCount: UInt32?
    public var uidNext: UInt32?
    public var uidValidity: UInt32?
    public var unseenCount: UInt32?
    public var deletedCount: UInt32?
    public var size: UInt64?
    public var highestModificationSequence: UInt64?
    public var appendLimit: UInt64?
    /// Attributes this parser does not know, with their values.
    public var other: [String: UInt64]

    public init(
        messageCount: UInt32? = nil, recentCount: UInt32? = nil, uidNext: UInt32? = nil, uidValidity: UInt32? = nil,
        unseenCount: UInt32? = nil, deletedCount: UInt32? = nil, size: UInt64? = nil,
        highestModificationSequence: UInt64? = nil, appendLimit: UInt64? = nil, other: [String: UInt64] = [:]
    ) {
        self.messageCount = messageCount
        self.recentCount = recentCount
        self.uidNext = uidNext
        self.uidValidity = uidValidity
        self.unseenCount = unseenCount
        self.deletedCount = deletedCount
        self.size = size
        self.highestModificationSequence = highestModificationSequence
        self.appendLimit = appendLimit
        self.other = other
    }
}
