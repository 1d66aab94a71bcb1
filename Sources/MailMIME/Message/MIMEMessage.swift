/// A message (RFC 5322) parsed into its MIME tree (RFC 2045, RFC 2046), leniently: any bytes give
/// a best-effort structure, never an error. A message without a header, with bare LF line
/// endings, with broken boundaries, unknown charsets or truncated base64 still yields parts.
///
/// ```
/// let message = MIMEMessage(bytes: Array(raw))
/// message.header.decodedValue("subject")        // "Réunion de lundi"
/// message.root.children.map(\.contentType.mimeType)   // ["text/plain", "application/pdf"]
/// ```
public struct MIMEMessage: Sendable {
    /// The bytes the message's ranges index into. For an encapsulated message these are the
    /// bytes of the outermost message; ``byteRange`` says where this one lies.
    public let bytes: [UInt8]
    /// Where the message lies in ``bytes`` (all of them for a top-level message).
    public let byteRange: Range<Int>
    /// The top-level entity: the message's header and body.
    public var root: MIMEPart

    /// Parses `bytes`.
    public init(bytes: [UInt8]) {
        var parser = MIMEParser(bytes: bytes, range: 0..<bytes.count)
        self.bytes = bytes
        self.byteRange = 0..<bytes.count
        self.root = parser.parseEntity(at: 0, isMultipartChild: false, inDigest: false, depth: 0).0
    }

    /// A message already parsed (an encapsulated one).
    init(bytes: [UInt8], byteRange: Range<Int>, root: MIMEPart) {
        self.bytes = bytes
        self.byteRange = byteRange
        self.root = root
    }

    /// The message header.
    public var header: MIMEHeader { root.header }

    /// The leaf parts in order, depth first, including those of encapsulated messages.
    public var leafParts: [MIMEPart] {
        var result: [MIMEPart] = []
        func visit(_ part: MIMEPart) {
            switch part.kind {
            case .multipart: part.children.forEach(visit)
            case .message:
                if let root = part.encapsulatedMessage?.root { visit(root) } else { result.append(part) }
            case .single: result.append(part)
            }
        }
        visit(root)
        return result
    }
}
