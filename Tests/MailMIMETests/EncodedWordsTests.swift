import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct EncodedWordsTests {
    // MARK: Decoding

    @Test(arguments: [
        ("=?utf-8?q?S=C3=B8ren?= Tanaka", "Søren Tanaka"),
        ("=?ISO-8859-1?Q?Andr=E9?= Pirard <PIRARD@vm1.ulg.ac.be>", "André Pirard <PIRARD@vm1.ulg.ac.be>"),
        ("=?UTF-8?b?w7g=?=", "ø"),
        ("=?UTF-8?B?w7g?=", "ø"),
        ("=?windows-1252?B?gCAxMCCWIJNDYWbplA==?=", "€ 10 – “Café”"),
        ("=?ISO-2022-JP?B?GyRCJDMkcyRLJEEkT0AkMyYbKEI=?=", "こんにちは世界"),
        ("=?KOI8-R?B?8NLJ18XULCDNydI=?=", "Привет, мир"),
        ("=?koi8-r?q?=F0=D2=C9=D7=C5=D4?=", "Привет"),
        ("=?GB2312?B?xOO6w6OsysC95w==?=", "你好，世界"),
        ("=?Shift_JIS?B?k/qWe4zqg2WDTINYg2c=?=", "日本語テキスト"),
        ("=?big5?B?pXilX6Wr?=", "台北市"),
        ("=?ks_c_5601-1987?B?vsiz58fPvLy/5A==?=", "안녕하세요"),
        ("=?EUC-JP?B?xey1/sXU?=", "東京都"),
        ("=?iso-8859-2?q?Za=BF=F3=B3=E6_g=EA=B6l=B1?=", "Zażółć gęślą"),
        ("=?ISO-8859-7?Q?=CA=E1=EB=E7=EC=DD=F1=E1?=", "Καλημέρα"),
        ("=?iso-8859-15?q?=A4uro?=", "€uro"),
    ])
    func decodesCharsets(encoded: String, expected: String) {
        #expect(EncodedWords.decode(encoded) == expected)
    }

    /// RFC 2047 section 8, and RFC 2231 section 5.
    @Test(arguments: [
        ("(=?ISO-8859-1?Q?a?=)", "(a)"),
        ("(=?ISO-8859-1?Q?a?= b)", "(a b)"),
        ("(=?ISO-8859-1?Q?a?=  b)", "(a  b)"),
        ("(=?ISO-8859-1?Q?a?= =?ISO-8859-1?Q?b?=)", "(ab)"),
        ("(=?ISO-8859-1?Q?a?=  =?ISO-8859-1?Q?b?=)", "(ab)"),
        ("(=?ISO-8859-1?Q?a?=\r\n    =?ISO-8859-1?Q?b?=)", "(ab)"),
        ("(=?ISO-8859-1?Q?a_b?=)", "(a b)"),
        ("(=?ISO-8859-1?Q?a?= =?ISO-8859-2?Q?_b?=)", "(a b)"),
        ("=?US-ASCII?Q?Keith_Moore?= <moore@cs.utk.edu>", "Keith Moore <moore@cs.utk.edu>"),
        ("=?ISO-8859-1?Q?Keld_J=F8rn_Simonsen?= <keld@dkuug.dk>", "Keld Jørn Simonsen <keld@dkuug.dk>"),
        ("=?ISO-8859-1?Q?Olle_J=E4rnefors?= <ojarnef@admin.kth.se>", "Olle Järnefors <ojarnef@admin.kth.se>"),
        (
            "=?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?=\r\n =?ISO-8859-2?B?dSB1bmRlcnN0YW5kIHRoZSBleGFtcGxlLg==?=",
            "If you can read this you understand the example."
        ),
        (
            "Nathaniel Borenstein <nsb@thumper.bellcore.com>\r\n    (=?iso-8859-8?b?7eXs+SDv4SDp7Oj08A==?=)",
            "Nathaniel Borenstein <nsb@thumper.bellcore.com>\r\n    (םולש ןב ילטפנ)"
        ),
        ("=?US-ASCII*EN?Q?Keith_Moore?=", "Keith Moore"),
        ("=?utf-8*de-DE?q?Gr=C3=BC=C3=9Fe?=", "Grüße"),
    ])
    func decodesRFCExamples(encoded: String, expected: String) {
        #expect(EncodedWords.decode(encoded) == expected)
    }

    @Test(arguments: [
        ("=?utf-8?q?Hello?= =?utf-8?q?_World?=", "Hello World"),
        ("=?utf-8?q?S=C3?= =?utf-8?q?=B8ren?=", "Søren"),
        ("=?UTF-8?B?8J8=?= =?UTF-8?B?mYI=?=", "🙂"),
        ("=?UTF-8?B?5pel5g==?=\r\n =?utf-8?B?nKw=?=", "日本"),
        ("=?UTF-8?B?5pel5g==?=\n\t=?UTF8?B?nKw=?=", "日本"),
        ("=?utf-8?q?S=C3?==?utf-8?q?=B8ren?=", "Søren"),
        ("=?iso-8859-1?q?caf=E9?= =?utf-8?q?_na=C3=AFve?=", "café naïve"),
        ("Re: =?utf-8?q?caf=C3=A9?= and =?utf-8?q?cr=C3=A8me?=", "Re: café and crème"),
        ("Re:=?utf-8?q?=C3=A9t=C3=A9?=!", "Re:été!"),
        ("\"=?utf-8?q?Tanaka=2C_S=C3=B8ren?=\" <s@example.com>", "\"Tanaka, Søren\" <s@example.com>"),
        ("=?utf-8?q?100=_sure?=", "100= sure"),
        ("=?utf-8?Q?Really??=", "Really?"),
        ("=?utf-8?q??=", ""),
        ("=?=?utf-8?q?x?=", "=?x"),
    ])
    func joinsAndSeparatesWords(encoded: String, expected: String) {
        #expect(EncodedWords.decode(encoded) == expected)
    }

    @Test(arguments: [
        "Plain subject  with\tspaces ",
        "",
        "a =? b ?= c",
        "=?utf-8?B?w7g*?=",
        "=?utf-8?B?w?=",
        "=?x-no-such-charset?Q?abc?=",
        "=?utf-8?Q?abc",
        "=?utf-8?Q?abc?",
        "=?utf-8?X?abc?=",
        "=?utf-8?Q?a b?=",
        "=?utf-8?Q?=FF?=",
        "=??Q?abc?=",
        "=?*en?Q?abc?=",
        "=?utf-8//TRANSLIT?Q?abc?=",
        "=?utf-8?Q?caf\u{E9}?=",
    ])
    func leavesMalformedWordsAsTheyAre(text: String) {
        #expect(EncodedWords.decode(text) == text)
    }

    @Test(arguments: [
        ("=?utf-8?q?ok?= =?bogus?q?x?= =?utf-8?q?fine?=", "ok =?bogus?q?x?= fine"),
        ("=?utf-8?q?ok?=\r\n =?utf-8?q?=FF?=", "ok\r\n =?utf-8?q?=FF?="),
        ("=?utf-8?q?a?= =?utf-8?q?=FF?= =?utf-8?q?b?=", "a =?utf-8?q?=FF?= b"),
        ("=?utf-8?B?bad!?= =?utf-8?q?good?=", "=?utf-8?B?bad!?= good"),
    ])
    func keepsWhitespaceNextToMalformedWords(encoded: String, expected: String) {
        #expect(EncodedWords.decode(encoded) == expected)
    }

    /// Every `=?` starts a candidate word; without a `?=` anywhere, the text must still be scanned
    /// once, not once per candidate.
    @Test(.timeLimit(.minutes(1)))
    func unterminatedWordsTakeLinearTime() {
        let text = String(repeating: "=?utf-8?q?x", count: 40_000)
        #expect(EncodedWords.decode(text) == text)
        // Terminated, it is one long Q word whose `=?u` are not hex octets and stay as they are.
        #expect(EncodedWords.decode(text + "?=") == String(text.dropFirst(10)))
    }

    @Test func decodesRawBytes() {
        #expect(EncodedWords.decode(Array("=?utf-8?q?S=C3=B8ren?= Tanaka".utf8)) == "Søren Tanaka")
        #expect(EncodedWords.decode(Array("Grüße =?utf-8?q?aus?=".utf8)[...]) == "Grüße aus")
        #expect(
            EncodedWords.decode([
                0x61, 0xFF, 0x20, 0x3D, 0x3F, 0x75, 0x74, 0x66, 0x38, 0x3F, 0x51, 0x3F, 0x62, 0x3F, 0x3D,
            ]) == "a\u{FFFD} b")
    }

    // MARK: Encoding

    @Test(arguments: [
        ("Hello World", "Hello World"),
        ("", ""),
        ("Søren Tanaka", "=?UTF-8?Q?S=C3=B8ren?= Tanaka"),
        ("Tanaka Søren", "Tanaka =?UTF-8?Q?S=C3=B8ren?="),
        ("日本語", "=?UTF-8?B?5pel5pys6Kqe?="),
        ("Grüße aus Köln", "=?UTF-8?Q?Gr=C3=BC=C3=9Fe?= aus =?UTF-8?Q?K=C3=B6ln?="),
        ("café crème", "=?UTF-8?Q?caf=C3=A9_cr=C3=A8me?="),
        ("  Søren  ", "  =?UTF-8?Q?S=C3=B8ren?=  "),
        ("x =?y?q?z?=", "x =?UTF-8?B?PT95P3E/ej89?="),
        ("Ünïcödé (test)", "=?UTF-8?B?w5xuw69jw7Zkw6k=?= (test)"),
    ])
    func encodes(text: String, expected: String) {
        #expect(EncodedWords.encode(text) == expected)
    }

    static let roundTripTexts: [String] = [
        "Søren Tanaka",
        "日本語のメールの件名はとても長くなることがあります。エンコードされた単語は七十五文字以内でなければなりません。",
        "台北 日本語 Seoul 서울",
        "🙂 Emoji 👨‍👩‍👧‍👦 family 🏳️‍🌈 flags 🇯🇵🇩🇪",
        String(repeating: "🙂", count: 40),
        "e" + String(repeating: "\u{301}", count: 40) + " combining",
        "Grüße,   aus\tKöln  ",
        "Prix: 10 € (remise = 5 %) \"sic\" <a@b> ?=",
        "Re: Fwd: =?utf-8?q?not_really?= Ω",
        String(repeating: "ä", count: 100),
        "Привет, мир! Как дела?",
    ]

    @Test(arguments: roundTripTexts)
    func roundTrips(text: String) {
        let encoded = EncodedWords.encode(text)
        #expect(EncodedWords.decode(encoded) == text)
        #expect(encoded.utf8.allSatisfy { $0 < 0x80 })
        let words = encoded.split(whereSeparator: { $0 == " " || $0 == "\t" }).filter { $0.hasPrefix("=?UTF-8?") }
        #expect(!words.isEmpty)
        #expect(words.allSatisfy { $0.utf8.count <= 75 })
    }
}
