/// An ENVELOPE (RFC 3501 7.4.2): the main header fields as the server parsed them.
///
/// Strings are the raw header text: RFC 2047 encoded words are not decoded here (MailMIME does
/// that), so nothing is lost.
public struct Envelope: Hashable, Sendable {
    public var date: ByteString?
    public var subject: ByteString?
    public var from: [Address]
    public var sender: [Address]
    public var replyTo: [Address]
    public var to: [Address]
    public var cc: [Address]
    public var bcc: [Address]
    public var inReplyTo: ByteString?
    public var messageID: ByteString?

    public init(
        date: ByteString? = nil, subject: ByteString? = nil, from: [Address] = [], sender: [Address] = [],
        replyTo: [Address] = [], to: [Address] = [], cc: [Address] = [], bcc: [Address] = [],
        inReplyTo: ByteString? = nil, messageID: ByteString? = nil
    ) {
        self.date = date
        self.subject = subject
        self.from = from
        self.sender = sender
        self.replyTo = replyTo
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.inReplyTo = inReplyTo
        self.messageID = messageID
    }
}

/// One address of an envelope: `("Grace Jones" NIL "grace.jones" "apple.com")`.
///
/// RFC 3501 group syntax: a group starts with an address whose `host` is nil and `mailbox` is the
/// group name, and ends with one whose `mailbox` and `host` are both nil.
public struct Address: Hashable, Sendable {
    /// The display name (may be RFC 2047 encoded).
    public var name: ByteString?
    /// The source route (obsolete).
    public var adl: ByteString?
    /// The local part.
    public var mailbox: ByteString?
    /// The domain.
    public var host: ByteString?

    public init(name: ByteString?, adl: ByteString? = nil, mailbox: ByteString?, host: ByteString?) {
        self.name = name
        self.adl = adl
        self.mailbox = mailbox
        self.host = host
    }

    /// `mailbox@host`, or nil for a group marker.
    public var emailAddress: String? {
        guard let mailbox, let host else { return nil }
        return mailbox.string + "@" + host.string
    }
}
