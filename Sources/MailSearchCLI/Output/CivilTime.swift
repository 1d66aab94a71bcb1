import FoundationEssentials

/// Calendar fields of a moment without Foundation's `Calendar`, which costs tens of
/// microseconds a call: 20,000 JSON lines spent most of their time there. Proleptic Gregorian,
/// from days since 1970 (Howard Hinnant's `civil_from_days`).
struct CivilTime: Hashable, Sendable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    /// The fields of `date` at `offset` seconds east of UTC (0 for UTC).
    init(_ date: Date, offset: Int = 0) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondsOfDay = seconds - days * 86400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        hour = secondsOfDay / 3600
        minute = secondsOfDay % 3600 / 60
        second = secondsOfDay % 60
    }

    /// The fields of `date` in `timeZone` (its offset at that moment).
    init(_ date: Date, in timeZone: LocalZone) {
        self.init(date, offset: timeZone.secondsFromGMT(for: date))
    }
}
