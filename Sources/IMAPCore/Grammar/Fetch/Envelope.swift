/// An ENVELOPE (RFC 3501 7.4.2): the main header fields as the server parsed them.
///
/// Strings are the raw header text: RFC 2047 encoded words are not decoded here (MailMIME does
/// that), so nothing is lost.
///
/// A value holds its fields in one shared box, copied on the first change (copy on write): a
/// listing hands each envelope from the parser to the session, the stream and its reader, and
/// each copy used to retain every one of its strings and lists (up to 26) and move some 200
/// bytes; now it retains one reference.
public struct Envelope: Hashable, Sendable {
    public var date: ByteString? {
        get { storage.fields.date }
        set { uniqueStorage().fields.date = newValue }
    }
    public var subject: ByteString? {
        get { storage.fields.subject }
        set { uniqueStorage().fields.subject = newValue }
    }
    public var from: [Address] {
        get { storage.fields.from }
        set { uniqueStorage().fields.from = newValue }
    }
    public var sender: [Address] {
        get { storage.fields.sender }
        set { uniqueStorage().fields.sender = newValue }
    }
    public var replyTo: [Address] {
        get { storage.fields.replyTo }
        set { uniqueStorage().fields.replyTo = newValue }
    }
    public var to: [Address] {
        get { storage.fields.to }
        set { uniqueStorage().fields.to = newValue }
    }
    public var cc: [Address] {
        get { storage.fields.cc }
        set { uniqueStorage().fields.cc = newValue }
    }
    public var bcc: [Address] {
        get { storage.fields.bcc }
        set { uniqueStorage().fields.bcc = newValue }
    }
    public var inReplyTo: ByteString? {
        get { storage.fields.inReplyTo }
        set { uniqueStorage().fields.inReplyTo = newValue }
    }
    public var messageID: ByteString? {
        get { storage.fields.messageID }
        set { uniqueStorage().fields.messageID = newValue }
    }

    public init(
        date: ByteString? = nil, subject: ByteString? = nil, from: [Address] = [], sender: [Address] = [],
        replyTo: [Address] = [], to: [Address] = [], cc: [Address] = [], bcc: [Address] = [],
        inReplyTo: ByteString? = nil, messageID: ByteString? = nil
    ) {
        storage = Storage(
            Fields(
                date: date, subject: subject, from: from, sender: sender, replyTo: replyTo, to: to, cc: cc, bcc: bcc,
                inReplyTo: inReplyTo, messageID: messageID))
    }

    public static func == (lhs: Envelope, rhs: Envelope) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage.fields) }

    private var storage: Storage

    /// The box, made this value's own first if another value shares it.
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        return storage
    }

    private struct Fields: Hashable, Sendable {
        var date: ByteString?
        var subject: ByteString?
        var from: [Address]
        var sender: [Address]
        var replyTo: [Address]
        var to: [Address]
        var cc: [Address]
        var bcc: [Address]
        var inReplyTo: ByteString?
        var messageID: ByteString?
    }

    /// Changed only through `uniqueStorage()`, when no other value holds it: a shared box is
    /// never written, so values in different threads never see a change.
    private final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
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
