/// Which faults fire on which command: the rules, their occurrence counts, the command ordinal
/// for random faults, and the log of what fired. No I/O: the server keeps one behind a lock
/// (`FaultController`), every connection driver reports each command to it and applies the
/// `FaultEffects` it gets back.
///
/// ```
/// var injector = FaultInjector(plan: [FaultRule(trigger: .command("NOOP", occurrence: 2), fault: .stall)])
/// injector.commandReceived(name: "NOOP", tag: "a", user: nil, session: 1)   // no effects
/// injector.commandReceived(name: "NOOP", tag: "b", user: nil, session: 2)   // .stall
/// ```
package struct FaultInjector: Sendable {
    private struct Entry: Sendable {
        let id: FaultRule.ID
        let rule: FaultRule
        var count = 0
        var sessionCounts: [Int: Int] = [:]
    }

    private var entries: [Entry] = []
    private var nextID = 1
    /// Commands received so far, server-wide (the ordinal of random faults).
    package private(set) var commandCount = 0
    /// Seeded random faults, or nil.
    package var random: RandomFaults?
    /// Every fault that fired, in order (the first `maximumFiredRecords`).
    package private(set) var fired: [FiredFault] = []
    /// Most faults kept in `fired`, so a rule on every command of a long-running server does not
    /// grow without bound.
    package static let maximumFiredRecords = 100_000

    /// An injector with the rules and random faults of `plan`.
    package init(plan: FaultPlan = []) {
        random = plan.random
        for rule in plan.rules { add(rule) }
    }

    /// The rules, in the order they apply.
    package var rules: [FaultRule] { entries.map(\.rule) }

    /// Adds a rule; its occurrences count from now.
    @discardableResult
    package mutating func add(_ rule: FaultRule) -> FaultRule.ID {
        let id = FaultRule.ID(value: nextID)
        nextID += 1
        entries.append(Entry(id: id, rule: rule))
        return id
    }

    /// Removes a rule; false when there was none with `id`.
    @discardableResult
    package mutating func remove(_ id: FaultRule.ID) -> Bool {
        let before = entries.count
        entries.removeAll { $0.id == id }
        return entries.count != before
    }

    /// Removes every rule and the random faults (the log of fired faults stays).
    package mutating func removeAll() {
        entries.removeAll()
        random = nil
    }

    /// A command arrived on `session` (logged in as `user`, if anyone): the faults that fire.
    package mutating func commandReceived(name: String, tag: String, user: String?, session: Int) -> FaultEffects {
        commandCount += 1
        var faults: [Fault] = []
        for index in entries.indices {
            let trigger = entries[index].rule.trigger
            guard trigger.matches(command: name, user: user, session: session) else { continue }
            let count: Int
            switch trigger.counting {
            case .perServer:
                entries[index].count += 1
                count = entries[index].count
            case .perSession:
                count = entries[index].sessionCounts[session, default: 0] + 1
                entries[index].sessionCounts[session] = count
            }
            if let occurrence = trigger.occurrence, occurrence != count { continue }
            faults.append(entries[index].rule.fault)
        }
        if let fault = random?.fault(forCommand: commandCount) { faults.append(fault) }
        for fault in faults where fired.count < Self.maximumFiredRecords {
            fired.append(FiredFault(ordinal: commandCount, session: session, command: name, tag: tag, fault: fault))
        }
        return FaultEffects(faults)
    }
}

/// A fault that fired: on which command, of which session.
public struct FiredFault: Sendable, Hashable {
    /// The command's ordinal among every command the server received, from 1.
    public let ordinal: Int
    /// The session (`SessionInfo.id`).
    public let session: Int
    /// The command name, `UID STORE`.
    public let command: String
    /// The command's tag.
    public let tag: String
    /// What happened.
    public let fault: Fault

    /// A record of `fault` firing on a command.
    package init(ordinal: Int, session: Int, command: String, tag: String, fault: Fault) {
        self.ordinal = ordinal
        self.session = session
        self.command = command
        self.tag = tag
        self.fault = fault
    }
}
