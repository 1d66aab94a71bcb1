import MailMIME

extension IndexedMessage {
    /// The longest a preview is, in characters (RFC 8970 allows 256; Dovecot sends 200).
    static let previewLength = 200

    // preview = "PREVIEW" SP nstring        ; RFC 8970
    /// The preview of a message, as Dovecot makes it: the first text part (not looking into
    /// encapsulated messages), decoded to UTF-8, HTML reduced to text without quoted
    /// `<blockquote>`s, plain text without `>` quoted lines, white space collapsed, up to 200
    /// characters.
    static func preview(of message: MIMEMessage) -> String {
        guard let part = firstTextPart(message.root), let text = part.text(in: message) else { return "" }
        let isHTML = part.contentType.subtype == "html"
        let content = isHTML ? HTMLText.text(of: text, skippingQuotes: true) : text
        var output = String.UnicodeScalarView()
        var count = 0
        var atLineStart = true
        var inQuote = false
        var pendingSpace = false
        for scalar in content.unicodeScalars {
            if inQuote {
                if scalar == "\n" {
                    inQuote = false
                    atLineStart = true
                }
                continue
            }
            if atLineStart, !isHTML, scalar == ">" {
                inQuote = true
                continue
            }
            atLineStart = false
            if scalar == " " || scalar == "\t" || scalar == "\r" || scalar == "\n" {
                pendingSpace = true
                if scalar == "\n" { atLineStart = true }
                continue
            }
            if pendingSpace, count > 0 {
                guard count < previewLength else { break }
                output.append(" ")
                count += 1
            }
            pendingSpace = false
            guard count < previewLength else { break }
            output.append(scalar)
            count += 1
        }
        return String(output)
    }

    /// The first `text/*` leaf part outside encapsulated messages.
    private static func firstTextPart(_ part: MIMEPart) -> MIMEPart? {
        switch part.kind {
        case .multipart:
            for child in part.children {
                if let found = firstTextPart(child) { return found }
            }
            return nil
        case .message:
            return nil
        case .single:
            return part.contentType.isText ? part : nil
        }
    }
}
