public import FoundationEssentials

// libc: localtime_r: the local time zone without Foundation's TimeZone start-up cost.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How far local time is ahead of UTC at each moment, for showing dates.
///
/// The tool links FoundationEssentials only (the full Foundation adds about 2 ms to every start),
/// and there `TimeZone.current` is always GMT: the zone database is in
/// FoundationInternationalization. ``system`` asks the C library instead (`TZ`, else
/// `/etc/localtime`), moment by moment, so summer and winter dates each get their own offset.
///
/// ```swift
/// LocalZone.system.secondsFromGMT(for: Date())  // 3600 in Berlin in January
/// ```
public struct LocalZone: Sendable {
    private let offset: @Sendable (Date) -> Int

    /// The offset in a Foundation time zone (where the program links Foundation's zone data).
    public init(_ timeZone: TimeZone) {
        offset = { timeZone.secondsFromGMT(for: $0) }
    }

    private init(offset: @escaping @Sendable (Date) -> Int) {
        self.offset = offset
    }

    /// The process's local time, as `localtime_r(3)` has it.
    public static let system = LocalZone { date in
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        guard localtime_r(&seconds, &fields) != nil else { return 0 }
        return Int(fields.tm_gmtoff)
    }

    /// Seconds east of UTC at `date`.
    public func secondsFromGMT(for date: Date) -> Int { offset(date) }

    /// A fixed-offset Foundation time zone for now's offset: what the query compiler needs to
    /// know which day "today" is.
    public func currentTimeZone(now: Date = Date()) -> TimeZone {
        TimeZone(secondsFromGMT: secondsFromGMT(for: now)) ?? TimeZone.gmt
    }
}
