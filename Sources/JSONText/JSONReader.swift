/// Reads JSON text (RFC 8259) into a ``JSONValue``: the tool's state and config files, read at
/// every start, where Foundation's `JSONDecoder` spent about 5 ms on a 46 KB people file (a
/// quarter of a search's instructions) for what this does in a single pass, and the mock server's
/// JSON seeds.
///
/// Whole numbers that fit `Int64` are ``JSONValue/integer(_:)``; a number with a fraction or an
/// exponent is ``JSONValue/fraction(_:)``. Errors: anything after the value but white space, a
/// whole number beyond `Int64`, invalid UTF-8, a control character or a lone surrogate in a
/// string, and nesting deeper than ``maximumDepth``.
///
/// ```swift
/// let value = try JSONReader.parse(Array(#"{"people":{"Alice":2}}"#.utf8))
/// ```
public enum JSONReader {
    /// How deeply arrays and objects may nest.
    public static let maximumDepth = 64

    /// Why the text is not JSON this reader takes, and where (a byte offset).
    public struct Failure: Error, Equatable {
        public let reason: String
        public let offset: Int
    }

    /// The value of the whole of `bytes`. A UTF-8 byte order mark before it is skipped (RFC 8259
    /// section 8.1 lets a reader ignore one; editors on Windows write it); offsets still count it.
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue in
            var cursor = Cursor(bytes: buffer)
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { cursor.position = 3 }
            let value = try cursor.value(depth: 0)
            cursor.skipWhiteSpace()
            guard cursor.position == buffer.count else { throw cursor.failure("text after the value") }
            return value
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        func failure(_ reason: String) -> Failure { Failure(reason: reason, offset: position) }

        mutating func skipWhiteSpace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            skipWhiteSpace()
            guard position < bytes.count else { throw failure("the text ends where a value should be") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return .object(try object(depth: depth + 1))
            case UInt8(ascii: "["): return .array(try array(depth: depth + 1))
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw failure("no value starts with this character")
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
            let length = word.utf8CodeUnitCount
            guard position + length <= bytes.count,
                word.withUTF8Buffer({ $0.elementsEqual(bytes[position..<position + length]) })
            else { throw failure("not \(word)") }
            position += length
            return value
        }

        mutating func object(depth: Int) throws(Failure) -> JSONObject {
            guard depth <= JSONReader.maximumDepth else { throw failure("nested too deeply") }
            position += 1  // {
            var members: [JSONObject.Member] = []
            skipWhiteSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return JSONObject(members: members)
            }
            while true {
                skipWhiteSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw failure("an object's key must be a string")
                }
                let key = try string()
                skipWhiteSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    throw failure("a key must be followed by a colon")
                }
                position += 1
                // A repeated key is kept twice, in order (finding repeats would cost a hash of
                // every key); a lookup by key finds the first, a walk of the members sees both.
                members.append(JSONObject.Member(key: key, value: try value(depth: depth)))
                if try !another(before: UInt8(ascii: "}"), in: "object") { return JSONObject(members: members) }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> [JSONValue] {
            guard depth <= JSONReader.maximumDepth else { throw failure("nested too deeply") }
            position += 1  // [
            var elements: [JSONValue] = []
            skipWhiteSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return elements
            }
            while true {
                elements.append(try value(depth: depth))
                if try !another(before: UInt8(ascii: "]"), in: "array") { return elements }
            }
        }

        /// After a member or element: true past a comma (another follows), false past `end`
        /// (the `container` is closed).
        mutating func another(before end: UInt8, in container: String) throws(Failure) -> Bool {
            skipWhiteSpace()
            guard position < bytes.count else { throw failure("the \(container) is not closed") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                return true
            case end:
                position += 1
                return false
            default: throw failure("expected a comma or the end of the \(container)")
            }
        }

        /// A string; `position` is at its opening quote.
        mutating func string() throws(Failure) -> String {
            position += 1
            let start = position
            // Most strings have no escape: their bytes are the text.
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    guard let text = String(validating: bytes[start..<position], as: UTF8.self) else {
                        throw failure("the string is not UTF-8")
                    }
                    position += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw failure("a control character in a string") }
                position += 1
            }
            var text = Array(bytes[start..<position])
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    guard let result = String(validating: text, as: UTF8.self) else {
                        throw failure("the string is not UTF-8")
                    }
                    return result
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { break }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"): text.append(contentsOf: try unicodeEscape())
                    default: throw failure("an unknown escape in a string")
                    }
                case 0..<0x20:
                    throw failure("a control character in a string")
                default:
                    text.append(byte)
                    position += 1
                }
            }
            throw failure("the string is not closed")
        }

        /// The UTF-8 of `\uXXXX` (the `\u` already read), with the low half of a surrogate pair.
        mutating func unicodeEscape() throws(Failure) -> [UInt8] {
            let high = try hexQuad()
            var scalarValue = high
            if (0xD800...0xDBFF).contains(high) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw failure("a lone surrogate in a string") }
                position += 2
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("a lone surrogate in a string") }
                scalarValue = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { throw failure("a lone surrogate in a string") }
            return Array(String(Character(scalar)).utf8)
        }

        mutating func hexQuad() throws(Failure) -> UInt32 {
            guard position + 4 <= bytes.count else { throw failure("a \\u escape needs four hex digits") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("a \\u escape needs four hex digits")
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        /// `-?(0|[1-9][0-9]*)`, within Int64.
        mutating func number() throws(Failure) -> JSONValue {
            let first = position
            let negative = bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            let start = position
            var magnitude: UInt64 = 0
            var overflow = false
            while position < bytes.count, isDigit(bytes[position]) {
                let (times, overflowTimes) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflowSum) = times.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
                overflow = overflow || overflowTimes || overflowSum
                magnitude = sum
                position += 1
            }
            guard position > start else { throw failure("a minus sign without digits") }
            guard bytes[start] != UInt8(ascii: "0") || position == start + 1 else {
                throw failure("a number with a leading zero")
            }
            if position < bytes.count,
                bytes[position] == UInt8(ascii: ".") || bytes[position] | 0x20 == UInt8(ascii: "e")
            {
                return .fraction(try fraction(from: first))
            }
            guard !overflow else { throw failure("a whole number too large") }
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { throw failure("a whole number too large") }
                return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
            }
            guard magnitude <= UInt64(Int64.max) else { throw failure("a whole number too large") }
            return .integer(Int64(magnitude))
        }

        /// The rest of a number with a fraction or exponent (`.5`, `e-3`), whose text starts at
        /// `first`.
        mutating func fraction(from first: Int) throws(Failure) -> Double {
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard skipDigits() else { throw failure("a decimal point without digits after it") }
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
                {
                    position += 1
                }
                guard skipDigits() else { throw failure("an exponent without digits") }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<position]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw failure("a number too large") }
            return value
        }

        /// Skips a run of digits; whether there was one.
        mutating func skipDigits() -> Bool {
            let start = position
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            return position > start
        }

        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    }
}
