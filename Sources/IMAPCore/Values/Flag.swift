/// A message flag: a system flag (`\Seen`) or a keyword (`$Pinned`), RFC 3501 2.3.2.
///
/// System flags compare case-insensitively and are stored in their canonical spelling; keywords
/// keep the spelling the server used and compare case-insensitively too, as RFC 9051 2.3.2 says.
public struct Flag: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The flag as it goes on the wire (`\Seen`, `$Forwarded`).
    public let rawValue: String

    /// A flag from its wire spelling. System flags are canonicalised (`\SEEN` -> `\Seen`).
    public init(_ rawValue: String) {
        if rawValue.utf8.first == UInt8(ascii: "\\") {
            let lowered = rawValue.lowercased()
            self.rawValue = Self.systemSpellings.first { $0.lowercased() == lowered } ?? rawValue
        } else {
            self.rawValue = rawValue
        }
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// A keyword flag; keywords are atoms without a leading backslash.
    public static func keyword(_ name: String) -> Flag { Flag(name) }

    public static let seen = Flag(canonical: "\\Seen")
    public static let answered = Flag(canonical: "\\Answered")
    public static let flagged = Flag(canonical: "\\Flagged")
    public static let deleted = Flag(canonical: "\\Deleted")
    public static let draft = Flag(canonical: "\\Draft")
    public static let recent = Flag(canonical: "\\Recent")
    /// `\*` in PERMANENTFLAGS: the client may create new keywords.
    public static let wildcard = Flag(canonical: "\\*")

    static let systemSpellings = ["\\Seen", "\\Answered", "\\Flagged", "\\Deleted", "\\Draft", "\\Recent", "\\*"]

    private init(canonical: String) { self.rawValue = canonical }

    /// Whether this is a system flag (starts with a backslash).
    public var isSystemFlag: Bool { rawValue.utf8.first == UInt8(ascii: "\\") }

    public var description: String { rawValue }

    public static func == (lhs: Flag, rhs: Flag) -> Bool {
        lhs.rawValue == rhs.rawValue || lhs.rawValue.lowercased() == rhs.rawValue.lowercased()
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue.lowercased()) }
}

extension ByteCursor {
    // flag = "\Answered" / "\Flagged" / "\Deleted" / "\Seen" / "\Draft" / flag-keyword / flag-extension
    // flag-perm = flag / "\*"
    /// One flag. Tolerates keywords that contain `[` or `]`, as Gmail sends them.
    @inlinable public mutating func parseFlag() throws(IMAPParseError) -> Flag {
        let bytes = try parseLooseAtom()
        if bytes.first == UInt8(ascii: "\\") {
            // Fast path for the common system flags: no lowercasing or search.
            // The bytes against a literal's (comparing with a String's UTF8View cost more than
            // parsing the whole flag list).
            func equals(_ literal: StaticString) -> Bool {
                literal.withUTF8Buffer { expected in
                    guard expected.count == bytes.count else { return false }
                    var position = bytes.startIndex
                    for byte in expected {
                        guard bytes[position] == byte else { return false }
                        position += 1
                    }
                    return true
                }
            }
            switch bytes.count {
            case 5 where bytes.last == UInt8(ascii: "n") && equals("\\Seen"): return .seen
            case 8 where equals("\\Flagged"): return .flagged
            case 9 where equals("\\Answered"): return .answered
            case 8 where equals("\\Deleted"): return .deleted
            case 6 where equals("\\Draft"): return .draft
            case 7 where equals("\\Recent"): return .recent
            default: break
            }
        }
        return Flag(String(decoding: bytes, as: UTF8.self))
    }

    // flag-list = "(" [flag *(SP flag)] ")"
    /// A parenthesized list of flags.
    @inlinable public mutating func parseFlagList() throws(IMAPParseError) -> [Flag] {
        try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> Flag in try cursor.parseFlag() }
    }
}

extension EncodeBuffer {
    /// Writes a flag as an atom.
    public mutating func write(_ flag: Flag) { writeRaw(flag.rawValue) }

    /// Writes `(flag flag ...)`.
    public mutating func write(_ flags: [Flag]) {
        writeList(flags) { buffer, flag in buffer.write(flag) }
    }
}
