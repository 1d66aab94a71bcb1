/// A mailbox attribute that STATUS asks for and reports (RFC 3501 6.3.10, RFC 9051 6.3.11,
/// RFC 7162 for HIGHESTMODSEQ, RFC 7889 for APPENDLIMIT).
///
/// `C: a7 STATUS INBOX (MESSAGES UIDNEXT UNSEEN)` asks for `.messages`, `.uidNext`, `.unseen`;
/// `S: * STATUS INBOX (MESSAGES 20000 UIDNEXT 20001 UNSEEN 7871)` reports them.
public enum StatusAttribute: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `MESSAGES`: the number of messages in the mailbox.
    case messages
    /// `RECENT`: the number of messages with `\Recent` (IMAP4rev1 only).
    case recent
    /// `UIDNEXT`: the UID the next message will get.
    case uidNext
    /// `UIDVALIDITY`: the UID validity value of the mailbox.
    case uidValidity
    /// `UNSEEN`: the number of messages without `\Seen`.
    case unseen
    /// `DELETED`: the number of messages with `\Deleted` (RFC 9051).
    case deleted
    /// `SIZE`: the total size of the mailbox in octets (RFC 8438, RFC 9051).
    case size
    /// `HIGHESTMODSEQ`: the highest mod-sequence of the mailbox (RFC 7162 CONDSTORE).
    case highestModSeq
    /// `APPENDLIMIT`: the largest message APPEND accepts (RFC 7889).
    case appendLimit

    /// The name as it goes on the wire (`UIDNEXT`).
    public var name: String {
        switch self {
        case .messages: return "MESSAGES"
        case .recent: return "RECENT"
        case .uidNext: return "UIDNEXT"
        case .uidValidity: return "UIDVALIDITY"
        case .unseen: return "UNSEEN"
        case .deleted: return "DELETED"
        case .size: return "SIZE"
        case .highestModSeq: return "HIGHESTMODSEQ"
        case .appendLimit: return "APPENDLIMIT"
        }
    }

    /// The attribute with wire name `name` (case-insensitive), or nil.
    public init?(name: some StringProtocol) {
        let upper = name.uppercased()
        guard let match = Self.allCases.first(where: { $0.name == upper }) else { return nil }
        self = match
    }

    /// The wire name.
    public var description: String { name }
}

extension ByteCursor {
    // status-att = "MESSAGES" / "UIDNEXT" / "UIDVALIDITY" / "UNSEEN" / "DELETED" / "SIZE"   ; RFC 9051
    // status-att =/ "RECENT"                                                                ; RFC 3501
    // status-att =/ "HIGHESTMODSEQ"                                                         ; RFC 7162
    // status-att =/ "APPENDLIMIT"                                                           ; RFC 7889
    /// One STATUS attribute name.
    public mutating func parseStatusAttribute() throws(IMAPParseError) -> StatusAttribute {
        let start = index
        let name = try parseAtom()
        guard let attribute = StatusAttribute(name: String(decoding: name, as: UTF8.self)) else {
            index = start
            throw error(.unexpectedByte, "expected a STATUS attribute (MESSAGES, UIDNEXT, UIDVALIDITY, UNSEEN, ...)")
        }
        return attribute
    }
}

extension EncodeBuffer {
    /// Writes a STATUS attribute name.
    public mutating func write(_ attribute: StatusAttribute) { writeRaw(attribute.name) }
}
