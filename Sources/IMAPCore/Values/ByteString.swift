/// Bytes of an IMAP string (atom, quoted or literal) as they arrived, without a copy.
///
/// Most of what a server sends is 7-bit text, but quoted strings may carry UTF-8 and literals any
/// octets, so the bytes are kept exactly; `string` decodes them as UTF-8 (invalid sequences become
/// U+FFFD) when text is wanted.
public struct ByteString: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible,
    CustomDebugStringConvertible
{
    /// The bytes; a slice of the parsed frame when it came from a parser.
    public var bytes: ArraySlice<UInt8>

    /// Wraps `bytes`.
    @inlinable public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// Wraps `bytes`.
    @inlinable public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    /// The UTF-8 bytes of `text`.
    public init(_ text: String) { self.bytes = Array(text.utf8)[...] }

    public init(stringLiteral value: String) { self.init(value) }

    /// The bytes decoded as UTF-8.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// The number of bytes.
    @inlinable public var count: Int { bytes.count }

    /// Whether there are no bytes.
    @inlinable public var isEmpty: Bool { bytes.isEmpty }

    /// Whether every byte is 7-bit ASCII.
    @inlinable public var isASCII: Bool { bytes.allSatisfy { $0 < 0x80 } }

    public var description: String { string }
    public var debugDescription: String { string.debugDescription }

    public static func == (lhs: ByteString, rhs: ByteString) -> Bool { lhs.bytes.elementsEqual(rhs.bytes) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        for byte in bytes { hasher.combine(byte) }
    }

    /// Case-insensitive (ASCII) comparison with `other`.
    public func equalsCaseInsensitive(_ other: String) -> Bool {
        let otherBytes = other.utf8
        guard otherBytes.count == bytes.count else { return false }
        // An index walk, not `zip` (see `MIMEHeader.hasName`).
        var index = bytes.startIndex
        for rhs in otherBytes {
            let lhs = bytes[index]
            guard lhs == rhs || (isASCIILetter(lhs) && isASCIILetter(rhs) && lhs | 0x20 == rhs | 0x20) else {
                return false
            }
            index += 1
        }
        return true
    }
}
