import Foundation
import TestSupport
import Testing

@testable import MailSearchCLI

/// The calendar arithmetic of dates in rows and JSON agrees with Foundation's Calendar.
@Suite(.hangGuard) struct CivilTimeTests {
    @Test func agreesWithFoundationAcrossCenturiesAndLeapDays() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var seconds = -2_208_988_800  // 1900-01-01
        while seconds < 7_258_118_400 {  // 2200-01-01
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let expected = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let time = CivilTime(date)
            #expect(
                [time.year, time.month, time.day, time.hour, time.minute, time.second]
                    == [expected.year, expected.month, expected.day, expected.hour, expected.minute, expected.second],
                "\(seconds)")
            seconds += 86_400 * 7 + 3_607
        }
    }

    @Test func timestampsAndRowDates() {
        #expect(EmailJSON.timestamp(Date(timeIntervalSince1970: 1_701_390_150)) == "2023-12-01T00:22:30Z")
        #expect(EmailJSON.timestamp(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        // Four digits of year at least, zeros in front; more when the year has them.
        #expect(EmailJSON.timestamp(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00Z")
        #expect(EmailJSON.timestamp(Date(timeIntervalSince1970: -59_011_459_201)) == "0099-12-31T23:59:59Z")
        #expect(EmailJSON.timestamp(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
        let now = Date(timeIntervalSince1970: 1_710_504_000)  // 2024-03-15 12:00 UTC
        let utc = LocalZone(TimeZone(identifier: "UTC")!)
        #expect(MessageRows.formatDate(Date(timeIntervalSince1970: 1_710_511_500), now: now, timeZone: utc) == "14:05")
        #expect(MessageRows.formatDate(Date(timeIntervalSince1970: 1_709_640_000), now: now, timeZone: utc) == "Mar 5")
        #expect(
            MessageRows.formatDate(Date(timeIntervalSince1970: 1_678_017_600), now: now, timeZone: utc) == "2023-03-05")
        // 23:30 UTC on the 14th is already the 15th in Tokyo: "today".
        let tokyo = LocalZone(TimeZone(identifier: "Asia/Tokyo")!)
        #expect(
            MessageRows.formatDate(Date(timeIntervalSince1970: 1_710_459_000), now: now, timeZone: tokyo) == "08:30")
    }
}
