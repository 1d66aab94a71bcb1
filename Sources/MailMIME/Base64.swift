/// The base64 content transfer encoding (RFC 2045 section 6.8) and the "B" encoding of
/// RFC 2047 encoded words (RFC 2047 section 4.1), which uses the same alphabet.
///
/// ```
/// Base64.encode(Array("Hi!".utf8))        // "SGkh"
/// Base64.decode("SGkh\r\n".utf8)          // [0x48, 0x69, 0x21]
/// ```
public enum Base64 {
    /// The 64-character alphabet of RFC 2045 Table 1.
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The value of each alphabet byte; 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    private static let padding = UInt8(ascii: "=")

    // MARK: Encoding

    /// Encodes `bytes` as base64 with `=` padding.
    ///
    /// With a `lineLength` (RFC 2045 allows at most 76) the output is broken into lines of that
    /// many characters separated by CRLF, as a MIME body part needs; without one it is a single line,
    /// as an RFC 2047 encoded word needs.
    public static func encode(_ bytes: some Sequence<UInt8>, lineLength: Int? = nil) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4 + (input.count / 32))
        let lineLimit = lineLength.map { max(4, $0) }
        var column = 0

        func emit(_ byte: UInt8) {
            if let lineLimit, column == lineLimit {
                output.append(UInt8(ascii: "\r"))
                output.append(UInt8(ascii: "\n"))
                column = 0
            }
            output.append(byte)
            column += 1
        }

        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            emit(alphabet[Int(group >> 18 & 0x3F)])
            emit(alphabet[Int(group >> 12 & 0x3F)])
            emit(alphabet[Int(group >> 6 & 0x3F)])
            emit(alphabet[Int(group & 0x3F)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let group = UInt32(input[index]) << 16
            emit(alphabet[Int(group >> 18 & 0x3F)])
            emit(alphabet[Int(group >> 12 & 0x3F)])
            emit(padding)
            emit(padding)
        case 2:
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            emit(alphabet[Int(group >> 18 & 0x3F)])
            emit(alphabet[Int(group >> 12 & 0x3F)])
            emit(alphabet[Int(group >> 6 & 0x3F)])
            emit(padding)
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Decoding

    /// Decodes base64 leniently, as a MIME body part needs (RFC 2045 section 6.8).
    ///
    /// Characters outside the alphabet (line breaks, spaces, stray punctuation) are ignored, as
    /// RFC 2045 asks. Decoding stops at the first `=`, since padding can only end the data. A
    /// truncated final group yields the whole bytes it holds; a lone trailing character, which
    /// holds no whole byte, is dropped. Never fails.
    public static func decode(_ encoded: some Sequence<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(encoded.underestimatedCount / 4 * 3)
        var group: UInt32 = 0
        var count = 0
        for byte in encoded {
            if byte == padding { break }
            let value = values[Int(byte)]
            guard value != 0xFF else { continue }
            group = group << 6 | UInt32(value)
            count += 1
            if count == 4 {
                appendGroup(group, to: &output)
                group = 0
                count = 0
            }
        }
        appendPartialGroup(group, count: count, to: &output)
        return output
    }

    /// Decodes the first characters of longer base64 data into a prefix of what ``decode(_:)``
    /// makes of all of it: up to the last whole 4-character group, since a cut group would
    /// decode to other bytes (all of it when padding, which ends the data, has arrived).
    public static func decodeStart(_ encoded: some Sequence<UInt8>) -> [UInt8] {
        var alphabet: [UInt8] = []
        for byte in encoded {
            if byte == padding { return decode(alphabet + [byte]) }
            if values[Int(byte)] != 0xFF { alphabet.append(byte) }
        }
        return decode(alphabet.prefix(alphabet.count - alphabet.count % 4))
    }

    /// Decodes base64 text leniently, like the byte-sequence variant.
    public static func decode(_ encoded: String) -> [UInt8] { decode(encoded.utf8) }

    /// Decodes base64 strictly, as the "B" encoding of an RFC 2047 encoded word needs; `nil` when
    /// `encoded` is not base64.
    ///
    /// Only alphabet characters are accepted, optionally followed by the `=` padding that
    /// completes the last group of four. Missing padding is tolerated, since many mailers omit it,
    /// but a lone character in the last group (which holds no whole byte) is not.
    public static func decode(validating encoded: some Sequence<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(encoded.underestimatedCount / 4 * 3)
        var group: UInt32 = 0
        var count = 0
        var paddingCount = 0
        for byte in encoded {
            if byte == padding {
                paddingCount += 1
                continue
            }
            let value = values[Int(byte)]
            guard value != 0xFF, paddingCount == 0 else { return nil }
            group = group << 6 | UInt32(value)
            count += 1
            if count == 4 {
                appendGroup(group, to: &output)
                group = 0
                count = 0
            }
        }
        switch (count, paddingCount) {
        case (0, 0), (2, 0), (2, 2), (3, 0), (3, 1): break
        default: return nil
        }
        appendPartialGroup(group, count: count, to: &output)
        return output
    }

    /// Appends the whole bytes held by the last, incomplete group of `count` characters.
    private static func appendPartialGroup(_ group: UInt32, count: Int, to output: inout [UInt8]) {
        switch count {
        case 2:
            output.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3:
            output.append(UInt8(truncatingIfNeeded: group >> 10))
            output.append(UInt8(truncatingIfNeeded: group >> 2))
        default:
            break
        }
    }

    /// Appends the three bytes of a complete group of four base64 characters.
    private static func appendGroup(_ group: UInt32, to output: inout [UInt8]) {
        output.append(UInt8(truncatingIfNeeded: group >> 16))
        output.append(UInt8(truncatingIfNeeded: group >> 8))
        output.append(UInt8(truncatingIfNeeded: group))
    }
}
