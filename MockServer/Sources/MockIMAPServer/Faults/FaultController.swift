import Synchronization

/// The faults of a running server (`MockIMAPServer.faults`): add and remove rules while tests
/// run, and read which faults fired.
///
/// ```swift
/// let id = server.faults.add(FaultRule(trigger: .command("FETCH", occurrence: 1), fault: .closeAfter(bytes: 100)))
/// // ... the client's next FETCH gets 100 bytes, then the connection closes ...
/// #expect(server.faults.fired.map(\.command) == ["FETCH"])
/// server.faults.remove(id)    // or server.faults.removeAll()
/// ```
/// A rule's occurrences count from when it was added, across every session (see
/// `FaultTrigger.Counting`).
public final class FaultController: Sendable {
    private let injector: Mutex<FaultInjector>
    private let changes = ChangeSignal()

    init(plan: FaultPlan) {
        injector = Mutex(FaultInjector(plan: plan))
    }

    /// Adds a rule; it applies to the next command of any session.
    @discardableResult
    public func add(_ rule: FaultRule) -> FaultRule.ID {
        injector.withLock { $0.add(rule) }
    }

    /// Adds `fault` on the commands `trigger` matches.
    @discardableResult
    public func add(_ trigger: FaultTrigger, _ fault: Fault) -> FaultRule.ID {
        add(FaultRule(trigger: trigger, fault: fault))
    }

    /// Removes a rule; false when it was already gone.
    @discardableResult
    public func remove(_ id: FaultRule.ID) -> Bool {
        injector.withLock { $0.remove(id) }
    }

    /// Removes every rule and the random faults. Commands already stalled stay stalled.
    public func removeAll() {
        injector.withLock { $0.removeAll() }
    }

    /// Sets (or, with nil, removes) seeded random faults.
    public func setRandom(_ random: RandomFaults?) {
        injector.withLock { $0.random = random }
    }

    /// The rules in force, in order.
    public var rules: [FaultRule] { injector.withLock { $0.rules } }

    /// Every fault that fired so far, in order (at most 100,000 are kept).
    public var fired: [FiredFault] { injector.withLock { $0.fired } }

    /// How many commands the server has received (the ordinal of the last one).
    public var commandCount: Int { injector.withLock { $0.commandCount } }

    /// Waits until at least `count` faults have fired (or `timeout` passes); whether they have.
    ///
    /// ```swift
    /// server.faults.add(.command("NOOP"), .delay(.seconds(600)))
    /// try await client.send("n NOOP\r\n")
    /// #expect(await server.faults.waitUntilFired(count: 1))   // the delay has begun
    /// ```
    public func waitUntilFired(count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await changes.wait(timeout: timeout) { self.injector.withLock { $0.fired.count } >= count }
    }

    /// Reports a command; the effects to apply to it.
    func commandReceived(name: String, tag: String, user: String?, session: Int) -> FaultEffects {
        let (effects, firedCount) = injector.withLock { injector in
            let before = injector.fired.count
            let effects = injector.commandReceived(name: name, tag: tag, user: user, session: session)
            return (effects, injector.fired.count - before)
        }
        if firedCount > 0 { changes.notify() }
        return effects
    }
}
