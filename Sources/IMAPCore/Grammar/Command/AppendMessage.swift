/// The message of an APPEND (RFC 3501 6.3.11, RFC 9051 6.3.12, RFC 3516 for binary): flags, an
/// internal date and the raw RFC 5322 bytes, always sent as a literal.
///
/// `C: a APPEND Sent (\Seen) "05-Mar-2024 10:00:00 +0100" {310}` then the 310 octets.
public struct AppendMessage: Hashable, Sendable {
    /// Flags to set on the new message (none when empty).
    public var flags: [Flag]
    /// The internal date to give it, or nil for the server's clock.
    public var internalDate: IMAPDateTime?
    /// The message bytes.
    public var data: ByteString
    /// Whether the bytes go as a binary literal `~{n}` (RFC 3516; they may contain NUL).
    public var binary: Bool

    /// A message to append.
    public init(flags: [Flag] = [], internalDate: IMAPDateTime? = nil, data: ByteString, binary: Bool = false) {
        self.flags = flags
        self.internalDate = internalDate
        self.data = data
        self.binary = binary
    }
}

extension ByteCursor {
    // append = "APPEND" SP mailbox [SP flag-list] [SP date-time] SP literal
    // append-data = literal / literal8      ; RFC 9051, RFC 3516
    // literal8 = "~{" number64 "}" CRLF *OCTET
    /// The part of APPEND after `mailbox SP`.
    public mutating func parseAppendMessage() throws(IMAPParseError) -> AppendMessage {
        try attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> AppendMessage in
            var flags: [Flag] = []
            var internalDate: IMAPDateTime?
            if cursor.peek == UInt8(ascii: "(") {
                flags = try cursor.parseFlagList()
                try cursor.expectSpace()
            }
            if cursor.peek == UInt8(ascii: "\"") {
                internalDate = try cursor.parseDateTime()
                try cursor.expectSpace()
            }
            let binary = cursor.peek == UInt8(ascii: "~")
            guard binary || cursor.peek == UInt8(ascii: "{") else {
                throw cursor.error(
                    cursor.isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected the message as a literal {n}")
            }
            let data = try cursor.parseLiteral()
            return AppendMessage(flags: flags, internalDate: internalDate, data: data, binary: binary)
        }
    }
}

extension EncodeBuffer {
    /// Writes `[(flags) ]["date-time" ]{n}` and the message bytes.
    public mutating func write(_ message: AppendMessage) {
        if !message.flags.isEmpty {
            write(message.flags)
            writeSpace()
        }
        if let internalDate = message.internalDate {
            write(internalDate)
            writeSpace()
        }
        writeLiteral(message.data.bytes, binary: message.binary)
    }
}
