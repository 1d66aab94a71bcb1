import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct QuotedPrintableTests {
    @Test(arguments: [
        ("Caf=C3=A9", "Café"),
        ("soft=\r\nbreak", "softbreak"),
        ("soft=\nbreak", "softbreak"),
        ("padded= \t\r\nbreak", "paddedbreak"),
        ("trailing   \r\nnext", "trailing\r\nnext"),
        ("trailing\t\nnext", "trailing\nnext"),
        ("hard\r\nbreaks\nkept\r\n", "hard\r\nbreaks\nkept\r\n"),
        ("bad=XYvalue", "bad=XYvalue"),
        ("bad=C", "bad=C"),
        ("bad=\u{7F}z", "bad=\u{7F}z"),
        ("lower=c3=a9", "loweré"),
        ("a=3D=3d", "a=="),
        ("ends with soft break=", "ends with soft break"),
        ("space=20\r\n", "space \r\n"),
        ("", ""),
        ("=\r\n", ""),
    ])
    func decodes(encoded: String, expected: String) {
        #expect(QuotedPrintable.decode(encoded) == Array(expected.utf8))
    }

    @Test func decodesNonUTF8Octets() {
        #expect(QuotedPrintable.decode("Andr=E9=00=FF".utf8) == [0x41, 0x6E, 0x64, 0x72, 0xE9, 0x00, 0xFF])
    }

    @Test(arguments: [
        ("Café", "Caf=C3=A9"),
        ("a=b", "a=3Db"),
        ("trailing \r\nspace", "trailing=20\r\nspace"),
        ("end\t", "end=09"),
        ("inner space stays", "inner space stays"),
        ("lf\nonly", "lf\r\nonly"),
        ("lone\rcr", "lone=0Dcr"),
        (
            String(repeating: "a", count: 100),
            String(repeating: "a", count: 75) + "=\r\n" + String(repeating: "a", count: 25)
        ),
        (String(repeating: "a", count: 74) + "é", String(repeating: "a", count: 74) + "=\r\n=C3=A9"),
    ])
    func encodes(plain: String, expected: String) {
        #expect(QuotedPrintable.encode(Array(plain.utf8)) == expected)
    }

    @Test func encodesLineBreaksOfBinaryData() {
        #expect(QuotedPrintable.encode([0x0D, 0x0A, 0x41, 0x0A], isText: false) == "=0D=0AA=0A")
    }

    @Test(arguments: [
        "Grüße aus Köln\r\nZweite Zeile mit = Zeichen \r\n",
        String(repeating: "日本語のテキスト ", count: 20),
        String(repeating: "x", count: 300) + "\r\n\r\n" + String(repeating: "= ", count: 80),
        "tab\tat end\t\r\nspace at end ",
    ])
    func roundTripsText(text: String) {
        let encoded = QuotedPrintable.encode(Array(text.utf8))
        #expect(QuotedPrintable.decode(encoded) == Array(text.utf8))
        let lengths = encoded.split(separator: "\r\n", omittingEmptySubsequences: false).map(\.utf8.count)
        #expect(lengths.allSatisfy { $0 <= 76 })
    }

    @Test func roundTripsBinary() {
        let bytes = (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 7) }
        let encoded = QuotedPrintable.encode(bytes, isText: false)
        #expect(QuotedPrintable.decode(encoded) == bytes)
        #expect(encoded.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 76 })
    }
}
