/// A read position inside one complete frame of IMAP bytes (a command or a response with all of
/// its literals). Parse functions take it `inout` and restore it when they fail, so a caller can
/// try an alternative without undoing anything.
public struct ByteCursor: Sendable {
    /// The bytes of the frame. Values that carry strings slice this array, so parsing a string
    /// copies nothing.
    public let storage: [UInt8]
    /// The next byte to read.
    public var index: Int
    /// One past the last byte that may be read.
    public let endIndex: Int
    /// How deep the parser is nested in parentheses; checked against `ParserOptions.maximumNestingDepth`.
    public var depth: Int = 0
    /// Limits in force while parsing.
    public let options: ParserOptions
    /// Where `storage[0]` sits in the whole stream, so errors can name a stream offset.
    public let streamOffset: Int

    /// A cursor over all of `storage`.
    public init(_ storage: [UInt8], options: ParserOptions = .init(), streamOffset: Int = 0) {
        self.storage = storage
        self.index = storage.startIndex
        self.endIndex = storage.endIndex
        self.options = options
        self.streamOffset = streamOffset
    }

    /// A cursor over the UTF-8 bytes of `text` (for tests and small inputs).
    public init(_ text: String, options: ParserOptions = .init()) {
        self.init(Array(text.utf8), options: options)
    }

    /// True when every byte has been read.
    @inlinable public var isAtEnd: Bool { index >= endIndex }

    /// The next byte, or nil at the end.
    @inlinable public var peek: UInt8? { index < endIndex ? storage[index] : nil }

    /// The byte after the next one, or nil.
    @inlinable public func peek(offset: Int) -> UInt8? {
        let position = index + offset
        return position < endIndex ? storage[position] : nil
    }

    /// Consumes `byte` if it is next; returns whether it did.
    @inlinable public mutating func consume(_ byte: UInt8) -> Bool {
        if index < endIndex && storage[index] == byte {
            index += 1
            return true
        }
        return false
    }

    /// Consumes one byte, which must be `byte`.
    @inlinable @inline(__always) public mutating func expect(_ byte: UInt8) throws(IMAPParseError) {
        guard index < endIndex, storage[index] == byte else { throw expectationFailure(byte) }
        index += 1
    }

    /// The error for a missing `byte`; kept out of line so the fast path stays small.
    @inline(never) @usableFromInline func expectationFailure(_ byte: UInt8) -> IMAPParseError {
        let what = byte == UInt8(ascii: " ") ? "a space" : "\"\(Character(Unicode.Scalar(byte)))\""
        return error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected \(what)")
    }

    /// Consumes `word` compared case-insensitively (ASCII) if it comes next; returns whether it did.
    public mutating func consumeCaseInsensitive(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= endIndex else { return false }
        // The word's bytes through its pointer: `withUTF8Buffer` cost a closure call per keyword,
        // as for every FETCH response's "FETCH". A one-character literal can be stored as a
        // scalar, without a pointer; it goes through the buffer.
        let matches =
            word.hasPointerRepresentation
            ? matchesCaseInsensitive(word.utf8Start, count: count)
            : word.withUTF8Buffer { matchesCaseInsensitive($0.baseAddress!, count: count) }
        if matches { index += count }
        return matches
    }

    /// Whether the `count` bytes at the cursor (there are that many) spell the `count` bytes at
    /// `expected`, letters compared case-insensitively.
    @inline(__always) private func matchesCaseInsensitive(_ expected: UnsafePointer<UInt8>, count: Int) -> Bool {
        for offset in 0..<count {
            let actual = storage[index + offset]
            let wanted = expected[offset]
            if isASCIILetter(wanted) {
                guard actual | 0x20 == wanted | 0x20 else { return false }
            } else if actual != wanted {
                return false
            }
        }
        return true
    }

    /// Consumes `word` (case-insensitive) and throws if it is not next.
    public mutating func expectCaseInsensitive(_ word: StaticString) throws(IMAPParseError) {
        guard consumeCaseInsensitive(word) else {
            throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected \"\(word)\"")
        }
    }

    /// Consumes one SP. Real servers sometimes send two (`*  22279 EXISTS`), so any run of spaces
    /// is accepted.
    @inlinable @inline(__always) public mutating func expectSpace() throws(IMAPParseError) {
        guard index < endIndex, storage[index] == UInt8(ascii: " ") else { throw expectationFailure(UInt8(ascii: " ")) }
        index += 1
        while index < endIndex && storage[index] == UInt8(ascii: " ") { index += 1 }
    }

    /// Skips any spaces; returns whether there were some.
    @discardableResult @inlinable @inline(__always) public mutating func skipSpaces() -> Bool {
        let start = index
        while index < endIndex && storage[index] == UInt8(ascii: " ") { index += 1 }
        return index > start
    }

    /// Consumes CRLF (a bare LF is tolerated, as some servers send it).
    public mutating func expectCRLF() throws(IMAPParseError) {
        skipSpaces()
        if consume(UInt8(ascii: "\r")) {
            try expect(UInt8(ascii: "\n"))
        } else if !consume(UInt8(ascii: "\n")) {
            throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected the end of the line (CRLF)")
        }
    }

    /// The bytes from `start` to the current position, without copying.
    @inlinable public func slice(from start: Int) -> ArraySlice<UInt8> { storage[start..<index] }

    /// An error at the current position.
    public func error(_ code: IMAPParseError.Code, _ message: String) -> IMAPParseError {
        IMAPParseError(code: code, message: message, frame: storage, offsetInFrame: index, streamOffset: streamOffset)
    }

    /// Runs `body`; if it throws, the cursor goes back to where it was.
    @inlinable @inline(__always) public mutating func attempt<T>(
        _ body: (inout ByteCursor) throws(IMAPParseError) -> T
    ) throws(IMAPParseError) -> T {
        // Only the position and the depth change while parsing (the rest is `let`), so only they
        // are saved: a copy of the whole cursor retained and released the frame's storage.
        let savedIndex = index
        let savedDepth = depth
        do {
            return try body(&self)
        } catch {
            index = savedIndex
            depth = savedDepth
            throw error
        }
    }

    /// Runs `body` one level deeper in parentheses, enforcing the nesting limit.
    @inlinable @inline(__always) public mutating func nested<T>(
        _ body: (inout ByteCursor) throws(IMAPParseError) -> T
    ) throws(IMAPParseError) -> T {
        try descend()
        defer { depth -= 1 }
        return try body(&self)
    }

    /// Goes one level deeper in parentheses, enforcing the nesting limit; the caller goes back up
    /// (`defer { depth -= 1 }`) once it succeeded. `nested` without a closure, for the hot paths
    /// (an envelope returned through `nested`'s generic result was copied, retaining each string).
    @inlinable @inline(__always) mutating func descend() throws(IMAPParseError) {
        depth += 1
        guard depth <= options.maximumNestingDepth else { throw nestingFailure() }
    }

    /// The error for parentheses nested too deep; out of line so the fast path stays small.
    @inline(never) @usableFromInline func nestingFailure() -> IMAPParseError {
        error(.nestingTooDeep, "parentheses nested deeper than \(options.maximumNestingDepth) levels")
    }
}

@inlinable func isASCIILetter(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
}

@inlinable func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
