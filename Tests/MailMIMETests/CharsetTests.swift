import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct CharsetTests {
    @Test(
        arguments: [
            // Decoded in Swift.
            ([0x53, 0xC3, 0xB8, 0x72, 0x65, 0x6E], "utf-8", "Søren"),
            ([0x53, 0xC3, 0xB8, 0x72, 0x65, 0x6E], "UTF8", "Søren"),
            ([0x53, 0xC3, 0xB8, 0x72, 0x65, 0x6E], " \"Utf-8\" ", "Søren"),
            ([0xEF, 0xBB, 0xBF, 0x61], "utf-8", "a"),
            ([], "utf-8", ""),
            ([0x68, 0x69], "us-ascii", "hi"),
            ([0xC3, 0xA9], "US-ASCII", "é"),
            ([0xE9], "ascii", "é"),
            ([0x41, 0x6E, 0x64, 0x72, 0xE9], "ISO-8859-1", "André"),
            ([0x41, 0x6E, 0x64, 0x72, 0xE9], "latin1", "André"),
            ([0xA0, 0xFF], "iso_8859-1:1987", "\u{A0}ÿ"),
            ([0x80], "iso-8859-1", "€"),
            ([0x93, 0x48, 0x69, 0x94, 0x85], "cp1252", "“Hi”…"),
            ([0x80, 0x81, 0x9F], "Windows-1252", "€\u{81}Ÿ"),
            ([0xE9], "x-unknown", "é"),
            ([0xC3, 0xA9], "x-unknown", "é"),
            ([0xE9], "unknown-8bit", "é"),
            ([0xE9], "", "é"),
            // Decoded by iconv.
            ([0x5A, 0x61, 0xBF, 0xF3, 0xB3, 0xE6], "ISO-8859-2", "Zażółć"),
            ([0x5A, 0x61, 0xBF, 0xF3, 0xB3, 0xE6], "latin-2", "Zażółć"),
            ([0xA4], "iso8859-15", "€"),
            ([0xCA, 0xE1, 0xEB, 0xE7], "ISO-8859-7", "Καλη"),
            ([0xF0, 0xD2, 0xC9, 0xD7, 0xC5, 0xD4], "KOI8-R", "Привет"),
            ([0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2], "windows-1251", "Привет"),
            ([0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2], "cp-1251", "Привет"),
            ([0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2], "win-1251", "Привет"),
            ([0x8A, 0x9A], "windows-1250", "Šš"),
            ([0xC4, 0xE3, 0xBA, 0xC3], "GB2312", "你好"),
            ([0xE9, 0x46], "gb2312", "镕"),
            ([0xE9, 0x46], "x-gbk", "镕"),
            ([0xA2, 0xE3], "GB2312", "€"),
            ([0x81, 0x30, 0x81, 0x30], "GB18030", "\u{80}"),
            ([0xA5, 0x78, 0xA5, 0x5F], "Big5", "台北"),
            ([0x93, 0xFA, 0x96, 0x7B], "Shift_JIS", "日本"),
            ([0x5C, 0x7E], "shift_jis", "\\~"),
            ([0xB1], "x-sjis", "ｱ"),
            ([0x87, 0x40], "Shift_JIS", "①"),
            ([0xC5, 0xEC, 0xB5, 0xFE], "EUC-JP", "東京"),
            ([0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42], "ISO-2022-JP", "日本"),
            ([0x1B, 0x28, 0x49, 0x31, 0x1B, 0x28, 0x42], "iso-2022-jp", "ｱ"),
            ([0x1B, 0x24, 0x41, 0x3A, 0x3A, 0x1B, 0x28, 0x42], "ISO-2022-JP", "汉"),
            ([0xBE, 0xC8, 0xB3, 0xE7], "EUC-KR", "안녕"),
            ([0xBE, 0xC8, 0xB3, 0xE7], "ks_c_5601-1987", "안녕"),
            ([0x8E], "x-mac-roman", "é"),
            ([0x00, 0x41, 0xD8, 0x3D, 0xDE, 0x42], "UTF-16BE", "A🙂"),
            ([0xFF, 0xFE, 0x41, 0x00], "utf-16", "A"),
            ([0x2B, 0x41, 0x4B, 0x45, 0x2D], "UTF-7", "¡"),
        ] as [([UInt8], String, String)])
    func decodes(bytes: [UInt8], charset: String, expected: String) {
        #expect(Charset.decode(bytes, charset: charset) == expected)
    }

    @Test(
        arguments: [
            ([0xC3], "utf-8"),
            ([0xFF, 0x41], "UTF-8"),
            ([0xED, 0xA0, 0x80], "utf-8"),
            ([0x41], "x-no-such-charset"),
            ([0x41], "UTF-8//TRANSLIT"),
            ([0x41], "utf-8; format=flowed"),
            ([0x41], "ISO-8859-1//IGNORE"),
            ([0xB4], "EUC-JP"),
            ([0x81, 0x20], "Shift_JIS"),
            ([0xD8, 0x3D, 0x00, 0x41], "UTF-16BE"),
            ([0x1B, 0x24, 0x28, 0x5A, 0x21, 0x21, 0x1B, 0x28, 0x42], "ISO-2022-JP"),
        ] as [([UInt8], String)])
    func rejectsUnknownCharsetsAndInvalidBytes(bytes: [UInt8], charset: String) {
        #expect(Charset.decode(bytes, charset: charset) == nil)
    }

    @Test func growsTheOutputBuffer() {
        // Each Windows-1250 0x80 is "€", three bytes of UTF-8: more than the first buffer holds.
        let bytes = [UInt8](repeating: 0x80, count: 5000)
        #expect(Charset.decode(bytes, charset: "windows-1250") == String(repeating: "€", count: 5000))
    }

    @Test func decodesAnyCollection() {
        let bytes: ArraySlice<UInt8> = [0x00, 0xC4, 0xE3, 0xBA, 0xC3][1...]
        #expect(Charset.decode(bytes, charset: "gbk") == "你好")
        #expect(Charset.decode("Søren".utf8, charset: "utf-8") == "Søren")
    }

    @Test func decodesConcurrently() async {
        let results = await withTaskGroup(of: String?.self) { group in
            for index in 0..<64 {
                group.addTask {
                    index.isMultiple(of: 2)
                        ? Charset.decode([0xC4, 0xE3, 0xBA, 0xC3], charset: "GB2312")
                        : Charset.decode([0xF0, 0xD2, 0xC9, 0xD7, 0xC5, 0xD4], charset: "KOI8-R")
                }
            }
            var results: [String?] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(results.count == 64)
        #expect(results.filter { $0 == "你好" }.count == 32)
        #expect(results.filter { $0 == "Привет" }.count == 32)
    }
}
