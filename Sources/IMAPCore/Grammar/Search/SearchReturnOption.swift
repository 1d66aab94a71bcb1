/// What an extended SEARCH should return (RFC 4731 ESEARCH, RFC 5182 SEARCHRES, RFC 9051 6.4.4).
///
/// `C: b1 UID SEARCH RETURN (MIN MAX COUNT ALL) SUBJECT "meeting"` asks for all four; the server
/// answers with one `* ESEARCH (TAG "b1") UID MIN 45 MAX 19977 ALL 45:46,53 COUNT 973`.
public enum SearchReturnOption: Hashable, Sendable, CaseIterable {
    /// `MIN`: the lowest matching number.
    case min
    /// `MAX`: the highest matching number.
    case max
    /// `ALL`: every match, as a compressed sequence set.
    case all
    /// `COUNT`: how many messages match.
    case count
    /// `SAVE`: keep the result on the server for later use as `$` (RFC 5182).
    case save

    /// The name as it goes on the wire.
    public var name: String {
        switch self {
        case .min: return "MIN"
        case .max: return "MAX"
        case .all: return "ALL"
        case .count: return "COUNT"
        case .save: return "SAVE"
        }
    }
}

extension ByteCursor {
    // search-return-opt = "MIN" / "MAX" / "ALL" / "COUNT" / "SAVE"
    /// One SEARCH return option.
    public mutating func parseSearchReturnOption() throws(IMAPParseError) -> SearchReturnOption {
        let start = index
        let name = String(decoding: try parseAtom(), as: UTF8.self).uppercased()
        guard let option = SearchReturnOption.allCases.first(where: { $0.name == name }) else {
            index = start
            throw error(.unexpectedByte, "unknown SEARCH return option \(name) (expected MIN, MAX, ALL, COUNT or SAVE)")
        }
        return option
    }

    // search-return-opts = SP "RETURN" SP "(" [search-return-opt *(SP search-return-opt)] ")"
    /// `RETURN (...)` when it comes next (after the SP), else nil.
    public mutating func parseSearchReturnOptions() throws(IMAPParseError) -> [SearchReturnOption]? {
        try attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> [SearchReturnOption]? in
            let start = cursor.index
            guard cursor.consumeCaseInsensitive("RETURN"), cursor.peek == UInt8(ascii: " ") else {
                cursor.index = start
                return nil
            }
            try cursor.expectSpace()
            return try cursor.parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> SearchReturnOption in
                try cursor.parseSearchReturnOption()
            }
        }
    }
}

extension EncodeBuffer {
    /// Writes a SEARCH return option.
    public mutating func write(_ option: SearchReturnOption) { writeRaw(option.name) }

    /// Writes `RETURN (option ...)`.
    public mutating func writeSearchReturnOptions(_ options: [SearchReturnOption]) {
        writeRaw("RETURN ")
        writeList(options) { buffer, option in buffer.write(option) }
    }
}
