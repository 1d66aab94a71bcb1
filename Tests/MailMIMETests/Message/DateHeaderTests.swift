import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct DateHeaderTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let value: String
        let fields: [Int]  // year, month, day, hour, minute, second, zone minutes
        let timestamp: Int
        var testDescription: String { value }
    }

    /// RFC 5322 3.3 dates and the obsolete forms of 4.3 that real mail carries.
    static let valid: [Case] = [
        Case(value: "Fri, 01 Dec 2023 00:13:23 -0000", fields: [2023, 12, 1, 0, 13, 23, 0], timestamp: 1_701_389_603),
        Case(value: "1 Dec 2023 00:13:23 +0000", fields: [2023, 12, 1, 0, 13, 23, 0], timestamp: 1_701_389_603),
        Case(value: "Fri, 01 Dec 23 00:13:23 +0100", fields: [2023, 12, 1, 0, 13, 23, 60], timestamp: 1_701_386_003),
        Case(value: "Wed, 01 Dec 99 00:13:23 +0100", fields: [1999, 12, 1, 0, 13, 23, 60], timestamp: 944_003_603),
        Case(value: "Fri, 01 Dec 123 00:13:23 +0100", fields: [2023, 12, 1, 0, 13, 23, 60], timestamp: 1_701_386_003),
        Case(value: "Fri, 1 Dec 2023 00:13 +0100", fields: [2023, 12, 1, 0, 13, 0, 60], timestamp: 1_701_385_980),
        Case(
            value: "Thu,  30 Nov 2023 16:13:23 -0800 (PST)", fields: [2023, 11, 30, 16, 13, 23, -480],
            timestamp: 1_701_389_603),
        Case(value: "Fri, 01 Dec 2023 00:13:23 EST", fields: [2023, 12, 1, 0, 13, 23, -300], timestamp: 1_701_407_603),
        Case(value: "Fri, 01 Dec 2023 00:13:23 GMT", fields: [2023, 12, 1, 0, 13, 23, 0], timestamp: 1_701_389_603),
        Case(value: "Fri, 01 Dec 2023 00:13:23 UT", fields: [2023, 12, 1, 0, 13, 23, 0], timestamp: 1_701_389_603),
        // Military zones mean "unknown" (RFC 5322 4.3): treated as -0000.
        Case(value: "Fri, 01 Dec 2023 00:13:23 Q", fields: [2023, 12, 1, 0, 13, 23, 0], timestamp: 1_701_389_603),
        Case(value: "Fri Dec  1 00:13:23 2023", fields: [2023, 12, 1, 0, 13, 23, 0], timestamp: 1_701_389_603),
        Case(
            value: "  Fri,  1   Dec 2023   00:13:23   +0530 ", fields: [2023, 12, 1, 0, 13, 23, 330],
            timestamp: 1_701_369_803),
        Case(
            value: "Thu, 29 Feb 2024 23:59:59 -1200 (a (nested) comment)", fields: [2024, 2, 29, 23, 59, 59, -720],
            timestamp: 1_709_294_399),
        Case(value: "Dec 1 2023 00:13:23 +0000", fields: [2023, 12, 1, 0, 13, 23, 0], timestamp: 1_701_389_603),
    ]

    @Test(arguments: valid) func parses(date: Case) throws {
        let parsed = try #require(DateHeader.parse(date.value))
        #expect(
            [
                parsed.year, parsed.month, parsed.day, parsed.hour, parsed.minute, parsed.second,
                parsed.zoneOffsetMinutes,
            ]
                == date.fields)
        #expect(parsed.timestamp == date.timestamp)
    }

    @Test(arguments: [
        "", "not a date", "Fri, 31 Feb 2024 10:00:00 +0000", "Fri, 01 Dec 2023", "Fri, 01 Foo 2023 10:00:00 +0000",
        "Fri, 01 Dec 2023 25:00:00 +0000", "12:00:00",
    ])
    func rejects(value: String) {
        #expect(DateHeader.parse(value) == nil)
    }

    @Test func keepsTheWallClockOfTheHeadersZone() throws {
        // 23:30 in New York on the 1st is already the 2nd in UTC: SENTON compares the 1st.
        let date = try #require(DateHeader.parse("Fri, 1 Dec 2023 23:30:00 -0500"))
        #expect(date.day == 1)
        #expect(date.timestamp == 1_701_491_400)
    }
}
