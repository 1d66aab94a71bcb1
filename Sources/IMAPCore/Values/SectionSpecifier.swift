/// The part of a message a BODY[...] or BINARY[...] item names (RFC 3501 6.4.5, `section`).
///
/// `C: a FETCH 1 BODY.PEEK[1.2.HEADER.FIELDS (FROM SUBJECT)]` has part `[1, 2]` and kind
/// `.headerFields(["FROM", "SUBJECT"])`.
public struct SectionSpecifier: Hashable, Sendable, CustomStringConvertible {
    /// What of the part is meant.
    public enum Kind: Hashable, Sendable {
        /// The whole part (`BODY[]`, `BODY[1.2]`).
        case complete
        /// `HEADER`.
        case header
        /// `HEADER.FIELDS (names)`.
        case headerFields([ByteString])
        /// `HEADER.FIELDS.NOT (names)`.
        case headerFieldsNot([ByteString])
        /// `TEXT`.
        case text
        /// `MIME` (only after a part number).
        case mime
    }

    /// The part path, empty for the whole message.
    public var part: [UInt32]
    /// What of the part is meant.
    public var kind: Kind

    public init(part: [UInt32] = [], kind: Kind = .complete) {
        self.part = part
        self.kind = kind
    }

    /// `[]`: the whole message.
    public static let complete = SectionSpecifier()
    /// `[HEADER]`.
    public static let header = SectionSpecifier(kind: .header)
    /// `[TEXT]`.
    public static let text = SectionSpecifier(kind: .text)

    public var description: String {
        var buffer = EncodeBuffer()
        buffer.write(self)
        return String(decoding: buffer.takeBytes(), as: UTF8.self)
    }
}

extension ByteCursor {
    // section = "[" [section-spec] "]"
    // section-spec = section-msgtext / (section-part ["." section-text])
    // section-msgtext = "HEADER" / "HEADER.FIELDS" [".NOT"] SP header-list / "TEXT"
    // section-part = nz-number *("." nz-number)
    // section-text = section-msgtext / "MIME"
    // header-list = "(" header-fld-name *(SP header-fld-name) ")"
    /// A `[section]`, brackets included.
    public mutating func parseSection() throws(IMAPParseError) -> SectionSpecifier {
        try expect(UInt8(ascii: "["))
        var part: [UInt32] = []
        var kind = SectionSpecifier.Kind.complete
        if consume(UInt8(ascii: "]")) { return SectionSpecifier() }
        while let byte = peek, isDigit(byte) {
            part.append(try parseNonZeroNumber())
            if !consume(UInt8(ascii: ".")) { break }
        }
        if peek != UInt8(ascii: "]") {
            if consumeCaseInsensitive("HEADER.FIELDS.NOT") {
                try expectSpace()
                kind = .headerFieldsNot(try parseHeaderList())
            } else if consumeCaseInsensitive("HEADER.FIELDS") {
                try expectSpace()
                kind = .headerFields(try parseHeaderList())
            } else if consumeCaseInsensitive("HEADER") {
                kind = .header
            } else if consumeCaseInsensitive("TEXT") {
                kind = .text
            } else if !part.isEmpty && consumeCaseInsensitive("MIME") {
                kind = .mime
            } else {
                throw error(.unexpectedByte, "expected HEADER, HEADER.FIELDS, TEXT, MIME or a part number")
            }
        }
        try expect(UInt8(ascii: "]"))
        return SectionSpecifier(part: part, kind: kind)
    }

    private mutating func parseHeaderList() throws(IMAPParseError) -> [ByteString] {
        try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> ByteString in try cursor.parseAString() }
    }

    // section-binary = "[" [section-part] "]"   (RFC 3516)
    /// A BINARY `[part]`.
    public mutating func parseBinarySection() throws(IMAPParseError) -> [UInt32] {
        try expect(UInt8(ascii: "["))
        var part: [UInt32] = []
        while let byte = peek, isDigit(byte) {
            part.append(try parseNonZeroNumber())
            if !consume(UInt8(ascii: ".")) { break }
        }
        try expect(UInt8(ascii: "]"))
        return part
    }
}

extension EncodeBuffer {
    /// Writes `[section]`.
    public mutating func write(_ section: SectionSpecifier) {
        writeRaw("[")
        for (position, number) in section.part.enumerated() {
            if position > 0 { writeRaw(".") }
            writeNumber(number)
        }
        let needsDot = !section.part.isEmpty && section.kind != .complete
        if needsDot { writeRaw(".") }
        switch section.kind {
        case .complete: break
        case .header: writeRaw("HEADER")
        case .text: writeRaw("TEXT")
        case .mime: writeRaw("MIME")
        case .headerFields(let names):
            writeRaw("HEADER.FIELDS ")
            writeList(names) { buffer, name in buffer.writeAString(name) }
        case .headerFieldsNot(let names):
            writeRaw("HEADER.FIELDS.NOT ")
            writeList(names) { buffer, name in buffer.writeAString(name) }
        }
        writeRaw("]")
    }

    /// Writes a BINARY `[part]`.
    public mutating func writeBinarySection(_ part: [UInt32]) {
        writeRaw("[")
        for (position, number) in part.enumerated() {
            if position > 0 { writeRaw(".") }
            writeNumber(number)
        }
        writeRaw("]")
    }
}
