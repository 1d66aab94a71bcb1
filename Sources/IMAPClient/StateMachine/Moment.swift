/// A point on the continuous clock, as the state machine stores it.
///
/// `ContinuousClock.Instant` is not frozen: a struct or enum that stores one has its layout worked
/// out at run time, so every copy, destroy and case test of it goes through the runtime's value
/// witnesses. The machine's phase, its commands and the machine itself each held one, and the
/// machine tests its phase and its commands for every response it reads: a listing of 20,000
/// envelopes spent more there than in the state machine's own work. `Duration` is frozen, so a
/// `Moment` (a duration since one fixed instant) keeps those types' layouts known when compiling.
struct Moment: Comparable, Sendable {
    /// How long after `origin` this moment is.
    private let sinceOrigin: Duration

    init(_ instant: ContinuousClock.Instant) { sinceOrigin = Self.origin.duration(to: instant) }

    static func < (lhs: Moment, rhs: Moment) -> Bool { lhs.sinceOrigin < rhs.sinceOrigin }

    /// The time from `rhs` to `lhs`.
    static func - (lhs: Moment, rhs: Moment) -> Duration { lhs.sinceOrigin - rhs.sinceOrigin }

    /// Any fixed instant will do: moments are only compared and subtracted.
    private static let origin = ContinuousClock.now
}
