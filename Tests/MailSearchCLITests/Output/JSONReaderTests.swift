import Foundation
import JSONText
import TestSupport
import Testing

/// The reader of the tool's state and config files and the mock server's seeds: what JSONWriter
/// writes reads back the same, documents read as Foundation reads them, and text that is not
/// JSON (or not the JSON it takes) is refused.
@Suite(.hangGuard) struct JSONReaderTests {
    static let values: [JSONValue] = [
        .null, .bool(true), .bool(false), .integer(0), .integer(-7), .integer(Int64.max), .integer(Int64.min),
        .fraction(2.5), .fraction(-1e-7), .fraction(6.02e23), .fraction(0.1),
        .string(""), .string("plain"), .string("quote \" backslash \\ slash / tab \t newline \n"),
        .string("control \u{01}\u{1F} and DEL \u{7F}"), .string("Zoë 山田 📰 🇯🇵"), .array([]), .object([:]),
        .array([.integer(1), .string("two"), .array([.null]), .object(["k": .bool(false)])]),
        .object(["people": .object(["Alice": .integer(2), "bob@example.com": .integer(1)]), "seen": .array([])]),
    ]

    @Test(arguments: values)
    func whatTheWriterWritesReadsBack(value: JSONValue) throws {
        var bytes: [UInt8] = []
        JSONWriter.write(value, into: &bytes)
        #expect(try JSONReader.parse(bytes) == value)
    }

    @Test(arguments: [
        #"{"a": [1, -2, {"b": "c\u00e9\ud83d\udcf0"}], "d": null, "e": true}"#,
        " \n\t[ \"\\\"\\\\\\/\\b\\f\\n\\r\\t\" ] \r\n",
        #"[9223372036854775807, -9223372036854775808, 0]"#,
        #"[1.5, -0.25, 1e3, 2E-3, 6.02e+23, 0.1, -0e0, 9223372036854775808.0]"#,
    ])
    func readsAsFoundationReads(text: String) throws {
        let expected = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        let value = try JSONReader.parse(Array(text.utf8))
        #expect(Self.foundation(value) == expected as? NSObject)
    }

    @Test func aByteOrderMarkBeforeTheValueIsSkipped() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try JSONReader.parse(bom + Array(#"{"a": 1}"#.utf8)) == .object(["a": .integer(1)]))
        #expect(try JSONReader.parse(bom + Array(" [] ".utf8)) == .array([]))
        // Only before the value, and only once.
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse(bom + bom + Array("[]".utf8)) }
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse(Array("[]".utf8) + bom) }
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "[1 2]", "\"open", "tru", "nul", "01", "-",
        "1.", ".5", "-.5", "1e", "1e+", "1.e3", "01.5", "1e999", "[1] x", "\"tab\there\"", "\"bad \\x escape\"",
        "\"\\u12\"", "\"\\ud83d alone\"", "\"\\udcf0 low first\"", "9223372036854775808", "-9223372036854775809",
        String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
    ])
    func refusesWhatIsNotJSONItTakes(text: String) {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse(Array(text.utf8)) }
    }

    @Test func refusesBytesThatAreNotUTF8() {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0x5C, 0x6E, 0xC3, 0x22]) }
    }

    @Test func nestingUpToTheLimitIsRead() throws {
        let depth = JSONReader.maximumDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try JSONReader.parse(Array(text.utf8))
        for _ in 1..<depth {
            guard case .array(let elements) = value, let first = elements.first else {
                Issue.record("not nested \(depth) deep")
                return
            }
            value = first
        }
        #expect(value == .array([]))
    }

    /// The value as Foundation's objects, to compare with JSONSerialization.
    static func foundation(_ value: JSONValue) -> NSObject {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return NSNumber(value: flag)
        case .integer(let number): return NSNumber(value: number)
        case .unsignedInteger(let number): return NSNumber(value: number)
        case .fraction(let number): return NSNumber(value: number)
        case .string(let text): return NSString(string: text)
        case .array(let elements): return NSArray(array: elements.map(foundation))
        case .object(let object):
            let dictionary = NSMutableDictionary()
            for member in object.members { dictionary[member.key] = foundation(member.value) }
            return dictionary
        }
    }
}
