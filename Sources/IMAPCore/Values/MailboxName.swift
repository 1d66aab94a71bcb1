/// A mailbox name as it goes on the wire (RFC 3501 5.1): bytes in modified UTF-7 for IMAP4rev1,
/// or UTF-8 under IMAP4rev2/UTF8=ACCEPT. `INBOX` is case-insensitive.
public struct MailboxName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The bytes as sent on the wire.
    public let bytes: ByteString

    /// A name from its wire bytes; any spelling of INBOX becomes `INBOX`.
    public init(_ bytes: ByteString) {
        self.bytes = bytes.equalsCaseInsensitive("INBOX") ? "INBOX" : bytes
    }

    /// A name from its wire spelling.
    public init(wire text: String) { self.init(ByteString(text)) }

    public init(stringLiteral value: String) { self.init(wire: value) }

    /// `INBOX`.
    public static let inbox = MailboxName(wire: "INBOX")

    /// Whether this is INBOX.
    public var isInbox: Bool { bytes == "INBOX" }

    public var description: String { bytes.string }
}

extension ByteCursor {
    // mailbox = "INBOX" / astring
    /// A mailbox name.
    public mutating func parseMailbox() throws(IMAPParseError) -> MailboxName {
        MailboxName(try parseAString())
    }

    // list-mailbox = 1*list-char / string
    /// A LIST pattern (may contain `%` and `*`).
    public mutating func parseListMailbox() throws(IMAPParseError) -> ByteString {
        switch peek {
        case UInt8(ascii: "\""), UInt8(ascii: "{"): return try parseString()
        // `~` starts a literal8 only before `{`; else it is a list-char (`~user/%`).
        case UInt8(ascii: "~") where peek(offset: 1) == UInt8(ascii: "{"): return try parseString()
        default: return ByteString(try run(of: .listMailbox, what: "a mailbox pattern"))
        }
    }
}

extension EncodeBuffer {
    /// Writes a mailbox name as an atom when it can be one, else quoted or literal.
    public mutating func write(_ mailbox: MailboxName) { writeAString(mailbox.bytes) }
}
