public import IMAPCore

/// Which flags mean "read" and "pinned" (docs/inbox-view-model.md, FlagPolicy).
///
/// Read is always `\Seen`. Pinned is `\Flagged` unless a keyword such as `$Pinned` is configured
/// and the mailbox can store it (its PERMANENTFLAGS list the keyword or `\*`); otherwise it falls
/// back to `\Flagged` and says why.
public struct FlagPolicy: Hashable, Sendable {
    /// The configured pin keyword; nil pins with `\Flagged`.
    public var pinKeyword: Flag?

    /// A policy; `pinKeyword` nil (the default) pins with `\Flagged`.
    public init(pinKeyword: Flag? = nil) {
        self.pinKeyword = pinKeyword
    }

    /// The flag that marks a message read: `\Seen`.
    public var readFlag: Flag { .seen }

    /// The pin flag for a mailbox, and a warning when the configured keyword cannot be used there.
    ///
    /// `permanentFlags` nil means the server sent no PERMANENTFLAGS: then every flag in `flags`
    /// can be stored (RFC 3501 7.1).
    public func pinFlag(flags: [Flag], permanentFlags: [Flag]?) -> PinFlagResolution {
        guard let keyword = pinKeyword, keyword != .flagged else {
            return PinFlagResolution(flag: .flagged, warning: nil)
        }
        let storable = permanentFlags ?? flags
        if storable.contains(.wildcard) || storable.contains(keyword) {
            return PinFlagResolution(flag: keyword, warning: nil)
        }
        return PinFlagResolution(flag: .flagged, warning: FlagPolicyWarning(keyword: keyword))
    }
}

/// The pin flag chosen for one mailbox.
public struct PinFlagResolution: Hashable, Sendable {
    /// The flag to store and search for.
    public var flag: Flag
    /// Set when the configured keyword could not be used.
    public var warning: FlagPolicyWarning?

    /// A resolution.
    public init(flag: Flag, warning: FlagPolicyWarning?) {
        self.flag = flag
        self.warning = warning
    }
}

/// The configured pin keyword cannot be stored in this mailbox, so `\Flagged` is used instead.
public struct FlagPolicyWarning: Hashable, Sendable, CustomStringConvertible {
    /// The keyword that was configured.
    public var keyword: Flag

    /// A warning about `keyword`.
    public init(keyword: Flag) { self.keyword = keyword }

    /// One sentence for a person.
    public var message: String {
        "this mailbox cannot store the keyword \(keyword) (its PERMANENTFLAGS have neither it nor \\*), so pins use \\Flagged instead"
    }

    /// The same as `message`.

    public var description: String { message }
}
