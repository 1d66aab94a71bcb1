import IMAPCore

#if canImport(Glibc)
import Glibc
#endif

extension IMAPDateTime {
    /// Now, in UTC.
    static var now: IMAPDateTime { IMAPDateTime(secondsSinceEpoch: currentSecondsSinceEpoch()) }
}

/// Seconds since 1970-01-01 00:00 UTC.
func currentSecondsSinceEpoch() -> Int { Int(time(nil)) }
