/// Writes `JSONValue`s as compact JSON (RFC 8259).
///
/// Strings are escaped as the RFC requires (quote, backslash and every control character, with
/// the short forms `\n`, `\r`, `\t`, `\b`, `\f` where they exist) plus DEL, so a line never holds
/// a raw control byte; everything else, including non-ASCII text, is written as UTF-8.
public enum JSONWriter {
    /// Appends the encoding of `value` to `output`.
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number): writeInteger(number, into: &output)
        case .unsignedInteger(let number): writeUnsignedInteger(number, into: &output)
        case .fraction(let number):
            // Swift's shortest round-trip form (`2.5`, `1e-07`) is JSON; infinities and NaN are not.
            output.append(contentsOf: (number.isFinite ? "\(number)" : "null").utf8)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a JSON string literal, quotes included. Runs of bytes that need no
    /// escape are copied whole.
    public static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F else {
                    continue
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\n"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case UInt8(ascii: "\t"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                default:
                    output.append(contentsOf: "\\u00".utf8)
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func writeUnsignedInteger(_ number: UInt64, into output: inout [UInt8]) {
        guard number > 0 else {
            output.append(UInt8(ascii: "0"))
            return
        }
        var digits: [UInt8] = []
        var rest = number
        while rest > 0 {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        }
        output.append(contentsOf: digits.reversed())
    }

    /// Appends `number` in decimal.
    public static func writeInteger(_ number: Int64, into output: inout [UInt8]) {
        if number < 0 { output.append(UInt8(ascii: "-")) }
        writeUnsignedInteger(number.magnitude, into: &output)
    }
}
