/// A protocol error: the bytes do not follow the IMAP grammar, or break a limit of `ParserOptions`.
///
/// It names the byte offset in the stream and shows the bytes around it, so a user can see what
/// the server (or client) actually sent. Arguments of LOGIN and AUTHENTICATE are redacted from the
/// excerpt.
public struct IMAPParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of protocol error this is. New codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A byte that the grammar does not allow at this place.
        public static let unexpectedByte = Code("unexpectedByte")
        /// The frame ended where the grammar needs more.
        public static let unexpectedEnd = Code("unexpectedEnd")
        /// A number too large for its field.
        public static let numberOutOfRange = Code("numberOutOfRange")
        /// A line longer than `ParserOptions.maximumLineLength`.
        public static let lineTooLong = Code("lineTooLong")
        /// A literal larger than `ParserOptions.maximumLiteralSize`.
        public static let literalTooLarge = Code("literalTooLarge")
        /// Parentheses nested deeper than `ParserOptions.maximumNestingDepth`.
        public static let nestingTooDeep = Code("nestingTooDeep")
        /// A whole frame (response or command) larger than `ParserOptions.maximumFrameSize`.
        public static let frameTooLarge = Code("frameTooLarge")
        /// A date or time that does not exist.
        public static let invalidDate = Code("invalidDate")
        /// A command name the parser does not know.
        public static let unknownCommand = Code("unknownCommand")
    }

    /// The kind of error.
    public let code: Code
    /// What was expected, in words.
    public let message: String
    /// Offset of the offending byte from the start of the stream.
    public let offset: Int
    /// The bytes around the offset, printable, with credentials redacted.
    public let excerpt: String

    /// An error at `offsetInFrame` of `frame`.
    public init(code: Code, message: String, frame: [UInt8], offsetInFrame: Int, streamOffset: Int = 0) {
        self.code = code
        self.message = message
        self.offset = streamOffset + offsetInFrame
        self.excerpt = Self.excerpt(of: frame, around: offsetInFrame)
    }

    /// An error with no frame (a limit that is broken before a frame is complete).
    public init(code: Code, message: String, offset: Int, excerpt: String) {
        self.code = code
        self.message = message
        self.offset = offset
        self.excerpt = excerpt
    }

    public var description: String {
        "IMAP protocol error at byte \(offset): \(message); near \(excerpt)"
    }

    /// Up to 40 bytes either side of `position`, with `>>>` marking it. LOGIN and AUTHENTICATE
    /// arguments are replaced by `***` before the excerpt is cut.
    static func excerpt(of frame: [UInt8], around position: Int) -> String {
        let redacted = Redaction.redactCredentials(in: frame)
        let clamped = min(max(position, 0), redacted.count)
        let lower = max(0, clamped - 40)
        let upper = min(redacted.count, clamped + 40)
        return "\"" + printable(redacted[lower..<clamped]) + ">>>" + printable(redacted[clamped..<upper]) + "\""
    }

    static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\r"): text += "\\r"
            case UInt8(ascii: "\n"): text += "\\n"
            case UInt8(ascii: "\\"): text += "\\\\"
            case UInt8(ascii: "\""): text += "\\\""
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return text
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
