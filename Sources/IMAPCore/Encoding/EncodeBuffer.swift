/// How an encoder may write strings, decided by what the peer announced.
public struct EncodingOptions: Hashable, Sendable {
    /// How literals are announced.
    public enum LiteralMode: Hashable, Sendable {
        /// `{n}`, then wait for the server's `+` (RFC 3501 without extensions).
        case synchronizing
        /// `{n+}` for any size (RFC 7888 LITERAL+).
        case literalPlus
        /// `{n+}` up to 4096 bytes, `{n}` beyond (RFC 7888 LITERAL-, and IMAP4rev2).
        case literalMinus
        /// A server writing responses: `{n}` and no waiting.
        case server
    }

    /// How literals are announced.
    public var literalMode: LiteralMode
    /// Whether UTF-8 may be sent inside quoted strings (IMAP4rev2, or after ENABLE UTF8=ACCEPT).
    public var utf8Quoted: Bool
    /// Longest value sent quoted; longer values become literals.
    public var maximumQuotedLength: Int

    /// Options for a client; the defaults suit a bare IMAP4rev1 server.
    public init(literalMode: LiteralMode = .synchronizing, utf8Quoted: Bool = false, maximumQuotedLength: Int = 70) {
        self.literalMode = literalMode
        self.utf8Quoted = utf8Quoted
        self.maximumQuotedLength = maximumQuotedLength
    }

    /// Options for a server writing responses.
    public static let server = EncodingOptions(literalMode: .server, utf8Quoted: true, maximumQuotedLength: 1000)

    /// The options a client may use with a server that announced `capabilities`.
    public static func client(capabilities: some Sequence<Capability>, utf8Enabled: Bool = false) -> EncodingOptions {
        let set = Set(capabilities)
        let literalMode: LiteralMode =
            set.contains(.literalPlus)
            ? .literalPlus : (set.contains(.literalMinus) || set.contains(.imap4rev2)) ? .literalMinus : .synchronizing
        return EncodingOptions(literalMode: literalMode, utf8Quoted: utf8Enabled || set.contains(.imap4rev2))
    }
}

/// Output of an encoder, cut where a synchronizing literal needs the peer's `+` first.
///
/// `C: a1 SEARCH CHARSET UTF-8 FROM {7}` is one chunk that waits for the continuation; `Müller`
/// and the CRLF are the next.
public struct EncodedChunk: Hashable, Sendable {
    /// Bytes to send.
    public var bytes: [UInt8]
    /// Whether the sender must wait for a continuation request (`+`) after sending these bytes.
    public var waitsForContinuation: Bool

    public init(bytes: [UInt8], waitsForContinuation: Bool) {
        self.bytes = bytes
        self.waitsForContinuation = waitsForContinuation
    }
}

/// A buffer that encoders write into; it chooses atom, quoted string or literal for each value.
public struct EncodeBuffer: Sendable {
    /// The rules for strings and literals.
    public var options: EncodingOptions
    private var finishedChunks: [EncodedChunk] = []
    private var current: [UInt8] = []

    /// An empty buffer.
    public init(options: EncodingOptions = .init()) {
        self.options = options
        current.reserveCapacity(256)
    }

    /// Takes everything written so far, cut into chunks.
    public mutating func takeChunks() -> [EncodedChunk] {
        var chunks = finishedChunks
        if !current.isEmpty { chunks.append(EncodedChunk(bytes: current, waitsForContinuation: false)) }
        finishedChunks = []
        current = []
        return chunks
    }

    /// Takes everything written so far as one byte array (for servers, tests and display).
    public mutating func takeBytes() -> [UInt8] {
        let bytes = bytesForDisplay
        finishedChunks = []
        current = []
        return bytes
    }

    /// Everything written so far, joined.
    public var bytesForDisplay: [UInt8] { finishedChunks.flatMap(\.bytes) + current }

    /// Writes ASCII text as it is (keywords, punctuation).
    @inlinable public mutating func writeRaw(_ text: StaticString) {
        text.withUTF8Buffer { appendBytes($0) }
    }

    /// Writes text as it is.
    public mutating func writeRaw(_ text: String) { appendBytes(text.utf8) }

    /// Writes bytes as they are.
    public mutating func writeBytes<Bytes: Sequence<UInt8>>(_ bytes: Bytes) { appendBytes(bytes) }

    @usableFromInline mutating func appendBytes<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        current.append(contentsOf: bytes)
    }

    /// Writes a decimal number.
    public mutating func writeNumber<Number: BinaryInteger>(_ value: Number) {
        if value < 10 {
            current.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        writeRaw(String(value))
    }

    /// Writes one SP.
    public mutating func writeSpace() { current.append(UInt8(ascii: " ")) }

    /// Writes CRLF.
    public mutating func writeCRLF() {
        current.append(UInt8(ascii: "\r"))
        current.append(UInt8(ascii: "\n"))
    }

    /// Writes `(item item ...)`.
    public mutating func writeList<Items: Sequence>(
        _ items: Items, _ write: (inout EncodeBuffer, Items.Element) -> Void
    ) {
        writeRaw("(")
        var first = true
        for item in items {
            if !first { writeSpace() }
            first = false
            write(&self, item)
        }
        writeRaw(")")
    }

    /// Writes a string as a quoted string when it can be one, else as a literal.
    ///
    /// Quoted: at most `maximumQuotedLength` bytes, no CR, LF or NUL, and 7-bit unless
    /// `utf8Quoted` allows valid UTF-8. Everything else is a literal.
    public mutating func writeString(_ value: ByteString) {
        if canQuote(value.bytes) {
            writeQuoted(value.bytes)
        } else {
            writeLiteral(value.bytes)
        }
    }

    /// Writes a string as an atom when every byte is an ASTRING-CHAR, else like `writeString`.
    public mutating func writeAString(_ value: ByteString) {
        if !value.isEmpty && value.bytes.allSatisfy({ CharacterClass.table[Int($0)].contains(.astring) })
            && !value.equalsCaseInsensitive("NIL")
        {
            appendBytes(value.bytes)
        } else {
            writeString(value)
        }
    }

    /// Writes NIL for nil, else the string.
    public mutating func writeNString(_ value: ByteString?) {
        if let value { writeString(value) } else { writeRaw("NIL") }
    }

    /// Writes a quoted string, escaping `"` and `\`. The caller has checked `canQuote`.
    public mutating func writeQuoted<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        current.append(UInt8(ascii: "\""))
        for byte in bytes {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { current.append(UInt8(ascii: "\\")) }
            current.append(byte)
        }
        current.append(UInt8(ascii: "\""))
    }

    /// Writes a literal, announced as the literal mode allows; a synchronizing literal ends the
    /// current chunk so the sender waits for `+`.
    public mutating func writeLiteral<Bytes: Collection<UInt8>>(_ bytes: Bytes, binary: Bool = false) {
        let count = bytes.count
        if binary { current.append(UInt8(ascii: "~")) }
        current.append(UInt8(ascii: "{"))
        writeNumber(count)
        let nonSynchronizing: Bool
        switch options.literalMode {
        case .synchronizing: nonSynchronizing = false
        case .literalPlus: nonSynchronizing = true
        case .literalMinus: nonSynchronizing = count <= 4096
        case .server: nonSynchronizing = false
        }
        if nonSynchronizing { current.append(UInt8(ascii: "+")) }
        current.append(UInt8(ascii: "}"))
        writeCRLF()
        if options.literalMode != .server && !nonSynchronizing {
            finishedChunks.append(EncodedChunk(bytes: current, waitsForContinuation: true))
            current = []
        }
        current.append(contentsOf: bytes)
    }

    /// Whether `bytes` may be sent as a quoted string under the current options.
    public func canQuote<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        guard bytes.count <= options.maximumQuotedLength else { return false }
        var hasHighBit = false
        for byte in bytes {
            if byte == 0 || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") { return false }
            if byte >= 0x80 {
                hasHighBit = true
            } else if byte < 0x20 || byte == 0x7F {
                return false
            }
        }
        if hasHighBit {
            guard options.utf8Quoted else { return false }
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: break loop
                case .error: return false
                }
            }
        }
        return true
    }
}
