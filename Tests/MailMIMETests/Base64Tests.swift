import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct Base64Tests {
    /// RFC 4648 section 10 test vectors.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: vectors)
    func encodes(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
    }

    @Test(arguments: vectors)
    func decodesVectorsLenientlyAndStrictly(plain: String, encoded: String) {
        #expect(Base64.decode(encoded) == Array(plain.utf8))
        #expect(Base64.decode(validating: encoded.utf8) == Array(plain.utf8))
    }

    @Test(arguments: [
        ("Zm9v\r\nYmFy", "foobar"),
        ("Zm9 vYm\tFy\n", "foobar"),
        ("Zm9v!!YmFy", "foobar"),
        ("Zg", "f"),
        ("Zm8", "fo"),
        ("Zm9vY", "foo"),
        ("Zg==Zm9v", "f"),
        ("Zm9v=YmFy", "foo"),
        ("====", ""),
        ("@#$%", ""),
    ])
    func decodesLeniently(encoded: String, plain: String) {
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test(arguments: ["Z", "Zg=", "Zm9vY", "Zm9v YmFy", "Zm9v\r\n", "Zg==Zg==", "Zm8==", "Zm9v=", "Zm9v!", "Zg=a"])
    func rejectsWhenValidating(encoded: String) {
        #expect(Base64.decode(validating: encoded.utf8) == nil)
    }

    @Test func breaksLinesWithCRLF() {
        let encoded = Base64.encode([UInt8](repeating: 0xFF, count: 60), lineLength: 76)
        let lines = encoded.split(separator: "\r\n", omittingEmptySubsequences: false)
        #expect(lines.map(\.count) == [76, 4])
        #expect(Base64.decode(encoded) == [UInt8](repeating: 0xFF, count: 60))
        #expect(!Base64.encode([UInt8](repeating: 0, count: 57), lineLength: 76).contains("\r\n"))
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 44, 45, 46, 57, 58, 255, 1000])
    func roundTrips(count: Int) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        #expect(Base64.decode(validating: Base64.encode(bytes).utf8) == bytes)
        #expect(Base64.decode(Base64.encode(bytes, lineLength: 76)) == bytes)
    }
}
