/// What a person reads of a message: the text of its body and the list of its attachments, as
/// `mailsearch show` and the terminal reader show them.
///
/// - The text is the first `text/plain` part that is not an attachment (outside encapsulated
///   messages), else the first such `text/html` part laid out by ``HTMLReadableText``; "" when
///   there is neither. Line breaks are `\n` (CRLF and a lone CR become LF).
/// - The attachments are the other parts, in order, that are not text, or are text with a file
///   name or disposition `attachment` (``AttachmentRule``): files, images, forwarded messages
///   (listed whole, not looked into).
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
        var plain: MIMEPart?
        var html: MIMEPart?
        var candidates: [MIMEPart] = []
        func visit(_ part: MIMEPart) {
            switch part.kind {
            case .multipart:
                part.children.forEach(visit)
            case .message:
                candidates.append(part)
            case .single:
                if part.contentType.isText, !AttachmentRule.isAttachment(part) {
                    if part.contentType.subtype == "plain", plain == nil { plain = part }
                    if part.contentType.subtype == "html", html == nil { html = part }
                }
                candidates.append(part)
            }
        }
        visit(message.root)

        let body = plain ?? html
        if let plain, let text = plain.text(in: message) {
            self.text = Self.withLineFeeds(text)
        } else if let html, let text = html.text(in: message) {
            self.text = HTMLReadableText.text(of: text)
        } else {
            self.text = ""
        }

        let missing = max(0, (totalSize ?? 0) - message.bytes.count)
        attachments = candidates.compactMap { part -> MessageAttachment? in
            guard part.bodyRange != body?.bodyRange else { return nil }
            let name = part.filename.flatMap { $0.isEmpty ? nil : $0 }
            guard !part.contentType.isText || name != nil || part.disposition?.isAttachment == true else {
                return nil
            }
            let decodedSize = part.decodedBody(in: message).count
            var size = decodedSize
            let isCut = missing > 0 && part.bodyRange.upperBound == message.bytes.count
            if isCut, part.size > 0 {
                // What is missing decodes at the rate of what is here.
                size = decodedSize + Int((Double(missing) * Double(decodedSize) / Double(part.size)).rounded())
            }
            var shownName = name
            if shownName == nil, part.kind == .message {
                shownName = part.encapsulatedMessage?.header.decodedValue("subject").flatMap { $0.isEmpty ? nil : $0 }
            }
            return MessageAttachment(
                name: shownName, mimeType: part.contentType.mimeType, size: size, isSizeApproximate: isCut)
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
