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
        build(from: text, isHTML: isHTML).preview
    }

    /// The preview of a message of which only the top-level header fields and the first bytes of
    /// the body are known (`BODY.PEEK[HEADER.FIELDS (...)]` and `BODY.PEEK[TEXT]<0.N>`): the
    /// preview ``make(for:)`` makes of the whole message, or nil when these bytes may not hold
    /// all of it (the text part starts past them, or its first ``maximumLength`` characters do).
    ///
    /// `header` needs the Content-Type, Content-Transfer-Encoding and MIME-Version fields (the
    /// others do not matter); `isWholeBody` says `bodyStart` is all of the body. The bytes are
    /// read as one message, so the parts, their boundaries and MIME headers are found exactly as
    /// in the whole message; a text part cut short is decoded up to the cut (a base64 group, a
    /// quoted-printable line, a character, an HTML character reference or what may be the start
    /// of a boundary line, cut short, are left out),
    /// and its preview counts only when it fills up before the cut.
    ///
    /// ```
    /// C: A5 UID FETCH 7 (BODY.PEEK[HEADER.FIELDS (CONTENT-TYPE ...)] BODY.PEEK[TEXT]<0.16384>)
    /// PreviewText.make(header: fields, bodyStart: text, isWholeBody: text.count < 16384)
    /// ```
    public static func make(header: [UInt8], bodyStart: [UInt8], isWholeBody: Bool) -> String? {
        var bytes = header
        // The body starts after the header's empty line; a server may leave it out.
        let endsWithEmptyLine =
            bytes == [0x0A] || bytes == [0x0D, 0x0A] || bytes.suffix(2).elementsEqual([0x0A, 0x0A])
            || bytes.suffix(3).elementsEqual([0x0A, 0x0D, 0x0A])
        if !endsWithEmptyLine { bytes += [0x0D, 0x0A] }
        bytes += bodyStart
        let message = MIMEMessage(bytes: bytes)
        if isWholeBody { return make(for: message) }
        guard let part = sourcePart(of: message) else { return nil }
        // A part followed by a boundary line arrived whole.
        if part.bodyRange.upperBound < bytes.count { return make(for: message) }
        var range = part.bodyRange
        if message.root.kind == .multipart {
            // A last line cut short that starts with "-" may be the boundary line ending the part.
            let lineStart = bytes[range].lastIndex(of: 0x0A).map { $0 + 1 } ?? range.lowerBound
            if lineStart < range.upperBound, bytes[lineStart] == UInt8(ascii: "-") {
                range = range.lowerBound..<lineStart
            }
        }
        let body = MIMEPart.decodeTransferEncodingStart(bytes[range], encoding: part.transferEncoding)
        var text = MIMEPart.text(ofDecodedBodyStart: body, charset: part.contentType.charset)
        let isHTML = part.contentType.subtype == "html"
        if isHTML { text = withoutCutReference(text) }
        let (preview, isFull) = build(from: text, isHTML: isHTML)
        return isFull ? preview : nil
    }

    /// `html` without a character reference cut short at its end (`&nbs`), which HTMLText
    /// would keep as text: a reference ends at `;` within 10 characters of its `&`, or is text.
    private static func withoutCutReference(_ html: String) -> String {
        let bytes = Array(html.utf8)
        let tail = bytes.suffix(10)
        // An `&` with a `;` or white space after it is complete; so is one 10 bytes from the end.
        let afterTerminator =
            tail.lastIndex { [UInt8(ascii: ";"), 0x20, 0x09, 0x0D, 0x0A].contains($0) } ?? tail.startIndex
        guard let ampersand = tail[afterTerminator...].firstIndex(of: UInt8(ascii: "&")) else { return html }
        return String(decoding: bytes[..<ampersand], as: UTF8.self)
    }

    /// The preview of `text`, and whether it is full: it stopped at ``maximumLength`` with more
    /// text to come, so more of the text cannot change it.
    private static func build(from text: String, isHTML: Bool) -> (preview: String, isFull: Bool) {
        var content = isHTML ? HTMLText.text(of: text, skippingQuotes: true) : text
        var isFull = false
        let preview = content.withUTF8 { bytes -> String in
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
                    guard count < maximumLength else {
                        isFull = true
                        break
                    }
                    output.append(0x20)
                    count += 1
                }
                pendingSpace = false
                guard count < maximumLength else {
                    isFull = true
                    break
                }
                output.append(contentsOf: bytes[index..<min(bytes.count, index + length)])
                count += 1
            }
            // A space that used up the last character does not end the preview.
            if output.last == 0x20 { output.removeLast() }
            return String(decoding: output, as: UTF8.self)
        }
        return (preview, isFull)
    }
}
