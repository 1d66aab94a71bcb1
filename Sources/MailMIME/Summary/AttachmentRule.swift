/// When a part of a message is an attachment, one rule for every reader of mail: a part is an
/// attachment when its Content-Disposition is `attachment`, or when it is a non-text,
/// non-multipart part with a file name (Content-Disposition `filename`, or Content-Type `name`).
///
/// So a `text/plain` part with disposition `attachment` is one, an inline image without a file
/// name is not, and attachments inside an encapsulated message (a forwarded mail) count too.
///
/// ```
/// AttachmentRule.isAttachment(mediaType: "image", disposition: "inline", fileName: nil)        // false
/// AttachmentRule.isAttachment(mediaType: "text", disposition: "attachment", fileName: nil)     // true
/// AttachmentRule.isAttachment(mediaType: "application", disposition: nil, fileName: "a.pdf")   // true
/// ```
public enum AttachmentRule {
    /// Whether one part is an attachment. `mediaType` is the Content-Type's type (`image`),
    /// `disposition` the Content-Disposition's type (`inline`), `fileName` its `filename` or the
    /// Content-Type's `name`; all compared without regard to case, an empty file name is none.
    public static func isAttachment(mediaType: String, disposition: String?, fileName: String?) -> Bool {
        if let disposition, disposition.lowercased() == "attachment" { return true }
        let type = mediaType.lowercased()
        guard type != "text", type != "multipart" else { return false }
        return !(fileName ?? "").isEmpty
    }

    /// Whether any part of `message` is an attachment, encapsulated messages included.
    public static func hasAttachment(_ message: MIMEMessage) -> Bool {
        func visit(_ part: MIMEPart) -> Bool {
            switch part.kind {
            case .multipart:
                return part.children.contains(where: visit)
            case .message:
                if isAttachment(part) { return true }
                return part.encapsulatedMessage.map { visit($0.root) } ?? false
            case .single:
                return isAttachment(part)
            }
        }
        return visit(message.root)
    }

    /// Whether `part` itself (not its children) is an attachment.
    public static func isAttachment(_ part: MIMEPart) -> Bool {
        isAttachment(mediaType: part.contentType.type, disposition: part.disposition?.type, fileName: part.filename)
    }
}
