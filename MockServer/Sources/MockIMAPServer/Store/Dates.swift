import IMAPCore

#if canImport(Glibc)
import Glibc
#endif

extension IMAPDateTime {
    /// The date-time `seconds` after 1970-01-01 00:00 UTC, shown in the zone `zoneMinutes` east
    /// of UTC.
    init(secondsSinceEpoch seconds: Int, zoneMinutes: Int = 0) {
        let local = seconds + zoneMinutes * 60
        let days = local >= 0 ? local / 86400 : (local - 86399) / 86400
        let rest = local - days * 86400
        // Every component is in range by construction.
        self.init(
            date: IMAPDate(daysSinceEpoch: days), hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60,
            zoneMinutes: zoneMinutes)!
    }

    /// Now, in UTC.
    static var now: IMAPDateTime { IMAPDateTime(secondsSinceEpoch: currentSecondsSinceEpoch()) }
}

/// Seconds since 1970-01-01 00:00 UTC.
func currentSecondsSinceEpoch() -> Int { Int(time(nil)) }
