public import IMAPCore
public import MailMIME

/// The text IMAP SEARCH looks at in one message, decoded once: the mock server keeps it beside
/// each stored message, and the local index stores it (``encoded()``) and reads it back.
///
/// Where RFC 3501 / RFC 9051 6.4.4 leave room, the texts follow Dovecot 2.3, which
/// `Tests/MockIMAPServerTests/IndexedMessageDovecotTests.swift` checks against a real Dovecot.
public struct SearchableText: Sendable, Equatable {
    /// One header field: its lowercase name and its value, unfolded and RFC 2047 decoded.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// Every header field, in order.
    public let fields: [Field]
    /// Every header field as `name: value` lines (for TEXT).
    public let allHeadersText: String
    /// The FROM, TO, CC and BCC address lists as SEARCH matches them (RFC 3501 6.4.4: "the
    /// envelope structure's FROM field"), keyed by lowercase field name: `addressText["from"]`.
    /// Each list is written out again from its parsed addresses, display names RFC 2047 decoded,
    /// then case folded: `grace jones <grace@apple.com>, group: a@b.org, c@d.org;`. So a display
    /// name and a whole `user@domain` are found alike, whatever comments, quotes or folding the
    /// header had (`<user (comment)@ domain.org>` is `user@domain.org`), as Dovecot matches.
    /// Absent fields have no key.
    public let addressText: [String: String]
    /// The decoded text of the body: every `text/*` part transfer decoded and converted to
    /// UTF-8, HTML reduced to its text, the content of other `message/*` parts
    /// (`message/delivery-status`, `message/external-body`) as text, and the header of each
    /// encapsulated message (for BODY).
    public let bodyText: String
    /// The MIME headers of the body parts, unfolded and RFC 2047 decoded: in the message's body
    /// (RFC 5322 2.1, and BODY[TEXT] holds them), so TEXT finds them; BODY, like Dovecot's, looks
    /// at the parts' content only.
    public let partHeadersText: String
    /// The body text without the headers of attached messages, when it has any (nil: the same
    /// as ``bodyText``). RFC 5322 puts an attached message's header in the body, and BODY finds
    /// it there (``bodyText``, the mock server); Dovecot's BODY does not. A search whose answer
    /// hangs on that difference is one only the server can give.
    public let bodyTextWithoutAttachedHeaders: String?
    /// The day of the Date header in the header's own time zone (SENTBEFORE, SENTON, SENTSINCE
    /// compare it); nil without a readable Date header.
    public let sentDate: IMAPDate?
    /// The instant of the Date header, seconds since 1970 UTC (SORT DATE); nil without one.
    public let sentTimestamp: Int?
    /// Where each field's value lies in `allHeadersText`.
    private let valueRanges: [Range<String.Index>]

    /// The search text of a parsed message.
    public init(_ mime: MIMEMessage) {
        var fields: [Field] = []
        fields.reserveCapacity(mime.header.fields.count)
        var addresses: [String: String] = [:]
        for field in mime.header.fields {
            let name = field.lowercasedName
            var value: [UInt8] = []
            Self.appendDecodedValue(of: field, to: &value)
            fields.append(Field(name: name, value: String(decoding: value, as: UTF8.self)))
            if name == "from" || name == "to" || name == "cc" || name == "bcc" {
                let folded = CaseFolding.fold(
                    Self.addressSearchText(MailEnvelope.addresses(MIMESyntax.trimmedValue(field.rawValue))))
                addresses[name] = addresses[name].map { $0 + "\n" + folded } ?? folded
            }
        }
        let (body, partHeaders, withoutAttached) = Self.bodyTexts(of: mime)
        var sentDate: IMAPDate?
        var sentTimestamp: Int?
        if let dateField = mime.header.firstField(named: "date"), let date = DateHeader.parse(bytes: dateField.rawValue)
        {
            sentDate = IMAPDate(year: date.year, month: date.month, day: date.day)
            sentTimestamp = date.timestamp
        }
        self.init(
            fields: fields, addressText: addresses, bodyText: body, partHeadersText: partHeaders,
            bodyTextWithoutAttachedHeaders: withoutAttached, sentDate: sentDate, sentTimestamp: sentTimestamp)
    }

    private init(
        fields: [Field], addressText: [String: String], bodyText: String, partHeadersText: String,
        bodyTextWithoutAttachedHeaders: String?, sentDate: IMAPDate?, sentTimestamp: Int?
    ) {
        var text = ""
        var offsets: [Range<Int>] = []
        offsets.reserveCapacity(fields.count)
        for field in fields {
            text += field.name
            text += ": "
            let start = text.utf8.count
            text += field.value
            offsets.append(start..<text.utf8.count)
            text += "\n"
        }
        let utf8 = text.utf8
        valueRanges = offsets.map { range in
            let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            return lower..<utf8.index(lower, offsetBy: range.count)
        }
        self.fields = fields
        self.allHeadersText = text
        self.addressText = addressText
        self.bodyText = bodyText
        self.partHeadersText = partHeadersText
        self.bodyTextWithoutAttachedHeaders = bodyTextWithoutAttachedHeaders
        self.sentDate = sentDate
        self.sentTimestamp = sentTimestamp
    }

    public static func == (left: SearchableText, right: SearchableText) -> Bool {
        left.fields == right.fields && left.addressText == right.addressText && left.bodyText == right.bodyText
            && left.partHeadersText == right.partHeadersText
            && left.bodyTextWithoutAttachedHeaders == right.bodyTextWithoutAttachedHeaders
            && left.sentDate == right.sentDate
            && left.sentTimestamp == right.sentTimestamp
    }

    // MARK: Reading

    /// The values of all header fields called `name` (case-insensitive), joined with "\n": ""
    /// when the field exists but is empty, nil when absent (`HEADER name ""` tests presence).
    public func headerText(_ name: String) -> String? {
        let wanted = name.lowercased()
        var result: String?
        for (index, field) in fields.enumerated() where field.name == wanted {
            let value = allHeadersText[valueRanges[index]]
            result = result.map { $0 + "\n" + value } ?? String(value)
        }
        return result
    }

    /// The value of the header field called `name` (lowercase) when the header has exactly one
    /// such field, without copying it; nil when it has none or several.
    public func soleHeaderValue(lowercasedName name: String) -> Substring? {
        var found: Substring?
        for (index, field) in fields.enumerated() where field.name == name {
            if found != nil { return nil }
            found = allHeadersText[valueRanges[index]]
        }
        return found
    }

    /// The value of the first header field called `name` (case-insensitive); nil when absent.
    public func firstHeaderText(_ name: String) -> String? {
        let wanted = name.lowercased()
        return fields.firstIndex { $0.name == wanted }.map { String(allHeadersText[valueRanges[$0]]) }
    }

    // MARK: Building

    /// Appends the unfolded, RFC 2047 decoded value of `field` as UTF-8.
    static func appendDecodedValue(of field: MIMEHeaderField, to output: inout [UInt8]) {
        let value = field.unfoldedValue
        var hasEncodedWord = false
        var isASCII = true
        for index in value.indices {
            let byte = value[index]
            if byte >= 0x80 { isASCII = false }
            if byte == UInt8(ascii: "="), index + 1 < value.count, value[index + 1] == UInt8(ascii: "?") {
                hasEncodedWord = true
            }
        }
        if isASCII, !hasEncodedWord {
            output.append(contentsOf: value)
        } else {
            output.append(contentsOf: EncodedWords.decode(field.value).utf8)
        }
    }

    /// An ENVELOPE address list written out for SEARCH, as Dovecot writes it before matching:
    /// `Name <mailbox@host>` (the name quoted when it is not one atom, and left as it is when it
    /// holds an RFC 2047 word), `<mailbox@host>` without a name, `<@route:mailbox@host>`,
    /// `group: <a@b.org>, <c@d.org>;` and `group:;`, entries joined by ", "; then RFC 2047 words
    /// decoded. Missing parts show as the ENVELOPE shows them (`MISSING_DOMAIN`).
    public static func addressSearchText(_ addresses: [MailEnvelope.Address]) -> String {
        var text: [UInt8] = []
        var inGroup = false
        var first = true
        for address in addresses {
            guard let host = address.host else {
                if !inGroup {
                    if !first { text += Array(", ".utf8) }
                    appendPhrase(address.mailbox ?? [], to: &text)
                    text.append(UInt8(ascii: ":"))
                    first = true
                } else {
                    text.append(UInt8(ascii: ";"))
                    first = false
                }
                inGroup.toggle()
                continue
            }
            if !first { text += Array(", ".utf8) } else if inGroup { text.append(0x20) }
            first = false
            if let name = address.name, !name.isEmpty {
                appendPhrase(name, to: &text)
                text.append(0x20)
            }
            text.append(UInt8(ascii: "<"))
            if let route = address.route {
                text += route
                text.append(UInt8(ascii: ":"))
            }
            text += address.mailbox ?? []
            text.append(UInt8(ascii: "@"))
            text += host
            text.append(UInt8(ascii: ">"))
        }
        return EncodedWords.decode(
            Charset.decode(text, charset: "unknown-8bit") ?? String(decoding: text, as: UTF8.self))
    }

    /// A display or group name: as it is when it is one atom or holds an RFC 2047 word, else
    /// quoted with `"` and `\` escaped.
    private static func appendPhrase(_ phrase: [UInt8], to text: inout [UInt8]) {
        let hasEncodedWord = zip(phrase, phrase.dropFirst()).contains {
            $0 == UInt8(ascii: "=") && $1 == UInt8(ascii: "?")
        }
        let isAtom = !phrase.isEmpty && phrase.allSatisfy { $0 >= 0x80 || atomCharacters.contains($0) }
        guard !hasEncodedWord, !isAtom else {
            text += phrase
            return
        }
        text.append(UInt8(ascii: "\""))
        for byte in phrase {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { text.append(UInt8(ascii: "\\")) }
            text.append(byte)
        }
        text.append(UInt8(ascii: "\""))
    }

    /// `atext` (RFC 5322 3.2.3).
    private static let atomCharacters = Set(
        Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~".utf8))

    /// The searchable text of the body and the headers of its parts (see ``bodyText``,
    /// ``partHeadersText`` and ``bodyTextWithoutAttachedHeaders``).
    private static func bodyTexts(
        of message: MIMEMessage
    ) -> (
        body: String, partHeaders: String, withoutAttached: String?
    ) {
        var text: [UInt8] = []
        var withoutAttached: [UInt8] = []
        var hasAttachedHeader = false
        var partHeaders: [UInt8] = []
        func appendFields(of header: MIMEHeader, to output: inout [UInt8]) {
            for field in header.fields {
                if !output.isEmpty { output.append(0x0A) }
                output.append(contentsOf: field.name.utf8)
                output.append(contentsOf: [UInt8(ascii: ":"), 0x20])
                appendDecodedValue(of: field, to: &output)
            }
        }
        // `headerSearched`: the part's header is already searched (the message's own, or an
        // encapsulated message's, which is in the body text).
        func visit(_ part: MIMEPart, headerSearched: Bool) {
            if !headerSearched { appendFields(of: part.header, to: &partHeaders) }
            switch part.kind {
            case .multipart:
                for child in part.children { visit(child, headerSearched: false) }
            case .message:
                guard let inner = part.encapsulatedMessage else { return }
                appendFields(of: inner.header, to: &text)
                hasAttachedHeader = hasAttachedHeader || !inner.header.fields.isEmpty
                visit(inner.root, headerSearched: true)
            case .single:
                // Only a complete `text/...` or `message/...` type is text to BODY, as Dovecot
                // 2.3 reads it: a bare `Content-Type: text` is not searched.
                guard !part.contentType.subtype.isEmpty else { return }
                let content: String
                if let decoded = part.text(in: message) {
                    content = part.contentType.subtype == "html" ? HTMLText.text(of: decoded) : decoded
                } else if part.contentType.type == "message" {
                    content = MIMEPart.text(ofDecodedBody: part.decodedBody(in: message), charset: nil)
                } else {
                    return
                }
                if !text.isEmpty { text.append(0x0A) }
                text.append(contentsOf: content.utf8)
                if !withoutAttached.isEmpty { withoutAttached.append(0x0A) }
                withoutAttached.append(contentsOf: content.utf8)
            }
        }
        visit(message.root, headerSearched: true)
        return (
            String(decoding: text, as: UTF8.self), String(decoding: partHeaders, as: UTF8.self),
            hasAttachedHeader ? String(decoding: withoutAttached, as: UTF8.self) : nil
        )
    }
}

// MARK: - Stored form

extension SearchableText {
    /// The text as bytes for a store, in two parts a store may keep apart: the header side
    /// (fields, addresses, the parts' MIME headers, the Date header; every key but BODY and
    /// TEXT needs only this) and the body side (``bodyText`` and
    /// ``bodyTextWithoutAttachedHeaders``). Every string is length-prefixed, so any text
    /// survives.
    public func encodedParts() -> (header: [UInt8], body: [UInt8]) {
        var header = Writer()
        header.number(3)  // the form's version
        header.number(fields.count)
        for field in fields {
            header.string(field.name)
            header.string(field.value)
        }
        let addressNames = ["from", "to", "cc", "bcc"].filter { addressText[$0] != nil }
        header.number(addressNames.count)
        for name in addressNames {
            header.string(name)
            header.string(addressText[name] ?? "")
        }
        header.string(partHeadersText)
        if let sentDate, let sentTimestamp {
            header.number(1)
            header.number(sentDate.year)
            header.number(sentDate.month)
            header.number(sentDate.day)
            header.number(sentTimestamp + (1 << 40))
        } else {
            header.number(0)
        }
        var body = Writer()
        body.string(bodyText)
        if let bodyTextWithoutAttachedHeaders {
            body.number(1)
            body.string(bodyTextWithoutAttachedHeaders)
        } else {
            body.number(0)
        }
        return (header.bytes, body.bytes)
    }

    /// The text stored by ``encodedParts()``; nil when the bytes are not such a text. Without
    /// `body` (nil), the body texts are empty: for a reader whose keys do not look at them.
    public init?(header: [UInt8], body: [UInt8]?) {
        var reader = Reader(bytes: header)
        guard reader.number() == 3, let fieldCount = reader.number() else { return nil }
        var fields: [Field] = []
        for _ in 0..<fieldCount {
            guard let name = reader.string(), let value = reader.string() else { return nil }
            fields.append(Field(name: name, value: value))
        }
        guard let addressCount = reader.number() else { return nil }
        var addresses: [String: String] = [:]
        for _ in 0..<addressCount {
            guard let name = reader.string(), let value = reader.string() else { return nil }
            addresses[name] = value
        }
        guard let partHeaders = reader.string(), let hasDate = reader.number() else { return nil }
        var sentDate: IMAPDate?
        var sentTimestamp: Int?
        if hasDate == 1 {
            guard let year = reader.number(), let month = reader.number(), let day = reader.number(),
                let timestamp = reader.number()
            else { return nil }
            sentDate = IMAPDate(year: year, month: month, day: day)
            sentTimestamp = timestamp - (1 << 40)
        }
        guard reader.isAtEnd else { return nil }
        var bodyText = ""
        var withoutAttached: String?
        if let body {
            var reader = Reader(bytes: body)
            guard let text = reader.string(), let hasOther = reader.number() else { return nil }
            bodyText = text
            if hasOther == 1 {
                guard let text = reader.string() else { return nil }
                withoutAttached = text
            }
            guard reader.isAtEnd else { return nil }
        }
        self.init(
            fields: fields, addressText: addresses, bodyText: bodyText, partHeadersText: partHeaders,
            bodyTextWithoutAttachedHeaders: withoutAttached, sentDate: sentDate, sentTimestamp: sentTimestamp)
    }

    /// The text as one run of bytes: ``encodedParts()``, each part length-prefixed.
    public func encoded() -> [UInt8] {
        let (header, body) = encodedParts()
        var writer = Writer()
        writer.number(header.count)
        writer.bytes += header
        writer.number(body.count)
        writer.bytes += body
        return writer.bytes
    }

    /// The text stored by ``encoded()``; nil when the bytes are not such a text.
    public init?(encoded bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        guard let header = reader.run(), let body = reader.run(), reader.isAtEnd else { return nil }
        self.init(header: header, body: body)
    }

    private struct Writer {
        var bytes: [UInt8] = []

        /// A non-negative number, seven bits a byte, low first.
        mutating func number(_ value: Int) {
            var value = UInt64(value)
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        mutating func string(_ text: String) {
            number(text.utf8.count)
            bytes.append(contentsOf: text.utf8)
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func number() -> Int? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count, shift < 63 {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value <= UInt64(Int.max) ? Int(value) : nil }
                shift += 7
            }
            return nil
        }

        mutating func string() -> String? {
            guard let count = number(), count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
        }

        mutating func run() -> [UInt8]? {
            guard let count = number(), count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }
    }
}
