/// One header field (RFC 5322 section 2.2) of a message or body part, kept as the bytes it came
/// from.
///
/// ```
/// Subject: Quarterly
///  update
/// // name "Subject", rawValue " Quarterly\r\n update", value "Quarterly update"
/// ```
public struct MIMEHeaderField: Sendable {
    /// The buffer the ranges index into (shared with the message, not a copy).
    let storage: [UInt8]
    /// The whole field: name, colon, value and the line break(s), continuation lines included.
    public let byteRange: Range<Int>
    /// The field name, without the colon and the white space before it.
    let nameRange: Range<Int>
    /// Everything after the colon up to the field's last line break, folding included.
    let valueRange: Range<Int>

    init(storage: [UInt8], byteRange: Range<Int>, nameRange: Range<Int>, valueRange: Range<Int>) {
        self.storage = storage
        self.byteRange = byteRange
        self.nameRange = nameRange
        self.valueRange = valueRange
    }

    /// The field name as written (`Subject`, `content-type`).
    public var name: String { String(decoding: storage[nameRange], as: UTF8.self) }

    /// The field name with ASCII letters lowercased (`content-type`), for keys.
    public var lowercasedName: String {
        String(decoding: storage[nameRange].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The value as written: the bytes after the colon up to the last line break, with the line
    /// breaks of folding.
    public var rawValue: ArraySlice<UInt8> { storage[valueRange] }

    /// The bytes of the whole field, line breaks included.
    public var bytes: ArraySlice<UInt8> { storage[byteRange] }

    /// The value unfolded (RFC 5322 2.2.3), without the white space after the colon, as bytes.
    public var unfoldedValue: [UInt8] { MIMESyntax.unfolded(MIMESyntax.trimmedValue(rawValue)) }

    /// The value unfolded, without the white space after the colon, read as UTF-8 (else
    /// Windows-1252); RFC 2047 encoded words are kept.
    public var value: String { MIMEHeader.text(unfoldedValue) }

    /// The value unfolded with RFC 2047 encoded words decoded.
    public var decodedValue: String { EncodedWords.decode(value) }

    /// Whether the field is called `name` (ASCII case-insensitive, as field names are).
    public func hasName(_ name: String) -> Bool {
        let candidate = storage[nameRange]
        guard candidate.count == name.utf8.count else { return false }
        // An index walk, not `zip`: the first `zip` of these two types costs the runtime a
        // generic type made from its mangled name (about 0.7M instructions, once per process).
        var index = candidate.startIndex
        for expected in name.utf8 {
            let byte = candidate[index]
            guard byte == expected || (byte ^ expected == 0x20 && isLetter(byte)) else { return false }
            index += 1
        }
        return true
    }

    private func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}

/// The header of a message or body part (RFC 5322 section 2.2): its fields in order.
///
/// ```
/// message.header.decodedValue("subject")      // "Réunion de lundi"
/// message.header.values("received").count     // 3
/// ```
public struct MIMEHeader: Sendable {
    /// The fields in the order they appear.
    public var fields: [MIMEHeaderField]
    /// Where the header lies in the message bytes, the empty line that ends it included.
    public var byteRange: Range<Int>

    /// A header.
    public init(fields: [MIMEHeaderField], byteRange: Range<Int>) {
        self.fields = fields
        self.byteRange = byteRange
    }

    /// The fields called `name` (case-insensitive), in order.
    public func fields(named name: String) -> [MIMEHeaderField] { fields.filter { $0.hasName(name) } }

    /// The first field called `name` (case-insensitive).
    public func firstField(named name: String) -> MIMEHeaderField? { fields.first { $0.hasName(name) } }

    /// The unfolded values of the fields called `name`, RFC 2047 encoded words kept.
    public func values(_ name: String) -> [String] { fields(named: name).map(\.value) }

    /// The unfolded, RFC 2047 decoded value of the first field called `name`, or nil.
    public func decodedValue(_ name: String) -> String? { firstField(named: name)?.decodedValue }

    /// Bytes as text: UTF-8 when valid, else Windows-1252 (what 8-bit header bytes usually are).
    static func text(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return Charset.decode(bytes, charset: "windows-1252") ?? String(decoding: bytes, as: UTF8.self)
    }
}
