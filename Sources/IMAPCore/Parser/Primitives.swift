// The lexical rules of RFC 3501 section 9 and RFC 9051 section 9 shared by both directions.

/// Character classes of the IMAP grammar, as a 256-entry table for speed.
@usableFromInline struct CharacterClass: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8
    @usableFromInline init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ATOM-CHAR = <any CHAR except atom-specials>
    @usableFromInline static let atom = CharacterClass(rawValue: 1)
    /// ASTRING-CHAR = ATOM-CHAR / resp-specials
    @usableFromInline static let astring = CharacterClass(rawValue: 2)
    /// TEXT-CHAR = <any CHAR except CR and LF>, except quoted-specials
    @usableFromInline static let quotedPlain = CharacterClass(rawValue: 4)
    /// list-char = ATOM-CHAR / list-wildcards / resp-specials
    @usableFromInline static let listMailbox = CharacterClass(rawValue: 8)
    /// A byte of a flag or keyword as real servers send them: anything but SP, CTL, `(`, `)`, `"`,
    /// `{`. Gmail keywords contain `[` and `]`.
    @usableFromInline static let looseAtom = CharacterClass(rawValue: 16)
    /// tag = 1*<any ASTRING-CHAR except "+">
    @usableFromInline static let tag = CharacterClass(rawValue: 32)

    @usableFromInline static let table: [CharacterClass] = {
        var table = [CharacterClass](repeating: [], count: 256)
        for byte in 0..<256 {
            let value = UInt8(byte)
            var classes: CharacterClass = []
            let isChar = value >= 0x01 && value <= 0x7F
            let isControl = value < 0x20 || value == 0x7F
            let atomSpecials: Set<UInt8> = Set("(){ %*\"\\]".utf8)
            if isChar && !isControl && !atomSpecials.contains(value) { classes.insert(.atom) }
            if classes.contains(.atom) || value == UInt8(ascii: "]") {
                classes.insert(.astring)
                if value != UInt8(ascii: "+") { classes.insert(.tag) }
            }
            if classes.contains(.astring) || value == UInt8(ascii: "%") || value == UInt8(ascii: "*") {
                classes.insert(.listMailbox)
            }
            if value >= 0x20 && value != UInt8(ascii: "\"") && value != UInt8(ascii: "\\") && value != 0x7F {
                classes.insert(.quotedPlain)  // includes 8-bit bytes: UTF-8 inside quoted strings
            }
            let looseExcluded: Set<UInt8> = Set("()\"{".utf8)
            if value > 0x20 && value != 0x7F && !looseExcluded.contains(value) { classes.insert(.looseAtom) }
            table[byte] = classes
        }
        return table
    }()
}

extension ByteCursor {
    @inlinable func isClass(_ byte: UInt8, _ characterClass: CharacterClass) -> Bool {
        CharacterClass.table[Int(byte)].contains(characterClass)
    }

    /// Consumes the longest run of bytes in `characterClass`; throws if there is none.
    @inlinable mutating func run(
        of characterClass: CharacterClass, what: String
    ) throws(IMAPParseError)
        -> ArraySlice<UInt8>
    {
        let start = index
        // The table read once, not per byte (a global's access checks its initialization).
        let table = CharacterClass.table
        while index < endIndex && table[Int(storage[index])].contains(characterClass) {
            index += 1
        }
        guard index > start else { throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected \(what)") }
        return storage[start..<index]
    }

    // atom = 1*ATOM-CHAR
    /// An atom's bytes.
    @inlinable public mutating func parseAtom() throws(IMAPParseError) -> ArraySlice<UInt8> {
        try run(of: .atom, what: "an atom")
    }

    /// An atom as a String (keywords, capability names and the like).
    @inlinable public mutating func parseAtomString() throws(IMAPParseError) -> String {
        String(decoding: try parseAtom(), as: UTF8.self)
    }

    /// A flag or keyword, tolerating the `[`/`]` Gmail puts into keywords.
    @inlinable public mutating func parseLooseAtom() throws(IMAPParseError) -> ArraySlice<UInt8> {
        try run(of: .looseAtom, what: "a flag or keyword")
    }

    // tag = 1*<any ASTRING-CHAR except "+">
    /// A command tag.
    public mutating func parseTag() throws(IMAPParseError) -> String {
        String(decoding: try run(of: .tag, what: "a tag"), as: UTF8.self)
    }

    // number = 1*DIGIT ; unsigned 32-bit integer
    /// A 32-bit number.
    @inlinable public mutating func parseNumber() throws(IMAPParseError) -> UInt32 {
        let start = index
        let value = try parseNumber64()
        guard value <= UInt64(UInt32.max) else {
            index = start
            throw error(.numberOutOfRange, "a number of at most 4294967295")
        }
        return UInt32(value)
    }

    // nz-number = digit-nz *DIGIT
    /// A non-zero 32-bit number.
    @inlinable public mutating func parseNonZeroNumber() throws(IMAPParseError) -> UInt32 {
        let start = index
        let value = try parseNumber()
        guard value != 0 else {
            index = start
            throw error(.unexpectedByte, "expected a non-zero number")
        }
        return value
    }

    // number64 = 1*DIGIT ; unsigned 63-bit integer (RFC 9051)
    /// A 63-bit number (mod-sequences, sizes under IMAP4rev2).
    @inlinable public mutating func parseNumber64() throws(IMAPParseError) -> UInt64 {
        let start = index
        var value: UInt64 = 0
        // Eighteen digits stay under 2^63-1 whatever they are, so they need no overflow checks.
        let uncheckedEnd = endIndex - start > 18 ? start + 18 : endIndex
        while index < uncheckedEnd {
            let digit = storage[index] &- 0x30
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            index += 1
        }
        if index == start + 18 {
            while index < endIndex {
                let byte = storage[index]
                guard byte >= 0x30 && byte <= 0x39 else { break }
                let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (added, overflow2) = multiplied.addingReportingOverflow(UInt64(byte - 0x30))
                guard !overflow1 && !overflow2 && added <= UInt64(Int64.max) else {
                    index = start
                    throw error(.numberOutOfRange, "a number of at most 2^63-1")
                }
                value = added
                index += 1
            }
        }
        guard index > start else { throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected a number") }
        return value
    }

    // quoted = DQUOTE *QUOTED-CHAR DQUOTE
    // QUOTED-CHAR = <any TEXT-CHAR except quoted-specials> / "\" quoted-specials / UTF8-2 / UTF8-3 / UTF8-4
    /// A quoted string's content, unescaped. Copies only when it contains an escape.
    @inlinable @inline(__always) public mutating func parseQuoted() throws(IMAPParseError) -> ByteString {
        guard index < endIndex, storage[index] == UInt8(ascii: "\"") else {
            throw expectationFailure(UInt8(ascii: "\""))
        }
        let contentStart = index + 1
        let stop = scanQuotedContent(from: contentStart)
        if stop < endIndex && storage[stop] == UInt8(ascii: "\"") {
            index = stop + 1
            return ByteString(storage[contentStart..<stop])
        }
        return try parseQuotedSlowly(contentStart: contentStart, stop: stop)
    }

    /// The rest of `parseQuoted` when its plain run did not end at a closing quote: an escape, a
    /// forbidden byte or the end. Out of line so the common case stays small enough to inline.
    @inline(never) @usableFromInline mutating func parseQuotedSlowly(
        contentStart: Int, stop: Int
    ) throws(IMAPParseError) -> ByteString {
        let start = contentStart - 1
        index = stop
        if index < endIndex {
            if storage[index] != UInt8(ascii: "\\") {
                throw error(.unexpectedByte, "a quoted string may not contain CR, LF or NUL")
            }
        }
        if index >= endIndex {
            index = start
            throw error(.unexpectedEnd, "unterminated quoted string")
        }
        // Escapes present.
        var unescaped = Array(storage[contentStart..<index])
        while index < endIndex {
            let byte = storage[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return ByteString(unescaped)
            }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < endIndex else { break }
                unescaped.append(storage[index])  // RFC: only \" and \\; others are kept leniently
                index += 1
                continue
            }
            guard byte != UInt8(ascii: "\r") && byte != UInt8(ascii: "\n") && byte != 0 else {
                throw error(.unexpectedByte, "a quoted string may not contain CR, LF or NUL")
            }
            unescaped.append(byte)
            index += 1
        }
        index = start
        throw error(.unexpectedEnd, "unterminated quoted string")
    }

    /// The index of the first byte at or after `start` that ends a quoted string's plain run: a
    /// quote, a backslash, CR, LF or NUL (or `endIndex`). Eight bytes at a time: a byte-wise loop
    /// with five comparisons per byte was a tenth of the parse of an envelope FETCH.
    @inlinable func scanQuotedContent(from start: Int) -> Int {
        storage.withUnsafeBytes { bytes -> Int in
            // `endIndex <= storage.count` (it is the array's end) and every read below is at a
            // position under `endIndex`: a word load only when all eight bytes are.
            var position = start
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            // Nonzero exactly when some byte of `word` is zero.
            @inline(__always) func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }
            while position + 8 <= endIndex {
                // The first byte in the lowest bits on any machine.
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let stops =
                    zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C))
                    | zeroBytes(word ^ (ones &* 0x0D)) | zeroBytes(word ^ (ones &* 0x0A)) | zeroBytes(word)
                if stops != 0 {
                    // The lowest flagged byte is the first stop: a false flag can only sit above a
                    // true one, where the subtraction borrowed.
                    return position + stops.trailingZeroBitCount / 8
                }
                position += 8
            }
            while position < endIndex {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\r")
                    || byte == UInt8(ascii: "\n") || byte == 0
                {
                    break
                }
                position += 1
            }
            return position
        }
    }

    // literal = "{" number64 ["+"] "}" CRLF *CHAR8
    // literal8 = "~{" number64 "}" CRLF *OCTET   (RFC 3516 / RFC 9051)
    /// A literal's bytes. The frame already holds them, so this is a slice.
    public mutating func parseLiteral() throws(IMAPParseError) -> ByteString {
        let start = index
        _ = consume(UInt8(ascii: "~"))
        try expect(UInt8(ascii: "{"))
        let size = try parseNumber64()
        _ = consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-"))
        try expect(UInt8(ascii: "}"))
        guard size <= UInt64(options.maximumLiteralSize) else {
            index = start
            throw error(.literalTooLarge, "a literal of at most \(options.maximumLiteralSize) bytes")
        }
        try expect(UInt8(ascii: "\r"))
        try expect(UInt8(ascii: "\n"))
        guard index + Int(size) <= endIndex else {
            index = start
            throw error(.unexpectedEnd, "a literal of \(size) bytes")
        }
        let content = storage[index..<(index + Int(size))]
        index += Int(size)
        return ByteString(content)
    }

    // string = quoted / literal
    /// A quoted string or literal.
    @inlinable public mutating func parseString() throws(IMAPParseError) -> ByteString {
        switch peek {
        case UInt8(ascii: "\""): return try parseQuoted()
        case UInt8(ascii: "{"), UInt8(ascii: "~"): return try parseLiteral()
        case nil: throw error(.unexpectedEnd, "expected a string")
        default: throw error(.unexpectedByte, "expected a string")
        }
    }

    // astring = 1*ASTRING-CHAR / string
    /// An atom-or-string.
    @inlinable public mutating func parseAString() throws(IMAPParseError) -> ByteString {
        switch peek {
        case UInt8(ascii: "\""), UInt8(ascii: "{"): return try parseString()
        case UInt8(ascii: "~") where peek(offset: 1) == UInt8(ascii: "{"): return try parseLiteral()
        default: return ByteString(try run(of: .astring, what: "an atom or string"))
        }
    }

    // nstring = string / nil
    /// A string or NIL (nil). Tolerates an empty list `()` where a server meant NIL.
    @inlinable @inline(__always) public mutating func parseNString() throws(IMAPParseError) -> ByteString? {
        switch peek {
        case UInt8(ascii: "\""): return try parseQuoted()
        case UInt8(ascii: "{"), UInt8(ascii: "~"): return try parseLiteral()
        default:
            if consumeNIL() { return nil }
            throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected a string or NIL")
        }
    }

    /// Consumes NIL if it is next.
    @inlinable public mutating func consumeNIL() -> Bool {
        // Three bytes compared directly: through `consumeCaseInsensitive` (a closure over the
        // StaticString) this took 4% of an envelope FETCH's parse.
        guard index + 3 <= endIndex, storage[index] | 0x20 == UInt8(ascii: "n"),
            storage[index + 1] | 0x20 == UInt8(ascii: "i"), storage[index + 2] | 0x20 == UInt8(ascii: "l")
        else { return false }
        // NIL must not be the start of a longer atom (e.g. "NILS").
        if index + 3 < endIndex, isClass(storage[index + 3], .atom) { return false }
        index += 3
        return true
    }

    /// The rest of the line up to (not including) CR or LF, as text.
    public mutating func parseTextToEndOfLine() -> ByteString {
        let start = index
        while index < endIndex && storage[index] != UInt8(ascii: "\r") && storage[index] != UInt8(ascii: "\n") {
            index += 1
        }
        return ByteString(storage[start..<index])
    }

    /// A parenthesized list of items separated by spaces: `"(" [item *(SP item)] ")"`.
    /// Tolerates extra spaces, including a space before the `)`.
    @inlinable public mutating func parseList<T>(
        _ item: (inout ByteCursor) throws(IMAPParseError) -> T
    )
        throws(IMAPParseError) -> [T]
    {
        try expect(UInt8(ascii: "("))
        return try nested { (cursor: inout ByteCursor) throws(IMAPParseError) -> [T] in
            var items: [T] = []
            cursor.skipSpaces()
            while !cursor.consume(UInt8(ascii: ")")) {
                // The first item makes the array as a literal would (see `parseAddressList`).
                if items.isEmpty { items = [try item(&cursor)] } else { items.append(try item(&cursor)) }
                cursor.skipSpaces()
            }
            return items
        }
    }
}
