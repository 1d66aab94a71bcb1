/// The header fields an IMAP ENVELOPE carries (RFC 3501 7.4.2), as raw bytes: what a server puts
/// on the wire and what a client reads off it, before any decoding.
///
/// A server makes it from a message header (``init(header:)``), the way Dovecot does; a client
/// fills it in from the ENVELOPE it received. ``MailSummary`` decodes either the same way.
///
/// ```
/// let envelope = MailEnvelope(header: MIMEMessage(bytes: raw).header)
/// envelope.subject            // "=?utf-8?q?R=C3=A9union?=" (bytes, still encoded)
/// envelope.from.first?.host   // "example.com"
/// ```
public struct MailEnvelope: Hashable, Sendable {
    /// One address of an ENVELOPE address list: `(name adl mailbox host)`.
    ///
    /// A group start has a `mailbox` (the group name) and no `host`; a group end has nothing.
    /// Servers fill in missing parts with markers, as Dovecot does: `MISSING_MAILBOX`,
    /// `MISSING_DOMAIN`, `SYNTAX_ERROR` (an unreadable `<...>`), `INVALID_ROUTE`.
    public struct Address: Hashable, Sendable {
        /// The display name, RFC 2047 encoded words kept.
        public var name: [UInt8]?
        /// The obsolete source route (`@a,@b`).
        public var route: [UInt8]?
        /// The local part, or a group's name.
        public var mailbox: [UInt8]?
        /// The domain; nil for group markers.
        public var host: [UInt8]?

        /// An address.
        public init(name: [UInt8]?, route: [UInt8]? = nil, mailbox: [UInt8]?, host: [UInt8]?) {
            self.name = name
            self.route = route
            self.mailbox = mailbox
            self.host = host
        }
    }

    /// The Date field, unfolded.
    public var date: [UInt8]?
    /// The Subject field, white space collapsed, encoded words kept.
    public var subject: [UInt8]?
    /// The From addresses.
    public var from: [Address] = []
    /// The Sender addresses (From's when absent).
    public var sender: [Address] = []
    /// The Reply-To addresses (From's when absent).
    public var replyTo: [Address] = []
    /// The To addresses.
    public var to: [Address] = []
    /// The Cc addresses.
    public var cc: [Address] = []
    /// The Bcc addresses.
    public var bcc: [Address] = []
    /// The In-Reply-To field, unfolded.
    public var inReplyTo: [UInt8]?
    /// The Message-ID field, unfolded.
    public var messageID: [UInt8]?

    /// An empty envelope (every field NIL).
    public init() {}

    /// The envelope of a message with `header`, as Dovecot 2.3 makes it: Subject and display
    /// names have their white space collapsed, a repeated Date, Subject, In-Reply-To or
    /// Message-ID field counts by its last occurrence while repeated address fields add up,
    /// Sender and Reply-To are From's when absent or empty.
    public init(header: MIMEHeader) {
        for field in header.fields {
            guard let name = Field(field) else { continue }
            let value = MIMESyntax.trimmedValue(field.rawValue)
            switch name {
            case .date: date = MIMESyntax.unfolded(value)
            case .subject: subject = Self.textForHumans(value)
            case .inReplyTo: inReplyTo = MIMESyntax.unfolded(value)
            case .messageID: messageID = MIMESyntax.unfolded(value)
            case .from: from += Self.addresses(value)
            case .sender: sender += Self.addresses(value)
            case .replyTo: replyTo += Self.addresses(value)
            case .to: to += Self.addresses(value)
            case .cc: cc += Self.addresses(value)
            case .bcc: bcc += Self.addresses(value)
            }
        }
        if sender.isEmpty { sender = from }
        if replyTo.isEmpty { replyTo = from }
    }

    /// The header fields an envelope is made of.
    private enum Field {
        case date, subject, from, sender, replyTo, to, cc, bcc, inReplyTo, messageID

        init?(_ field: MIMEHeaderField) {
            // Cheap test first: every envelope field name starts with one of these letters.
            guard let first = field.bytes.first.map({ $0 | 0x20 }),
                "dsfrtcbim".utf8.contains(first)
            else { return nil }
            if field.hasName("date") {
                self = .date
            } else if field.hasName("subject") {
                self = .subject
            } else if field.hasName("from") {
                self = .from
            } else if field.hasName("sender") {
                self = .sender
            } else if field.hasName("reply-to") {
                self = .replyTo
            } else if field.hasName("to") {
                self = .to
            } else if field.hasName("cc") {
                self = .cc
            } else if field.hasName("bcc") {
                self = .bcc
            } else if field.hasName("in-reply-to") {
                self = .inReplyTo
            } else if field.hasName("message-id") {
                self = .messageID
            } else {
                return nil
            }
        }
    }

    // env-from = "(" 1*address ")" / nil ; address = "(" addr-name SP addr-adl SP addr-mailbox SP addr-host ")"
    /// The envelope addresses of an address list field value.
    public static func addresses(_ value: ArraySlice<UInt8>) -> [Address] {
        AddressParser.parseRaw(value).map { raw in
            switch raw.kind {
            case .groupStart:
                return Address(name: nil, mailbox: raw.mailbox, host: nil)
            case .groupEnd:
                return Address(name: nil, mailbox: nil, host: nil)
            case .mailbox:
                let host: [UInt8]
                if raw.hasBrokenAngleAddress {
                    host = Array("SYNTAX_ERROR".utf8)
                } else if let domain = raw.domain, !domain.isEmpty {
                    host = domain
                } else {
                    host = Array("MISSING_DOMAIN".utf8)
                }
                return Address(
                    name: raw.name.map { textForHumans($0[...]) },
                    route: raw.hasInvalidRoute ? Array("INVALID_ROUTE".utf8) : raw.route,
                    mailbox: raw.mailbox ?? Array("MISSING_MAILBOX".utf8), host: host)
            }
        }
    }

    /// Text cleaned up for people, as Dovecot sends Subject and display names: runs of white
    /// space and line breaks become one space, leading and trailing white space goes, NUL
    /// becomes 0x80.
    public static func textForHumans(_ value: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(value.count)
        var pendingSpace = false
        for byte in value {
            switch byte {
            case 0x20, 0x09, 0x0D, 0x0A:
                pendingSpace = !output.isEmpty
            default:
                if pendingSpace {
                    output.append(0x20)
                    pendingSpace = false
                }
                output.append(byte == 0 ? 0x80 : byte)
            }
        }
        return output
    }
}
