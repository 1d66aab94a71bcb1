public import IMAPCore

extension MailStore {
    /// Waits until `condition` holds, checking it now and after every change to the mailbox
    /// (a client's APPEND, STORE, EXPUNGE, COPY or MOVE, or a test's own seeding), or until
    /// `timeout` passes or the task is cancelled; whether it holds. No polling: the store wakes
    /// the waiter when the mailbox changes.
    ///
    /// ```swift
    /// let arrived = await server.store.waitUntil(user: "alice", mailbox: "Sent") { store in
    ///     store.uids(user: "alice", mailbox: "Sent").count == 1
    /// }
    /// #expect(arrived)
    /// ```
    public func waitUntil(
        user: String, mailbox: String = "INBOX", timeout: Duration = .seconds(10),
        _ condition: @escaping @Sendable (MailStore) -> Bool
    ) async -> Bool {
        let signal = ChangeSignal()
        let observation = observe(user: user, mailbox: Self.wireName(mailbox)) { signal.notify() }
        defer { stopObserving(observation) }
        return await signal.wait(timeout: timeout) { condition(self) }
    }

    /// Waits until the mailbox holds at least `count` messages (GreenMail's
    /// `waitForIncomingEmail`): whether it does before `timeout`.
    ///
    /// ```swift
    /// try await myApp.send(report)                       // the code under test appends to Sent
    /// #expect(await server.store.waitForMessages(count: 1, user: "alice", mailbox: "Sent"))
    /// ```
    public func waitForMessages(
        count: Int, user: String, mailbox: String = "INBOX", timeout: Duration = .seconds(10)
    ) async -> Bool {
        await waitUntil(user: user, mailbox: mailbox, timeout: timeout) { store in
            store.uids(user: user, mailbox: mailbox).count >= count
        }
    }

    /// Waits until message `uid` has `flag` (or, with `isSet` false, no longer has it): whether
    /// it does before `timeout`. A message that is gone never has the flag.
    ///
    /// ```swift
    /// #expect(await server.store.waitForFlag(.seen, user: "alice", uid: 7))
    /// ```
    public func waitForFlag(
        _ flag: Flag, isSet: Bool = true, user: String, mailbox: String = "INBOX", uid: UInt32,
        timeout: Duration = .seconds(10)
    ) async -> Bool {
        await waitUntil(user: user, mailbox: mailbox, timeout: timeout) { store in
            guard let flags = store.flags(user: user, mailbox: mailbox, uid: uid) else { return false }
            return flags.contains(flag) == isSet
        }
    }
}
