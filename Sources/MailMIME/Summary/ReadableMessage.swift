/// What a person reads of a message: the text of its body and the list of its attachments, as
/// `mailsearch show` and the terminal reader show them.
///
/// - The text is the first `text/plain` part that is not an attachment (outside encapsulated
///   messages), else the first such `text/html` part laid out by ``HTMLReadableText``; "" when
///   there is neither. Line breaks are `\n` (CRLF and a lone CR become LF).
/// - The attachments are the other parts, in order, that are not text, or are text with a file
///   name or disposition `attachment` (``AttachmentRule``): files, images, forwarded messages
///   (listed whole, not looked into). ``ReaderLayout`` makes this decision.
///
/// ```
/// let readable = ReadableMessage(MIMEMessage(bytes: raw))
/// readable.text                          // "See the report.\n"
/// readable.attachments.map(\.name)       // ["report.pdf"]
/// ```
public struct ReadableMessage: Hashable, Sendable {
    /// The body's text, with `\n` line breaks.
    public var text: String
    /// The attachments, in the order the message has them.
    public var attachments: [MessageAttachment]

    /// A readable message.
    public init(text: String, attachments: [MessageAttachment]) {
        self.text = text
        self.attachments = attachments
    }

    /// The text and attachments of `message`. When `message` holds only the first bytes of a
    /// message of `totalSize` bytes (a partial fetch), a part cut short there gets an estimated
    /// size.
    public init(_ message: MIMEMessage, totalSize: Int? = nil) {
        let layout = ReaderLayout(message)
        if let plain = layout.plainText, let text = plain.text(in: message) {
            self.text = Self.withLineFeeds(text)
        } else if let html = layout.html, let text = html.text(in: message) {
            self.text = HTMLReadableText.text(of: text)
        } else {
            self.text = ""
        }

        let missing = max(0, (totalSize ?? 0) - message.bytes.count)
        attachments = layout.attachments.map { part in
            let decodedSize = part.decodedBody(in: message).count
            var size = decodedSize
            let isCut = missing > 0 && part.bodyRange.upperBound == message.bytes.count
            if isCut, part.size > 0 {
                // What is missing decodes at the rate of what is here.
                size = decodedSize + Int((Double(missing) * Double(decodedSize) / Double(part.size)).rounded())
            }
            return MessageAttachment(
                name: part.attachmentName, mimeType: part.contentType.mimeType, size: size, isSizeApproximate: isCut)
        }
    }

    /// `text` with CRLF and lone CR line breaks as LF.
    static func withLineFeeds(_ text: String) -> String {
        guard text.utf8.contains(0x0D) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var previousWasCR = false
        for byte in text.utf8 {
            if byte == 0x0D {
                bytes.append(0x0A)
                previousWasCR = true
                continue
            }
            if byte == 0x0A, previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = false
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
