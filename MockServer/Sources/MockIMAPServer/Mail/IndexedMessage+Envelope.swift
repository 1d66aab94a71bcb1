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

    /// The envelope of a message with `header`: MailMIME's ``MailEnvelope`` as IMAP values.
    static func envelope(of header: MIMEHeader) -> Envelope {
        let fields = MailEnvelope(header: header)
        func addresses(_ list: [MailEnvelope.Address]) -> [Address] {
            list.map { address in
                Address(
                    name: address.name.map { ByteString($0) }, adl: address.route.map { ByteString($0) },
                    mailbox: address.mailbox.map { ByteString($0) }, host: address.host.map { ByteString($0) })
            }
        }
        return Envelope(
            date: fields.date.map { ByteString($0) }, subject: fields.subject.map { ByteString($0) },
            from: addresses(fields.from), sender: addresses(fields.sender), replyTo: addresses(fields.replyTo),
            to: addresses(fields.to), cc: addresses(fields.cc), bcc: addresses(fields.bcc),
            inReplyTo: fields.inReplyTo.map { ByteString($0) }, messageID: fields.messageID.map { ByteString($0) })
    }
}
