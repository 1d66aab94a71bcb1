/// The quoted-printable content transfer encoding (RFC 2045 section 6.7).
///
/// ```
/// QuotedPrintable.decode("Caf=C3=A9 =\r\nau lait".utf8)   // "Café au lait" as UTF-8 bytes
/// QuotedPrintable.encode(Array("Café".utf8))            // "Caf=C3=A9"
/// ```
public enum QuotedPrintable {
    private static let equals = UInt8(ascii: "=")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    // MARK: Decoding

    // quoted-printable := qp-line *(CRLF qp-line)
    // qp-line := *(qp-segment transport-padding CRLF) qp-part transport-padding
    // qp-segment := qp-section *(SPACE / TAB) "="
    // hex-octet := "=" 2(DIGIT / "A" / "B" / "C" / "D" / "E" / "F")
    // transport-padding := *LWSP-char
    /// Decodes quoted-printable leniently; never fails.
    ///
    /// - `=` at the end of a line (after any transport padding) is a soft line break and is removed
    ///   with the line break, whether the line ends in CRLF or a bare LF.
    /// - Trailing spaces and tabs on a line are removed, since transports may add them (rule 3).
    /// - `=XY` becomes the octet with that hex value; lowercase hex digits are accepted. An `=` not
    ///   followed by two hex digits is kept literally, as RFC 2045 suggests for robust decoders.
    /// - Hard line breaks are kept as they appear (CRLF or LF).
    public static func decode(_ encoded: some Sequence<UInt8>) -> [UInt8] {
        let input = Array(encoded)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var lineStart = 0
        while lineStart < input.count {
            var lineEnd = input[lineStart...].firstIndex(of: lineFeed) ?? input.count
            let hasLineFeed = lineEnd < input.count
            let hasCarriageReturn = hasLineFeed && lineEnd > lineStart && input[lineEnd - 1] == carriageReturn
            let nextLine = hasLineFeed ? lineEnd + 1 : input.count
            if hasCarriageReturn { lineEnd -= 1 }
            while lineEnd > lineStart, input[lineEnd - 1] == space || input[lineEnd - 1] == tab { lineEnd -= 1 }
            var isSoftBreak = false
            if lineEnd > lineStart, input[lineEnd - 1] == equals {
                isSoftBreak = true
                lineEnd -= 1
            }
            decodeLine(input[lineStart..<lineEnd], into: &output)
            if hasLineFeed, !isSoftBreak {
                if hasCarriageReturn { output.append(carriageReturn) }
                output.append(lineFeed)
            }
            lineStart = nextLine
        }
        return output
    }

    /// Decodes quoted-printable text leniently, like the byte-sequence variant.
    public static func decode(_ encoded: String) -> [UInt8] { decode(encoded.utf8) }

    /// Decodes the `=XY` escapes of one line without its line break.
    private static func decodeLine(_ line: ArraySlice<UInt8>, into output: inout [UInt8]) {
        var index = line.startIndex
        while index < line.endIndex {
            let byte = line[index]
            if byte == equals, line.endIndex - index >= 3,
                let high = hexValue(line[index + 1]), let low = hexValue(line[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
    }

    /// The value of an ASCII hex digit of either case.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    // MARK: Encoding

    /// Encodes `bytes` as quoted-printable with lines of at most `lineLength` characters
    /// (RFC 2045 allows 76, counting the `=` of a soft line break).
    ///
    /// With `isText` (the default), CRLF and bare LF in the input are line breaks of the text and
    /// come out as CRLF; spaces and tabs before a line break or at the end are encoded, since a
    /// transport may strip them. Without it, every CR and LF is encoded, as binary data needs.
    /// `=` and all bytes outside printable ASCII are encoded as `=XY` with uppercase hex.
    public static func encode(_ bytes: some Sequence<UInt8>, lineLength: Int = 76, isText: Bool = true) -> String {
        let input = Array(bytes)
        let limit = max(4, lineLength) - 1
        var output: [UInt8] = []
        output.reserveCapacity(input.count + input.count / 8)
        var column = 0

        func isLineBreak(at index: Int) -> Bool {
            guard isText, index < input.count else { return false }
            return input[index] == lineFeed
                || (input[index] == carriageReturn && index + 1 < input.count && input[index + 1] == lineFeed)
        }

        var index = 0
        while index < input.count {
            if isLineBreak(at: index) {
                output.append(carriageReturn)
                output.append(lineFeed)
                column = 0
                index += input[index] == carriageReturn ? 2 : 1
                continue
            }
            let byte = input[index]
            let isWhitespace = byte == space || byte == tab
            let atLineEnd = index + 1 == input.count || isLineBreak(at: index + 1)
            let isLiteral =
                (byte >= 33 && byte <= 126 && byte != equals) || (isWhitespace && !atLineEnd)
            let width = isLiteral ? 1 : 3
            if column + width > limit {
                output.append(equals)
                output.append(carriageReturn)
                output.append(lineFeed)
                column = 0
            }
            if isLiteral {
                output.append(byte)
            } else {
                output.append(equals)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
            column += width
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}
