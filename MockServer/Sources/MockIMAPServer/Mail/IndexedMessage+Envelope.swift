public import IMAPCore
import MailMIME

extension IndexedMessage {
    /// ENVELOPE (RFC 3501 7.4.2): the Date, Subject, From, Sender, Reply-To, To, Cc, Bcc,
    /// In-Reply-To and Message-ID fields.
    ///
    /// Strings are the raw header text, RFC 2047 encoded words kept, unfolded; NIL for absent
    /// fields; Sender and Reply-To are From's when absent or empty; groups are RFC 3501's
    /// markers. As Dovecot does, Subject and display names have their white space collapsed,
    /// a repeated Date, Subject, In-Reply-To or Message-ID field counts by its last occurrence
    /// while repeated address fields add up, and an address missing its parts shows
    /// `MISSING_MAILBOX`, `MISSING_DOMAIN` or `SYNTAX_ERROR` instead.
    ///
    /// ```
    /// S: * 1 FETCH (ENVELOPE ("Fri, 01 Dec 2023 00:13:23 -0000" "Invoice #18562"
    ///      (("Mallory Ivanova" NIL "mallory.ivanova" "example.com")) ... NIL "<17562.825147707@example.com>"))
    /// ```
    public var envelope: Envelope { Self.envelope(of: mime.header) }

    /// The envelope of a message with `header`.
    static func envelope(of header: MIMEHeader) -> Envelope {
        var envelope = Envelope()
        for field in header.fields {
            guard let name = EnvelopeField(field) else { continue }
            let value = MIMESyntax.trimmedValue(field.rawValue)
            switch name {
            case .date: envelope.date = ByteString(MIMESyntax.unfolded(value))
            case .subject: envelope.subject = ByteString(textForHumans(value))
            case .inReplyTo: envelope.inReplyTo = ByteString(MIMESyntax.unfolded(value))
            case .messageID: envelope.messageID = ByteString(MIMESyntax.unfolded(value))
            case .from: envelope.from += addresses(value)
            case .sender: envelope.sender += addresses(value)
            case .replyTo: envelope.replyTo += addresses(value)
            case .to: envelope.to += addresses(value)
            case .cc: envelope.cc += addresses(value)
            case .bcc: envelope.bcc += addresses(value)
            }
        }
        if envelope.sender.isEmpty { envelope.sender = envelope.from }
        if envelope.replyTo.isEmpty { envelope.replyTo = envelope.from }
        return envelope
    }

    /// The header fields an envelope is made of.
    private enum EnvelopeField {
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
    /// The IMAP addresses of an address list field.
    private static func addresses(_ value: ArraySlice<UInt8>) -> [Address] {
        AddressParser.parseRaw(value).map { raw in
            switch raw.kind {
            case .groupStart:
                return Address(name: nil, adl: nil, mailbox: raw.mailbox.map { ByteString($0) }, host: nil)
            case .groupEnd:
                return Address(name: nil, adl: nil, mailbox: nil, host: nil)
            case .mailbox:
                let host: [UInt8]
                if raw.hasBrokenAngleAddress {
                    host = Array("SYNTAX_ERROR".utf8)
                } else if let domain = raw.domain, !domain.isEmpty {
                    host = domain
                } else {
                    host = Array("MISSING_DOMAIN".utf8)
                }
                let route = raw.hasInvalidRoute ? Array("INVALID_ROUTE".utf8) : raw.route
                return Address(
                    name: raw.name.map { ByteString(textForHumans($0[...])) }, adl: route.map { ByteString($0) },
                    mailbox: ByteString(raw.mailbox ?? Array("MISSING_MAILBOX".utf8)), host: ByteString(host))
            }
        }
    }

    /// Text cleaned up for people, as Dovecot sends Subject and display names: runs of white
    /// space and line breaks become one space, leading and trailing white space goes, NUL
    /// becomes 0x80.
    static func textForHumans(_ value: ArraySlice<UInt8>) -> [UInt8] {
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
