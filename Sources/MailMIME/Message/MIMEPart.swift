/// One entity of a message's MIME tree (RFC 2045, RFC 2046): the message itself, a part of a
/// multipart, or the body of an encapsulated message.
///
/// Parts hold ranges into the message's bytes, not copies; pass the ``MIMEMessage`` they came
/// from to read their bodies.
///
/// ```
/// let message = MIMEMessage(bytes: raw)
/// for part in message.root.children where part.contentType.isText {
///     print(part.text(in: message) ?? "")
/// }
/// ```
public struct MIMEPart: Sendable {
    /// What the body of a part holds.
    public enum Kind: Hashable, Sendable {
        /// A body of its own (text, an image, an attachment).
        case single
        /// `multipart/*`: the body is a list of parts, in ``MIMEPart/children``.
        case multipart
        /// `message/rfc822` or `message/global`: the body is a whole message, in
        /// ``MIMEPart/encapsulatedMessage``.
        case message
    }

    /// The part's header (for a multipart's parts, its MIME header).
    public var header: MIMEHeader
    /// Single body, multipart, or encapsulated message.
    public var kind: Kind
    /// Whether the part is a MIME entity whose Content-* fields count: it has MIME-Version or
    /// Content-Type, or is a part of a multipart (RFC 2045 section 4).
    public var isMIME: Bool
    /// The content type: the Content-Type field, or `text/plain; charset=us-ascii` without one
    /// (`message/rfc822` inside `multipart/digest`).
    public var contentType: ContentType
    /// The Content-Transfer-Encoding mechanism, lowercased: `7bit` when absent or malformed.
    public var transferEncoding: String
    /// Where the body lies in the message bytes: after the header's empty line, up to the line
    /// break before the next boundary (or the end).
    public var bodyRange: Range<Int>
    /// The number of line feeds in the body.
    public var lineCount: Int
    /// The parts of a multipart, in order.
    public var children: [MIMEPart] = []
    private var encapsulated: MessageBox?

    /// A part.
    public init(
        header: MIMEHeader, kind: Kind, isMIME: Bool, contentType: ContentType, transferEncoding: String,
        bodyRange: Range<Int>, lineCount: Int, children: [MIMEPart] = [], encapsulatedMessage: MIMEMessage? = nil
    ) {
        self.header = header
        self.kind = kind
        self.isMIME = isMIME
        self.contentType = contentType
        self.transferEncoding = transferEncoding
        self.bodyRange = bodyRange
        self.lineCount = lineCount
        self.children = children
        self.encapsulated = encapsulatedMessage.map(MessageBox.init)
    }

    /// The message in the body of a `message/rfc822` (or `message/global`) part.
    public var encapsulatedMessage: MIMEMessage? {
        get { encapsulated?.message }
        set { encapsulated = newValue.map(MessageBox.init) }
    }

    /// The size of the body in bytes, as it is encoded.
    public var size: Int { bodyRange.count }

    // MARK: MIME fields

    /// The first field called `name` if the part is a MIME entity.
    private func mimeField(_ name: String) -> MIMEHeaderField? { isMIME ? header.firstField(named: name) : nil }

    /// The Content-Disposition field (RFC 2183), when present.
    public var disposition: ContentDisposition? {
        mimeField("content-disposition").flatMap { ContentDisposition(parsing: $0.rawValue) }
    }

    /// The Content-ID field (RFC 2045 section 7), unfolded.
    public var contentID: String? { mimeField("content-id")?.value }

    /// The Content-Description field (RFC 2045 section 8), unfolded and RFC 2047 decoded.
    public var contentDescription: String? { mimeField("content-description")?.decodedValue }

    /// The Content-Location field (RFC 2557), unfolded.
    public var contentLocation: String? { mimeField("content-location")?.value }

    /// The Content-MD5 field (RFC 1864).
    public var contentMD5: String? { mimeField("content-md5")?.value }

    /// The language tags of the Content-Language field (RFC 3282).
    public var contentLanguage: [String] {
        guard let field = mimeField("content-language") else { return [] }
        return MIMESyntax.languageTags(field.rawValue).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The file name: Content-Disposition `filename`, else Content-Type `name`.
    public var filename: String? { disposition?.filename ?? contentType.parameter("name") }

    // MARK: Body

    /// The body with its transfer encoding undone (base64, quoted-printable; 7bit, 8bit, binary
    /// and unknown encodings as they are).
    public func decodedBody(in message: MIMEMessage) -> [UInt8] {
        Self.decodeTransferEncoding(message.bytes[bodyRange], encoding: transferEncoding)
    }

    /// `body` with the transfer encoding `encoding` (any case) undone: base64, quoted-printable;
    /// 7bit, 8bit, binary and unknown encodings as they are.
    public static func decodeTransferEncoding(_ body: ArraySlice<UInt8>, encoding: String) -> [UInt8] {
        switch encoding.lowercased() {
        case "base64": return Base64.decode(body)
        case "quoted-printable": return QuotedPrintable.decode(body)
        default: return Array(body)
        }
    }

    /// The first bytes of a body whose transfer encoding is `encoding`, decoded into a prefix of
    /// what ``decodeTransferEncoding(_:encoding:)`` makes of the whole body: base64 up to the
    /// last whole 4-character group, quoted-printable up to the last line break (a cut `=XX` or
    /// soft line break would decode to something else).
    public static func decodeTransferEncodingStart(_ bodyStart: ArraySlice<UInt8>, encoding: String) -> [UInt8] {
        switch encoding.lowercased() {
        case "base64":
            return Base64.decodeStart(bodyStart)
        case "quoted-printable":
            let lineEnd = bodyStart.lastIndex(of: 0x0A).map { $0 + 1 } ?? bodyStart.startIndex
            return QuotedPrintable.decode(bodyStart[..<lineEnd])
        default:
            return Array(bodyStart)
        }
    }

    /// Whether `decodedBody(in:)` knows the transfer encoding (RFC 2045 section 6.1).
    public var hasKnownTransferEncoding: Bool {
        ["7bit", "8bit", "binary", "base64", "quoted-printable"].contains(transferEncoding)
    }

    /// The text of a `text/*` part: transfer decoded and converted from its charset (US-ASCII
    /// when none is given). Bytes invalid in the charset, or an unknown charset, fall back to
    /// UTF-8 when valid and Windows-1252 otherwise. Nil for other types.
    public func text(in message: MIMEMessage) -> String? {
        guard contentType.isText else { return nil }
        return Self.text(ofDecodedBody: decodedBody(in: message), charset: contentType.charset)
    }

    /// The text of a transfer-decoded `text/*` body in `charset`, as ``text(in:)`` reads it.
    public static func text(ofDecodedBody body: [UInt8], charset: String?) -> String {
        if let charset, let text = Charset.decode(body, charset: charset) { return text }
        return Charset.decode(body, charset: "unknown-8bit") ?? String(decoding: body, as: UTF8.self)
    }

    /// The text of the first bytes of a transfer-decoded `text/*` body in `charset`: a prefix of
    /// what ``text(ofDecodedBody:charset:)`` reads from the whole body, a character cut short
    /// at the end left out (``Charset/decodeStart(_:charset:)``).
    public static func text(ofDecodedBodyStart bodyStart: [UInt8], charset: String?) -> String {
        if let charset, let text = Charset.decodeStart(bodyStart, charset: charset) { return text }
        return Charset.decodeStart(bodyStart, charset: "unknown-8bit") ?? String(decoding: bodyStart, as: UTF8.self)
    }

    /// The part at `path` of part numbers (IMAP style, RFC 3501 6.4.5: `[2, 1]`), nil when there
    /// is none. A part that is not a multipart has one part, number 1: itself; past an
    /// encapsulated message the path continues in that message's parts.
    public func part(at path: [Int]) -> MIMEPart? {
        var part = self
        for (position, number) in path.enumerated() {
            let isLast = position == path.count - 1
            if part.kind == .multipart {
                guard number >= 1, number <= part.children.count else { return nil }
                part = part.children[number - 1]
            } else {
                guard number == 1, isLast || part.kind == .message else { return nil }
            }
            if !isLast, part.kind == .message {
                guard let root = part.encapsulatedMessage?.root else { return nil }
                part = root
            }
        }
        return part
    }
}

/// Holds an encapsulated message, so that a part can contain a message that contains parts.
final class MessageBox: Sendable {
    let message: MIMEMessage

    init(_ message: MIMEMessage) { self.message = message }
}
