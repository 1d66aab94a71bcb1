/// One data item a FETCH asks for (RFC 3501 6.4.5, RFC 9051 6.4.5, RFC 3516 BINARY, RFC 7162
/// MODSEQ, RFC 8970 PREVIEW, Gmail's X-GM-EXT-1).
///
/// `C: b7 UID FETCH 2,5 (BODY.PEEK[HEADER.FIELDS (FROM SUBJECT)] BODY.PEEK[TEXT]<0.300>)` asks for
/// two `.bodySection` items, the second with partial `<0.300>`.
public enum FetchAttribute: Hashable, Sendable {
    /// A byte range `<offset.length>` of a section.
    public struct Partial: Hashable, Sendable {
        /// The first octet wanted.
        public var offset: UInt64
        /// How many octets are wanted (at least 1).
        public var length: UInt64

        /// The range of `length` octets from `offset`.
        public init(offset: UInt64, length: UInt64) {
            self.offset = offset
            self.length = length
        }
    }

    /// `ENVELOPE`.
    case envelope
    /// `FLAGS`.
    case flags
    /// `INTERNALDATE`.
    case internalDate
    /// `RFC822.SIZE`.
    case rfc822Size
    /// `RFC822`: the whole message, setting `\Seen` (IMAP4rev1).
    case rfc822
    /// `RFC822.HEADER`: the header, not setting `\Seen` (IMAP4rev1).
    case rfc822Header
    /// `RFC822.TEXT`: the body, setting `\Seen` (IMAP4rev1).
    case rfc822Text
    /// `BODYSTRUCTURE` (with extension data) when `extensions` is true, else `BODY`.
    case bodyStructure(extensions: Bool)
    /// `UID`.
    case uid
    /// `BODY[section]<partial>`, or `BODY.PEEK[...]` (which leaves `\Seen` alone) when `peek`.
    case bodySection(peek: Bool, section: SectionSpecifier, partial: Partial?)
    /// `BINARY[part]<partial>`, or `BINARY.PEEK[...]` when `peek` (RFC 3516).
    case binary(peek: Bool, part: [UInt32], partial: Partial?)
    /// `BINARY.SIZE[part]` (RFC 3516).
    case binarySize(part: [UInt32])
    /// `PREVIEW`, or `PREVIEW (LAZY)` when `lazy` (RFC 8970).
    case preview(lazy: Bool)
    /// `MODSEQ` (RFC 7162).
    case modificationSequence
    /// `X-GM-MSGID`: Gmail's message id.
    case gmailMessageID
    /// `X-GM-THRID`: Gmail's thread id.
    case gmailThreadID
    /// `X-GM-LABELS`: Gmail's labels.
    case gmailLabels

    /// The `ALL` macro: FLAGS INTERNALDATE RFC822.SIZE ENVELOPE.
    public static let allMacro: [FetchAttribute] = [.flags, .internalDate, .rfc822Size, .envelope]
    /// The `FAST` macro: FLAGS INTERNALDATE RFC822.SIZE.
    public static let fastMacro: [FetchAttribute] = [.flags, .internalDate, .rfc822Size]
    /// The `FULL` macro: FLAGS INTERNALDATE RFC822.SIZE ENVELOPE BODY.
    public static let fullMacro: [FetchAttribute] = [
        .flags, .internalDate, .rfc822Size, .envelope, .bodyStructure(extensions: false),
    ]
}

extension ByteCursor {
    // fetch-att = "ENVELOPE" / "FLAGS" / "INTERNALDATE" / "RFC822" [".HEADER" / ".SIZE" / ".TEXT"] /
    //             "BODY" ["STRUCTURE"] / "UID" / "BODY" section [partial] / "BODY.PEEK" section [partial] /
    //             "BINARY" [".PEEK"] section-binary [partial] / "BINARY.SIZE" section-binary
    // partial = "<" number64 "." nz-number64 ">"
    // fetch-att =/ "MODSEQ"                                       ; RFC 7162
    // fetch-att =/ "PREVIEW" [SP "(" preview-mod *(SP preview-mod) ")"]   ; RFC 8970
    // preview-mod = "LAZY"
    // fetch-att =/ "X-GM-MSGID" / "X-GM-THRID" / "X-GM-LABELS"    ; Gmail X-GM-EXT-1
    /// One FETCH data item. An unknown item is an error, so a server can answer BAD.
    public mutating func parseFetchAttribute() throws(IMAPParseError) -> FetchAttribute {
        try attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> FetchAttribute in
            let start = cursor.index
            while let byte = cursor.peek,
                isASCIILetter(byte) || isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            {
                cursor.index += 1
            }
            guard cursor.index > start else {
                throw cursor.error(cursor.isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected a FETCH data item")
            }
            let name = String(decoding: cursor.storage[start..<cursor.index], as: UTF8.self).uppercased()
            let hasSection = cursor.peek == UInt8(ascii: "[")
            switch (name, hasSection) {
            case ("ENVELOPE", false): return .envelope
            case ("FLAGS", false): return .flags
            case ("INTERNALDATE", false): return .internalDate
            case ("RFC822.SIZE", false): return .rfc822Size
            case ("RFC822", false): return .rfc822
            case ("RFC822.HEADER", false): return .rfc822Header
            case ("RFC822.TEXT", false): return .rfc822Text
            case ("BODY", false): return .bodyStructure(extensions: false)
            case ("BODYSTRUCTURE", false): return .bodyStructure(extensions: true)
            case ("UID", false): return .uid
            case ("MODSEQ", false): return .modificationSequence
            case ("X-GM-MSGID", false): return .gmailMessageID
            case ("X-GM-THRID", false): return .gmailThreadID
            case ("X-GM-LABELS", false): return .gmailLabels
            case ("PREVIEW", false):
                let lazy =
                    (try? cursor.attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> Bool in
                        try cursor.expectSpace()
                        try cursor.expect(UInt8(ascii: "("))
                        try cursor.expectCaseInsensitive("LAZY")
                        try cursor.expect(UInt8(ascii: ")"))
                        return true
                    }) ?? false
                return .preview(lazy: lazy)
            case ("BODY", true), ("BODY.PEEK", true):
                let section = try cursor.parseSection()
                return .bodySection(peek: name == "BODY.PEEK", section: section, partial: try cursor.parsePartial())
            case ("BINARY", true), ("BINARY.PEEK", true):
                let part = try cursor.parseBinarySection()
                return .binary(peek: name == "BINARY.PEEK", part: part, partial: try cursor.parsePartial())
            case ("BINARY.SIZE", true):
                return .binarySize(part: try cursor.parseBinarySection())
            default:
                cursor.index = start
                throw cursor.error(.unexpectedByte, "unknown FETCH data item \(name)")
            }
        }
    }

    // partial = "<" number64 "." nz-number64 ">"
    /// A `<offset.length>` when it comes next, else nil.
    mutating func parsePartial() throws(IMAPParseError) -> FetchAttribute.Partial? {
        guard consume(UInt8(ascii: "<")) else { return nil }
        let offset = try parseNumber64()
        try expect(UInt8(ascii: "."))
        let lengthStart = index
        let length = try parseNumber64()
        guard length > 0 else {
            index = lengthStart
            throw error(.unexpectedByte, "a partial length must not be zero")
        }
        try expect(UInt8(ascii: ">"))
        return FetchAttribute.Partial(offset: offset, length: length)
    }

    // fetch = "FETCH" SP sequence-set SP ("ALL" / "FULL" / "FAST" / fetch-att / "(" fetch-att *(SP fetch-att) ")")
    /// The data items of a FETCH: a macro (expanded), one item, or a parenthesized list.
    public mutating func parseFetchAttributes() throws(IMAPParseError) -> [FetchAttribute] {
        if peek == UInt8(ascii: "(") {
            let start = index
            let attributes = try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> FetchAttribute in
                try cursor.parseFetchAttribute()
            }
            guard !attributes.isEmpty else {
                index = start
                throw error(.unexpectedByte, "FETCH needs at least one data item")
            }
            return attributes
        }
        let macro = try? attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> [FetchAttribute] in
            let name = String(decoding: try cursor.parseAtom(), as: UTF8.self).uppercased()
            switch name {
            case "ALL": return FetchAttribute.allMacro
            case "FAST": return FetchAttribute.fastMacro
            case "FULL": return FetchAttribute.fullMacro
            default: throw cursor.error(.unexpectedByte, "not a macro")
            }
        }
        if let macro { return macro }
        return [try parseFetchAttribute()]
    }
}

extension EncodeBuffer {
    /// Writes one FETCH data item.
    public mutating func write(_ attribute: FetchAttribute) {
        switch attribute {
        case .envelope: writeRaw("ENVELOPE")
        case .flags: writeRaw("FLAGS")
        case .internalDate: writeRaw("INTERNALDATE")
        case .rfc822Size: writeRaw("RFC822.SIZE")
        case .rfc822: writeRaw("RFC822")
        case .rfc822Header: writeRaw("RFC822.HEADER")
        case .rfc822Text: writeRaw("RFC822.TEXT")
        case .bodyStructure(let extensions): writeRaw(extensions ? "BODYSTRUCTURE" : "BODY")
        case .uid: writeRaw("UID")
        case .modificationSequence: writeRaw("MODSEQ")
        case .gmailMessageID: writeRaw("X-GM-MSGID")
        case .gmailThreadID: writeRaw("X-GM-THRID")
        case .gmailLabels: writeRaw("X-GM-LABELS")
        case .preview(let lazy): writeRaw(lazy ? "PREVIEW (LAZY)" : "PREVIEW")
        case .bodySection(let peek, let section, let partial):
            writeRaw(peek ? "BODY.PEEK" : "BODY")
            write(section)
            write(partial)
        case .binary(let peek, let part, let partial):
            writeRaw(peek ? "BINARY.PEEK" : "BINARY")
            writeBinarySection(part)
            write(partial)
        case .binarySize(let part):
            writeRaw("BINARY.SIZE")
            writeBinarySection(part)
        }
    }

    /// Writes `(item item ...)`.
    public mutating func write(_ attributes: [FetchAttribute]) {
        writeList(attributes) { buffer, attribute in buffer.write(attribute) }
    }

    private mutating func write(_ partial: FetchAttribute.Partial?) {
        guard let partial else { return }
        writeRaw("<")
        writeNumber(partial.offset)
        writeRaw(".")
        writeNumber(partial.length)
        writeRaw(">")
    }
}
