import IMAPClient
import IMAPCore
public import MailMIME

/// One message opened for reading (`mailsearch show`): its row, the header fields a reader
/// wants, and the text of its body.
public struct MessageContent: Hashable, Sendable {
    /// One header field, decoded (RFC 2047) for a person.
    public struct HeaderField: Hashable, Sendable {
        /// The field's name as the message spells it (`From`).
        public var name: String
        /// The decoded value.
        public var value: String

        /// A field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The message as a list shows it (flags, sender, date...).
    public var email: Email
    /// From, To, Cc, Date and Subject, in that order, those the message has.
    public var headers: [HeaderField]
    /// The text of the first `text/plain` part that is not an attachment, else the text of the
    /// first `text/html` part laid out for reading; "" when there is neither. Line breaks are
    /// `\n` (``ReadableMessage``).
    public var text: String
    /// The files, images and forwarded messages, in order (``ReadableMessage``).
    public var attachments: [MessageAttachment]
    /// Whether the message was larger than what was fetched, so the text may be cut short.
    public var isTruncated: Bool

    /// A message's content.
    public init(
        email: Email, headers: [HeaderField], text: String, attachments: [MessageAttachment] = [], isTruncated: Bool
    ) {
        self.email = email
        self.headers = headers
        self.text = text
        self.attachments = attachments
        self.isTruncated = isTruncated
    }
}

extension IMAPMailService {
    /// The most bytes of one message `message(_:)` fetches (`BODY.PEEK[]<0.n>` beyond it).
    public static let largestShownMessage = 4 << 20

    /// The message with `uid` in the open mailbox: its row, headers and text; nil when there is
    /// no such message (see ``message(_:)``).
    public func message(uid: UInt32) async throws(MailServiceError) -> MessageContent? {
        let description = try await open()
        return try await message(Email.ID(mailbox: description.name, uidValidity: description.uidValidity, uid: uid))
    }

    /// The message `id`, of the open mailbox or another (a row of an `in:all` search): its row,
    /// headers and text; nil when there is no such message. Fetched with `BODY.PEEK[]`, so
    /// reading it never marks it read; a message of another mailbox is fetched on the second
    /// connection, which EXAMINEs that mailbox.
    ///
    /// ```
    /// C: A5 UID FETCH 42 (UID FLAGS ENVELOPE INTERNALDATE RFC822.SIZE BODYSTRUCTURE PREVIEW)
    /// C: A6 UID FETCH 42 (UID BODY.PEEK[])
    /// ```
    public func message(_ id: Email.ID) async throws(MailServiceError) -> MessageContent? {
        let description = try await open()
        let page = try await page(of: MessageList(ids: [id]), offset: 0, pageSize: 1)
        guard let email = page.emails.first(where: { $0.id == id }) else { return nil }
        let uid = id.uid
        let isTruncated = email.size > Self.largestShownMessage
        let partial = isTruncated ? FetchAttribute.Partial(offset: 0, length: UInt64(Self.largestShownMessage)) : nil
        let items: [FetchAttribute] = [.uid, .bodySection(peek: true, section: .complete, partial: partial)]
        let fetched: [FetchResponse]
        if id.mailbox == description.name {
            do {
                fetched = try await connection.fetch(SequenceSet(numbers: [uid]), items: items)
            } catch {
                throw MailServiceError(error)
            }
        } else {
            fetched = try await others.fetch(
                SequenceSet(numbers: [uid]), items: items, in: id.mailbox, uidValidity: id.uidValidity)
        }
        guard let response = fetched.first(where: { $0.uid == uid }) else { return nil }
        let bytes = response.bodySection(.complete).map { Array($0.bytes) } ?? []
        let parsed = MIMEMessage(bytes: bytes)
        var headers: [MessageContent.HeaderField] = []
        for name in ["From", "To", "Cc", "Date", "Subject"] {
            guard let field = parsed.header.firstField(named: name) else { continue }
            headers.append(
                MessageContent.HeaderField(name: name, value: parsed.header.decodedValue(name) ?? field.value))
        }
        let readable = ReadableMessage(parsed, totalSize: email.size)
        return MessageContent(
            email: email, headers: headers, text: readable.text, attachments: readable.attachments,
            isTruncated: isTruncated)
    }
}
