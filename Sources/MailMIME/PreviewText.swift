/// The short text a mail list shows under the subject (RFC 8970 PREVIEW), made the way Dovecot
/// makes it, so a preview made here from a message's text equals the server's PREVIEW.
///
/// - The text is that of the message's first `text/*` part outside encapsulated messages
///   (``sourcePart(of:)``), transfer decoded and converted to UTF-8.
/// - HTML is reduced to its text, without quoted `<blockquote>`s; plain text loses its `>` quoted
///   lines.
/// - Runs of white space become one space; leading white space goes.
/// - At most ``maximumLength`` characters (RFC 8970 allows 256; Dovecot sends 200), and a space
///   that would be the last character is dropped.
///
/// ```
/// PreviewText.make(from: "> earlier mail\nSee you\n  at  noon")   // "See you at noon"
/// PreviewText.make(from: "<p>Hi</p><blockquote>old</blockquote>", isHTML: true)   // "Hi"
/// ```
public enum PreviewText {
    /// The longest a preview is, in characters (Unicode scalars).
    public static let maximumLength = 200

    /// The preview of a message: made from the text of ``sourcePart(of:)``; "" when the message
    /// has no text part.
    public static func make(for message: MIMEMessage) -> String {
        guard let part = sourcePart(of: message), let text = part.text(in: message) else { return "" }
        return make(from: text, isHTML: part.contentType.subtype == "html")
    }

    /// The part a preview is made of: the first `text/*` leaf in depth-first order, not looking
    /// into encapsulated messages (`message/rfc822`); nil when there is none.
    public static func sourcePart(of message: MIMEMessage) -> MIMEPart? {
        func first(in part: MIMEPart) -> MIMEPart? {
            switch part.kind {
            case .multipart:
                for child in part.children {
                    if let found = first(in: child) { return found }
                }
                return nil
            case .message:
                return nil
            case .single:
                return part.contentType.isText ? part : nil
            }
        }
        return first(in: message.root)
    }

    /// The preview of `text`, the decoded content of a text part; `isHTML` for `text/html`.
    public static func make(from text: String, isHTML: Bool = false) -> String {
        var content = isHTML ? HTMLText.text(of: text, skippingQuotes: true) : text
        return content.withUTF8 { bytes -> String in
            var output: [UInt8] = []
            output.reserveCapacity(min(bytes.count, maximumLength * 2))
            var count = 0
            var atLineStart = true
            var inQuote = false
            var pendingSpace = false
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                defer { index += length }
                if inQuote {
                    if byte == 0x0A {
                        inQuote = false
                        atLineStart = true
                    }
                    continue
                }
                if atLineStart, !isHTML, byte == UInt8(ascii: ">") {
                    inQuote = true
                    continue
                }
                atLineStart = false
                if byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A {
                    pendingSpace = true
                    if byte == 0x0A { atLineStart = true }
                    continue
                }
                if pendingSpace, count > 0 {
                    guard count < maximumLength else { break }
                    output.append(0x20)
                    count += 1
                }
                pendingSpace = false
                guard count < maximumLength else { break }
                output.append(contentsOf: bytes[index..<min(bytes.count, index + length)])
                count += 1
            }
            // A space that used up the last character does not end the preview.
            if output.last == 0x20 { output.removeLast() }
            return String(decoding: output, as: UTF8.self)
        }
    }
}
