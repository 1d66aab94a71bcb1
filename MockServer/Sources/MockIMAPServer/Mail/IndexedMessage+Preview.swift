import MailMIME

extension IndexedMessage {
    /// The longest a preview is, in characters (RFC 8970 allows 256; Dovecot sends 200).
    static let previewLength = 200

    // preview = "PREVIEW" SP nstring        ; RFC 8970
    /// The preview made of the text of a message's first text part (not looking into
    /// encapsulated messages), as Dovecot makes it: HTML reduced to text without quoted
    /// `<blockquote>`s, plain text without `>` quoted lines, white space collapsed, up to 200
    /// characters.
    static func preview(of text: String, isHTML: Bool) -> String {
        var content = isHTML ? HTMLText.text(of: text, skippingQuotes: true) : text
        return content.withUTF8 { bytes -> String in
            var output: [UInt8] = []
            output.reserveCapacity(min(bytes.count, previewLength * 2))
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
                    guard count < previewLength else { break }
                    output.append(0x20)
                    count += 1
                }
                pendingSpace = false
                guard count < previewLength else { break }
                output.append(contentsOf: bytes[index..<min(bytes.count, index + length)])
                count += 1
            }
            // A space that used up the last character does not end the preview.
            if output.last == 0x20 { output.removeLast() }
            return String(decoding: output, as: UTF8.self)
        }
    }
}
