public import IMAPCore
import MailMIME

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A stored message with everything IMAP asks about it: parsed once when it is stored, so FETCH
/// and SEARCH never parse MIME again.
///
/// The IMAP views follow RFC 3501 and, where the RFC leaves room, match Dovecot 2.3 byte for
/// byte (`Tests/MockIMAPServerTests/IndexedMessageTests.swift` compares them with a real Dovecot):
/// ENVELOPE strings are the raw header text (RFC 2047 words still encoded), BODYSTRUCTURE keeps
/// the case of types and parameters as written, sizes count CRLF line endings.
///
/// ```
/// let message = IndexedMessage(bytes: Array(raw))
/// message.size                                       // RFC822.SIZE
/// message.envelope.subject                           // "=?utf-8?q?R=C3=A9union?="
/// message.section(SectionSpecifier(part: [2], kind: .mime))
/// message.matchesSubstring("réunion", in: message.headerText("subject") ?? "")
/// ```
public struct IndexedMessage: Sendable {
    /// The message with CRLF line endings (bare LFs are converted when it is stored, as real
    /// servers store mail).
    public let bytes: [UInt8]
    /// The parsed MIME tree over `bytes`.
    let mime: MIMEMessage
    /// RFC 8970 PREVIEW text.
    public let preview: String
    /// The day of the Date header in the header's own time zone (SENTBEFORE, SENTON, SENTSINCE
    /// compare it); nil without a readable Date header.
    public let sentDate: IMAPDate?
    /// The instant of the Date header, seconds since 1970 UTC (SORT DATE); nil without one.
    public let sentTimestamp: Int?
    /// Every header field as `name: value` lines, unfolded and RFC 2047 decoded (for TEXT).
    public let allHeadersText: String
    /// The FROM, TO, CC and BCC address lists as SEARCH matches them (RFC 3501 6.4.4: "the
    /// envelope structure's FROM field"), keyed by lowercase field name: `addressText["from"]`.
    /// Each list is written out again from its parsed addresses, display names RFC 2047 decoded,
    /// then case folded: `Grace Jones <grace@apple.com>, group: a@b.org, c@d.org;`. So a display
    /// name and a whole `user@domain` are found alike, whatever comments, quotes or folding the
    /// header had (`<user (comment)@ domain.org>` is `user@domain.org`), as Dovecot matches.
    /// Absent fields have no key.
    public let addressText: [String: String]
    /// The decoded text of the body: every `text/*` part transfer decoded and converted to
    /// UTF-8, HTML reduced to its text, the content of other `message/*` parts
    /// (`message/delivery-status`, `message/external-body`) as text, and the header of each
    /// encapsulated message (for BODY).
    public let bodyText: String
    /// The MIME headers of the body parts (`Content-Type: text/plain; charset=...` of each part
    /// of a multipart), unfolded and RFC 2047 decoded: in the message's body (RFC 5322 2.1, and
    /// BODY[TEXT] holds them), so TEXT finds them; BODY, like Dovecot's, looks at the parts'
    /// content only.
    public let partHeadersText: String
    /// Where each field's decoded value lies in `allHeadersText`.
    private let headerIndex: [HeaderEntry]

    private struct HeaderEntry: Sendable {
        var name: String
        var value: Range<String.Index>
    }

    /// Parses `bytes` once and builds the search index.
    public init(bytes: [UInt8]) {
        let normalized = Self.normalizingLineEndings(bytes)
        self.bytes = normalized
        let mime = MIMEMessage(bytes: normalized)
        self.mime = mime

        var headerBytes: [UInt8] = []
        headerBytes.reserveCapacity(mime.header.byteRange.count + 64)
        var ranges: [(String, Range<Int>)] = []
        ranges.reserveCapacity(mime.header.fields.count)
        var addresses: [String: String] = [:]
        for field in mime.header.fields {
            let name = field.lowercasedName
            headerBytes.append(contentsOf: name.utf8)
            headerBytes.append(contentsOf: [UInt8(ascii: ":"), 0x20])
            let start = headerBytes.count
            Self.appendDecodedValue(of: field, to: &headerBytes)
            ranges.append((name, start..<headerBytes.count))
            if name == "from" || name == "to" || name == "cc" || name == "bcc" {
                let folded = CaseFolding.fold(
                    Self.addressSearchText(MailEnvelope.addresses(MIMESyntax.trimmedValue(field.rawValue))))
                addresses[name] = addresses[name].map { $0 + "\n" + folded } ?? folded
            }
            headerBytes.append(0x0A)
        }
        let headersText = String(decoding: headerBytes, as: UTF8.self)
        let utf8 = headersText.utf8
        self.headerIndex = ranges.map { name, range in
            let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            return HeaderEntry(name: name, value: lower..<utf8.index(lower, offsetBy: range.count))
        }
        self.allHeadersText = headersText
        self.addressText = addresses

        (self.bodyText, self.partHeadersText) = Self.bodyTexts(of: mime)
        self.preview = PreviewText.make(for: mime)

        if let dateField = mime.header.firstField(named: "date"), let date = DateHeader.parse(bytes: dateField.rawValue)
        {
            self.sentDate = IMAPDate(year: date.year, month: date.month, day: date.day)
            self.sentTimestamp = date.timestamp
        } else {
            self.sentDate = nil
            self.sentTimestamp = nil
        }
    }

    /// Appends the unfolded, RFC 2047 decoded value of `field` as UTF-8.
    private static func appendDecodedValue(of field: MIMEHeaderField, to output: inout [UInt8]) {
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
    static func addressSearchText(_ addresses: [MailEnvelope.Address]) -> String {
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

    /// RFC822.SIZE: the number of bytes, with CRLF line endings.
    public var size: Int { bytes.count }

    // MARK: Search

    /// The values of all header fields called `name` (case-insensitive), unfolded, RFC 2047
    /// decoded and joined with "\n": "" when the field exists but is empty, nil when absent
    /// (`HEADER name ""` tests presence).
    public func headerText(_ name: String) -> String? {
        let wanted = name.lowercased()
        var result: String?
        for entry in headerIndex where entry.name == wanted {
            let value = allHeadersText[entry.value]
            if let existing = result {
                result = existing + "\n" + value
            } else {
                result = String(value)
            }
        }
        return result
    }

    /// The value of the header field called `name` (lowercase) when the header has exactly one
    /// such field, without copying it (SUBJECT and HEADER over many messages); nil when it has
    /// none or several (``headerText(_:)`` joins those).
    func soleHeaderValue(lowercasedName name: String) -> Substring? {
        var found: Substring?
        for entry in headerIndex where entry.name == name {
            if found != nil { return nil }
            found = allHeadersText[entry.value]
        }
        return found
    }

    /// The value of the first header field called `name` (case-insensitive), unfolded and RFC
    /// 2047 decoded; nil when absent.
    public func firstHeaderText(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headerIndex.first { $0.name == wanted }.map { String(allHeadersText[$0.value]) }
    }

    /// Whether `haystack` contains `needle`, ignoring case by Unicode simple case folding, as
    /// every SEARCH string key compares (RFC 3501 6.4.4: "case-insensitive substring"). Dovecot
    /// folds with i;unicode-casemap (RFC 5051), which also strips accents by decomposition; this
    /// does not (`e` does not find `é`).
    public func matchesSubstring(_ needle: String, in haystack: String) -> Bool {
        CaseFolding.contains(haystack, needle)
    }

    // MARK: Building

    /// `bytes` with every LF that lacks its CR given one.
    static func normalizingLineEndings(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { buffer -> [UInt8] in
            guard let base = buffer.baseAddress else { return bytes }
            var bare: [Int] = []
            var position = 0
            while position < buffer.count, let found = memchr(base + position, 0x0A, buffer.count - position) {
                let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if index == 0 || buffer[index - 1] != 0x0D { bare.append(index) }
                position = index + 1
            }
            guard !bare.isEmpty else { return bytes }
            var output: [UInt8] = []
            output.reserveCapacity(buffer.count + bare.count)
            var start = 0
            for index in bare {
                output.append(contentsOf: buffer[start..<index])
                output.append(0x0D)
                start = index
            }
            output.append(contentsOf: buffer[start...])
            return output
        }
    }

    /// The searchable text of the body and the headers of its parts (see ``bodyText`` and
    /// ``partHeadersText``).
    private static func bodyTexts(of message: MIMEMessage) -> (body: String, partHeaders: String) {
        var text: [UInt8] = []
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
                visit(inner.root, headerSearched: true)
            case .single:
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
            }
        }
        visit(message.root, headerSearched: true)
        return (String(decoding: text, as: UTF8.self), String(decoding: partHeaders, as: UTF8.self))
    }
}
