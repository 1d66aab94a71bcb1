/// A capability name as CAPABILITY lists it (RFC 3501 7.2.1), compared case-insensitively.
public struct Capability: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as the server wrote it (`LITERAL+`, `AUTH=PLAIN`).
    public let rawValue: String
    private let folded: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
        self.folded = rawValue.uppercased()
    }

    public init(stringLiteral value: String) { self.init(value) }

    public var description: String { rawValue }

    public static func == (lhs: Capability, rhs: Capability) -> Bool { lhs.folded == rhs.folded }
    public func hash(into hasher: inout Hasher) { hasher.combine(folded) }

    /// `AUTH=mechanism`.
    public static func auth(_ mechanism: String) -> Capability { Capability("AUTH=\(mechanism)") }

    /// The SASL mechanism when this is `AUTH=...`.
    public var authenticationMechanism: String? {
        folded.hasPrefix("AUTH=") ? String(rawValue.dropFirst(5)) : nil
    }

    public static let imap4rev1: Capability = "IMAP4rev1"
    public static let imap4rev2: Capability = "IMAP4rev2"
    public static let literalPlus: Capability = "LITERAL+"
    public static let literalMinus: Capability = "LITERAL-"
    public static let saslIR: Capability = "SASL-IR"
    public static let startTLS: Capability = "STARTTLS"
    public static let loginDisabled: Capability = "LOGINDISABLED"
    public static let idle: Capability = "IDLE"
    public static let id: Capability = "ID"
    public static let enable: Capability = "ENABLE"
    public static let sort: Capability = "SORT"
    /// RFC 5957: the DISPLAYFROM and DISPLAYTO sort keys.
    public static let sortDisplay: Capability = "SORT=DISPLAY"
    public static let esearch: Capability = "ESEARCH"
    public static let condstore: Capability = "CONDSTORE"
    public static let qresync: Capability = "QRESYNC"
    public static let uidPlus: Capability = "UIDPLUS"
    public static let move: Capability = "MOVE"
    public static let namespace: Capability = "NAMESPACE"
    public static let unselect: Capability = "UNSELECT"
    public static let binary: Capability = "BINARY"
    public static let preview: Capability = "PREVIEW"
    public static let within: Capability = "WITHIN"
    public static let searchResults: Capability = "SEARCHRES"
    public static let utf8Accept: Capability = "UTF8=ACCEPT"
    public static let gmailExtensions: Capability = "X-GM-EXT-1"
    public static let specialUse: Capability = "SPECIAL-USE"
}

extension ByteCursor {
    // capability = ("AUTH=" auth-type) / atom
    /// One capability name. Tolerates `]`-free loose atoms (some servers send odd names).
    public mutating func parseCapability() throws(IMAPParseError) -> Capability {
        let start = index
        while let byte = peek, byte > 0x20, byte != UInt8(ascii: "]"), byte != UInt8(ascii: ")"), byte != 0x7F {
            index += 1
        }
        guard index > start else { throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected a capability") }
        return Capability(String(decoding: storage[start..<index], as: UTF8.self))
    }

    // capability-data = "CAPABILITY" *(SP capability) SP "IMAP4rev1" *(SP capability)
    /// Capabilities separated by spaces, up to the end of the line or a `]`.
    public mutating func parseCapabilityList() throws(IMAPParseError) -> [Capability] {
        var capabilities: [Capability] = []
        while true {
            skipSpaces()
            guard let byte = peek, byte != UInt8(ascii: "\r"), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "]")
            else { break }
            capabilities.append(try parseCapability())
        }
        return capabilities
    }
}

extension EncodeBuffer {
    /// Writes a capability name.
    public mutating func write(_ capability: Capability) { writeRaw(capability.rawValue) }
}
