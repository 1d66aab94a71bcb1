import Foundation
import JSONText
import MailSearchCLI
import TestSupport
import Testing

@Suite(.hangGuard) struct JSONWriterTests {
    @Test(arguments: [
        ("plain", #""plain""#),
        ("quote \" and backslash \\", #""quote \" and backslash \\""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
        ("\u{08}\u{0C}", #""\b\f""#),
        (
            "nul \u{00} bell \u{07} esc \u{1B} us \u{1F} del \u{7F}",
            #""nul \u0000 bell \u0007 esc \u001b us \u001f del \u007f""#
        ),
        ("Søren 会议 📰", "\"Søren 会议 📰\""),
        ("slash / stays", #""slash / stays""#),
        ("", #""""#),
    ])
    func stringEscaping(text: String, expected: String) throws {
        let encoded = JSONValue.string(text).encoded()
        #expect(encoded == expected)
        // Foundation reads it back to the same text.
        let decoded = try JSONSerialization.jsonObject(with: Data(encoded.utf8), options: .fragmentsAllowed)
        #expect(decoded as? String == text)
    }

    @Test func everyControlCharacterIsEscaped() {
        let text = String(decoding: (0..<0x20).map { UInt8($0) } + [0x7F], as: UTF8.self)
        let encoded = JSONValue.string(text).encoded()
        #expect(!encoded.utf8.contains { $0 < 0x20 || $0 == 0x7F })
    }

    @Test func objectsKeepTheirKeyOrder() {
        let value: JSONValue = ["kind": "fetch", "seq": 3, "a": nil, "z": [true, false], "m": ["x": -1]]
        #expect(value.encoded() == #"{"kind":"fetch","seq":3,"a":null,"z":[true,false],"m":{"x":-1}}"#)
    }

    @Test func numbers() {
        #expect(JSONValue.number(UInt64.max).encoded() == "18446744073709551615")
        #expect(JSONValue.integer(Int64.min).encoded() == "-9223372036854775808")
        #expect(JSONValue.number(UInt32(0)).encoded() == "0")
        #expect(JSONValue.number(UInt32?.none).encoded() == "null")
    }

    @Test func objectSubscriptReplacesInPlaceAndRemoves() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = 3
        object["c"] = 4
        object["b"] = nil
        #expect(JSONValue.object(object).encoded() == #"{"a":3,"c":4}"#)
    }
}
