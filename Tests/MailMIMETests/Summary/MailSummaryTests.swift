import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct MailSummaryTests {
    /// A message with `header` lines and a short body, CRLF line endings.
    private func message(_ header: String, body: String = "Hello") -> MIMEMessage {
        MIMEMessage(bytes: Array((header + "\n\n" + body).withCRLF.utf8))
    }

    // MARK: Subject

    @Test(arguments: [
        ("=?utf-8?q?R=C3=A9union_de_lundi?=", "Réunion de lundi"),
        ("=?ISO-8859-1?Q?Andr=E9?= est l\u{E0}", "André est là"),
        ("=?iso-8859-2?q?Za=BF=F3=B3=E6?= g\u{EA}", "Zażółć gê"),
        ("=?KOI8-R?B?8NLJ18XULCDNydI=?=", "Привет, мир"),
        ("=?ISO-2022-JP?B?GyRCJDMkcyRLJEEkT0AkMyYbKEI=?=", "こんにちは世界"),
        ("=?GB2312?B?xOO6w6OsysC95w==?=", "你好，世界"),
        ("=?utf-8?q?a?=\n =?utf-8?q?b?=", "ab"),
        ("Fwd: long\n\tfolded   subject  ", "Fwd: long folded subject"),
        ("=?utf-8?q?line=0Abreak?=", "line break"),
        ("=?bogus?q?kept?=", "=?bogus?q?kept?="),
        ("", ""),
    ])
    func decodesSubjects(raw: String, expected: String) {
        let summary = MailSummary(message: message("Subject: \(raw)\nFrom: a@b.example"))
        #expect(summary.subject == expected)
    }

    @Test func subjectBytesThatAreNotUTF8AreReadAsWindows1252() {
        #expect(MailSummary.decodedText([0x52, 0xE9, 0x75, 0x6E, 0x69, 0x6F, 0x6E]) == "Réunion")
    }

    @Test func lastSubjectCountsAndMissingSubjectIsEmpty() {
        #expect(MailSummary(message: message("Subject: one\nSubject: two")).subject == "two")
        #expect(MailSummary(message: message("From: a@b.example")).subject == "")
    }

    // MARK: People

    struct PeopleRow: Sendable, CustomTestStringConvertible {
        var field: String
        var people: [MailSummary.Person]
        var testDescription: String { field }
    }

    @Test(arguments: [
        PeopleRow(
            field: #""Smith, John" <john@x.example>, bob@y.example (Bob)"#,
            people: [
                .init(name: "Smith, John", address: "john@x.example"), .init(name: "Bob", address: "bob@y.example"),
            ]
        ),
        PeopleRow(
            field: #""Bob \"The Builder\" Jones" <bob@x.example>"#,
            people: [.init(name: #"Bob "The Builder" Jones"#, address: "bob@x.example")]),
        PeopleRow(field: "<only@x.example>", people: [.init(name: nil, address: "only@x.example")]),
        PeopleRow(field: "bare@x.example", people: [.init(name: nil, address: "bare@x.example")]),
        PeopleRow(
            field: "=?utf-8?q?Zo=C3=AB_=C3=9Cnal?= <zoe@x.example>",
            people: [.init(name: "Zoë Ünal", address: "zoe@x.example")]),
        PeopleRow(
            field: #""=?ISO-8859-1?Q?Andr=E9?=  Pirard" <andre@x.example>"#,
            people: [.init(name: "André Pirard", address: "andre@x.example")]),
        PeopleRow(
            field: "Team: ann@x.example, Carl <carl@x.example>;, dave@y.example",
            people: [
                .init(name: nil, address: "ann@x.example"), .init(name: "Carl", address: "carl@x.example"),
                .init(name: nil, address: "dave@y.example"),
            ]),
        PeopleRow(field: "undisclosed-recipients:;", people: []),
        PeopleRow(field: "Nobody <nobody>", people: [.init(name: "Nobody", address: "nobody")]),
    ])
    func decodesPeople(row: PeopleRow) {
        let summary = MailSummary(message: message("From: \(row.field)\nTo: \(row.field)\nCc: \(row.field)"))
        #expect(summary.from == row.people)
        #expect(summary.to == row.people)
        #expect(summary.cc == row.people)
    }

    @Test func repeatedAddressFieldsAddUp() {
        let summary = MailSummary(message: message("To: a@x.example\nTo: b@x.example"))
        #expect(summary.to.map(\.address) == ["a@x.example", "b@x.example"])
    }

    // MARK: Initials

    @Test(
        arguments: [
            ("Albus Dumbledore", "albus@x.example", "AD"),
            ("Albus Percival Wulfric Brian Dumbledore", "albus@x.example", "AD"),
            ("Mcgonagall", "minerva@x.example", "M"),
            ("", "x@y", "X"),
            (nil, "severus@x.example", "S"),
            ("Zoë Ünal", "zoe@x.example", "ZÜ"),
            ("zoë ünal", "zoe@x.example", "ZÜ"),
            ("Dumbledore, Albus", "albus@x.example", "AD"),
            ("Smith,John", "john@x.example", "JS"),
            (#""Quoted" (Name)"#, "q@x.example", "QN"),
            ("山田 太郎", "taro@x.example", "山太"),
            ("Иван Петров", "ivan@x.example", "ИП"),
            ("🎉 Party", "p@x.example", "P"),
            ("🎉", "party@x.example", "P"),
            ("straße", "s@x.example", "S"),
            ("", "", ""),
        ] as [(String?, String, String)])
    func initials(name: String?, address: String, expected: String) {
        #expect(MailSummary.Person(name: name, address: address).initials == expected)
    }

    // MARK: Envelope addresses

    @Test func serverMarkersForMissingPartsAreLeftOut() {
        func person(_ mailbox: String?, _ host: String?) -> MailSummary.Person? {
            MailSummary.Person(
                envelopeAddress: .init(
                    name: nil, mailbox: mailbox.map { Array($0.utf8) }, host: host.map { Array($0.utf8) }))
        }
        #expect(person("bob", "MISSING_DOMAIN")?.address == "bob")
        #expect(person("MISSING_MAILBOX", "x.example")?.address == "x.example")
        #expect(person("bob", "SYNTAX_ERROR")?.address == "bob")
        #expect(person("group", nil) == nil)
        #expect(person(nil, nil) == nil)
    }

    // MARK: Date

    @Test(arguments: [
        ("Fri, 01 Dec 2023 00:13:23 -0800 (PST)", 1_701_418_403),
        ("1 Dec 2023 08:13:23 GMT", 1_701_418_403),
    ])
    func decodesDates(raw: String, timestamp: Int) {
        let summary = MailSummary(message: message("Date: \(raw)"))
        #expect(summary.secondsSince1970 == timestamp)
        #expect(summary.date?.year == 2023)
    }

    @Test(arguments: ["yesterday", "31 Feb 2023 10:00:00 +0000", "Fri, 01 Dec 2023", ""])
    func badDatesAreNil(raw: String) {
        let summary = MailSummary(message: message("Date: \(raw)"))
        #expect(summary.date == nil)
        #expect(summary.secondsSince1970 == nil)
    }

    @Test func missingDateIsNil() {
        #expect(MailSummary(message: message("Subject: x")).date == nil)
    }

    // MARK: The rest

    @Test func sizePreviewFlagsAndAttachment() {
        let raw = """
            Subject: report
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="b"

            --b
            Content-Type: text/plain; charset=utf-8

            > earlier
            See the attached report.
            --b
            Content-Type: application/pdf; name="report.pdf"
            Content-Transfer-Encoding: base64

            JVBERi0=
            --b--
            """.withCRLF
        let summary = MailSummary(
            message: MIMEMessage(bytes: Array(raw.utf8)), flags: ["\\Seen", "$Pinned", "\\Recent"])
        #expect(summary.preview == "See the attached report.")
        #expect(summary.hasAttachment)
        #expect(summary.size == raw.utf8.count)
        #expect(summary.flags == ["$Pinned", "\\Seen"])
    }
}

/// `decodedText` takes shortcuts for ASCII text and for text whose scalars are Characters of
/// their own; each input here must come out exactly as the Character walk makes it.
@Suite(.hangGuard) struct DecodedTextShortcutTests {
    /// The Character walk the shortcuts stand in for (as `decodedText` did before them).
    private func characterWalk(_ raw: [UInt8]) -> String {
        let text = Charset.decode(raw, charset: "unknown-8bit") ?? String(decoding: raw, as: UTF8.self)
        var result = ""
        var pendingSpace = false
        for character in EncodedWords.decode(text) {
            if character.isWhitespace || character.isNewline {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace {
                    result.append(" ")
                    pendingSpace = false
                }
                result.append(character)
            }
        }
        return result
    }

    @Test(arguments: [
        "plain", "  lead and trail  ", "tab\there", "line\r\nfold", "vt\u{0B}ff\u{0C}cr\rlf\n", "nul\u{00}soh\u{01}",
        "unit\u{1F}sep", "a=?b", "=?utf-8?q?Andr=C3=A9?=", "x =?utf-8?b?w6k=?= y", "Søren Ünal", "nbsp\u{A0}here",
        "nel\u{85}here", "Ελληνικά κείμενο", "Анна Петрова", "田中 花子", "ひらがな カタカナ", "コーヒー", "김민준",
        "space then mark \u{301}e", "e\u{301} composed", "emoji 📰 news", "flag 🇯🇵", "ideographic\u{3000}space",
        "Cyrillic mark \u{483}x", "", "   ", "single spaces only", "double  space", " lead", "trail ", "a=b?c",
        "ends with =", "=?", "x?=y", "alice@example.com", "x",
    ])
    func sameAsTheCharacterWalk(text: String) {
        let raw = Array(text.utf8)
        #expect(MailSummary.decodedText(raw) == characterWalk(raw))
    }

    @Test func notUTF8() {
        let raw: [UInt8] = [0x20, 0x52, 0xE9, 0x09, 0x75, 0x6E, 0x20, 0x20]
        #expect(MailSummary.decodedText(raw) == characterWalk(raw))
        #expect(MailSummary.decodedText(raw) == "Ré un")
    }
}
