/// When a `Fault` fires: which command, which occurrence of it, for which user or session.
///
/// Occurrences are counted per server by default: `.command("FETCH", occurrence: 2)` fires on
/// the second FETCH the server receives, whichever session sends it. Only commands that match
/// the rule's command name, user and session are counted.
public struct FaultTrigger: Sendable, Hashable {
    /// How occurrences are counted.
    public enum Counting: Sendable, Hashable {
        /// Across every session of the server (the default).
        case perServer
        /// In each session on its own: `occurrence: 1` fires once in every session.
        case perSession
    }

    /// The command name as on the wire, `UID STORE`, case-insensitive; nil for every command.
    public var command: String?
    /// Which matching command fires, from 1; nil for every one.
    public var occurrence: Int?
    /// Only commands of sessions logged in as this user; nil for any session.
    public var user: String?
    /// Only commands of this session (`SessionInfo.id`); nil for any session.
    public var session: Int?
    /// How occurrences are counted.
    public var counting: Counting

    /// A trigger; every parameter left out matches everything.
    public init(
        command: String? = nil, occurrence: Int? = nil, user: String? = nil, session: Int? = nil,
        counting: Counting = .perServer
    ) {
        self.command = command.map(Self.normalized)
        self.occurrence = occurrence
        self.user = user
        self.session = session
        self.counting = counting
    }

    /// The `occurrence`th command named `name` (every one when nil).
    public static func command(
        _ name: String, occurrence: Int? = nil, user: String? = nil, session: Int? = nil,
        counting: Counting = .perServer
    ) -> FaultTrigger {
        FaultTrigger(command: name, occurrence: occurrence, user: user, session: session, counting: counting)
    }

    /// Every command of every session.
    public static let everyCommand = FaultTrigger()

    /// Whether a command of `session` logged in as `user` is one this trigger counts.
    func matches(command name: String, user: String?, session: Int) -> Bool {
        if let command, command != Self.normalized(name) { return false }
        if let wanted = self.user, wanted != user { return false }
        if let wanted = self.session, wanted != session { return false }
        return true
    }

    /// Upper case, single spaces: `uid  store` is `UID STORE`.
    static func normalized(_ name: String) -> String {
        name.uppercased().split(separator: " ").joined(separator: " ")
    }
}

/// A fault and when it fires.
///
/// ```swift
/// FaultRule(trigger: .command("UID STORE", occurrence: 2), fault: .respond(.no, code: "UNAVAILABLE", text: "later"))
/// FaultRule(trigger: .everyCommand, fault: .delay(.milliseconds(200)))
/// try FaultRule(parsing: "FETCH#1=close-after:100")     // the syntax of mock-imap-server --fault
/// ```
public struct FaultRule: Sendable, Hashable {
    /// When it fires.
    public var trigger: FaultTrigger
    /// What happens.
    public var fault: Fault

    /// A rule: `fault` on the commands `trigger` matches.
    public init(trigger: FaultTrigger, fault: Fault) {
        self.trigger = trigger
        self.fault = fault
    }

    /// Which rule of a server, as `FaultController.add` returns it.
    public struct ID: Sendable, Hashable {
        let value: Int
    }
}
