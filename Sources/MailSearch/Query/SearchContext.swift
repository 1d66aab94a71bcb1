public import FoundationEssentials
public import IMAPClient
public import IMAPCore

/// What the compiler needs to know about the server and the mailbox: the capabilities, what was
/// enabled, the mailbox's flags, the flag policy and which day is today.
///
/// A plain value, so compiling a query is a pure function of (query, context).
public struct SearchContext: Hashable, Sendable {
    /// The server's capabilities (CAPABILITY).
    public var capabilities: Set<Capability>
    /// Capabilities switched on with ENABLE (UTF8=ACCEPT).
    public var enabledCapabilities: Set<Capability>
    /// The mailbox's FLAGS.
    public var mailboxFlags: [Flag]
    /// The mailbox's PERMANENTFLAGS; nil when the server sent none.
    public var permanentFlags: [Flag]?
    /// Which flags mean read and pinned.
    public var flagPolicy: FlagPolicy
    /// The day relative dates count from, in the person's time zone.
    public var today: IMAPDate

    /// A context with every part given.
    public init(
        capabilities: Set<Capability> = [.imap4rev1], enabledCapabilities: Set<Capability> = [],
        mailboxFlags: [Flag] = [.answered, .flagged, .deleted, .seen, .draft], permanentFlags: [Flag]? = nil,
        flagPolicy: FlagPolicy = FlagPolicy(), today: IMAPDate
    ) {
        self.capabilities = capabilities
        self.enabledCapabilities = enabledCapabilities
        self.mailboxFlags = mailboxFlags
        self.permanentFlags = permanentFlags
        self.flagPolicy = flagPolicy
        self.today = today
    }

    /// A context whose `today` is the calendar day of `now` in `timeZone`.
    public init(
        capabilities: Set<Capability>, enabledCapabilities: Set<Capability> = [], mailboxFlags: [Flag],
        permanentFlags: [Flag]?, flagPolicy: FlagPolicy = FlagPolicy(), now: Date, timeZone: TimeZone
    ) {
        self.init(
            capabilities: capabilities, enabledCapabilities: enabledCapabilities, mailboxFlags: mailboxFlags,
            permanentFlags: permanentFlags, flagPolicy: flagPolicy, today: Self.day(of: now, in: timeZone))
    }

    /// A context for the session's selected `mailbox`.
    ///
    /// `SelectedMailbox` cannot tell "no PERMANENTFLAGS sent" from `PERMANENTFLAGS ()`: an empty
    /// list counts as "not sent" (FLAGS decide) unless the mailbox is read-only, where nothing can
    /// be stored.
    public init(
        capabilities: Set<Capability>, enabledCapabilities: Set<Capability>, mailbox: SelectedMailbox,
        flagPolicy: FlagPolicy = FlagPolicy(), today: IMAPDate
    ) {
        let permanentFlags: [Flag]? =
            mailbox.isReadOnly ? [] : mailbox.permanentFlags.isEmpty ? nil : mailbox.permanentFlags
        self.init(
            capabilities: capabilities, enabledCapabilities: enabledCapabilities, mailboxFlags: mailbox.flags,
            permanentFlags: permanentFlags, flagPolicy: flagPolicy, today: today)
    }

    /// The calendar day (Gregorian) of `date` in `timeZone`.
    public static func day(of date: Date, in timeZone: TimeZone) -> IMAPDate {
        let seconds = Int((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))).rounded(.down))
        return IMAPDate(daysSinceEpoch: seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400)
    }

    /// Whether the server is Gmail (X-GM-EXT-1).
    public var isGmail: Bool { capabilities.contains(.gmailExtensions) }

    /// The pin flag for this mailbox, with a warning when the configured keyword falls back.
    public var pinFlag: PinFlagResolution {
        flagPolicy.pinFlag(flags: mailboxFlags, permanentFlags: permanentFlags)
    }
}
