package import IMAPCore

/// Optimistic flag changes (Read/Unread, Pin/Unpin): a change shows at once, is sent, and is
/// kept or rolled back as the server answers (docs/inbox-view-model.md "Read and pin"). A pure
/// state machine: it says which flags a message shows; its owner puts them on the rows.
package struct FlagChanges: Hashable, Sendable {
    /// Which flag a change sets.
    package enum Kind: Hashable, Sendable {
        /// `\Seen`.
        case read
        /// The mailbox's pin flag.
        case pin
    }

    /// An optimistic flag change waiting for the server.
    package struct Change: Hashable, Sendable {
        /// Its number, carried by the answer.
        package var id: Int
        /// Which flag.
        package var kind: Kind
        /// Set (true) or cleared.
        package var value: Bool
        /// The messages it changes.
        package var emails: [Email.ID]
    }

    /// What is pending.
    package enum State: Hashable, Sendable {
        /// Nothing waits for the server.
        case idle
        /// `changes` wait, oldest first; `confirmed` holds, for each message they change, its
        /// flags as the server last told them (what shows is these with the changes applied; a
        /// refusal shows these again).
        case pending([Change], confirmed: [Email.ID: [Flag]])
    }

    /// What happens.
    package enum Event: Hashable, Sendable {
        /// The person toggled `kind` on `email` (shown as it is now), in a read-only mailbox or not.
        case toggle(Kind, Email, isReadOnly: Bool)
        /// The server answered change `id`.
        case completed(Int, FlagChangeResult)
        /// Change `id` failed.
        case failed(Int, MailServiceError)
        /// The server says message `id` has `flags` now (a change from elsewhere).
        case changedElsewhere(Email.ID, [Flag])
        /// Rows were loaded: those with a pending change show it on top of their loaded flags.
        case loaded([Email])
    }

    /// What the owner should do.
    package enum Action: Hashable, Sendable {
        /// Send `change` to the server.
        case send(Change)
        /// Show message `id` with `flags`.
        case show(Email.ID, [Flag])
        /// The server refused `change` for these messages (why, by message): say so.
        case refused(Change, [Email.ID: String])
        /// `change` failed and shows no more: say so.
        case failed(Change, MailServiceError)
        /// The loaded rows as they show.
        case adopted([Email])
        /// `change` cannot be made: the mailbox is read-only. Nothing was sent or shown.
        case readOnly(Change)
    }

    package private(set) var state: State = .idle
    private var nextChangeID = 1

    package init() {}

    /// The changes waiting for the server, oldest first.
    package var pending: [Change] {
        switch state {
        case .idle: return []
        case .pending(let changes, _): return changes
        }
    }

    /// Applies `event` in a mailbox that pins with `pinFlag`; returns what the owner must do.
    package mutating func event(_ event: Event, pinFlag: Flag) -> [Action] {
        var (changes, confirmed) = (pending, confirmedFlags)
        defer { state = changes.isEmpty ? .idle : .pending(changes, confirmed: confirmed) }
        switch event {
        case .toggle(let kind, let email, let isReadOnly):
            let value: Bool
            switch kind {
            case .read: value = !email.isRead
            case .pin: value = !email.isPinned
            }
            guard !isReadOnly else { return [.readOnly(Change(id: 0, kind: kind, value: value, emails: [email.id]))] }
            let change = Change(id: nextChangeID, kind: kind, value: value, emails: [email.id])
            nextChangeID += 1
            if confirmed[email.id] == nil { confirmed[email.id] = email.flags }
            changes.append(change)
            return [.send(change)] + shown(email.id, changes, &confirmed, pinFlag)
        case .completed(let id, let result):
            guard let index = changes.firstIndex(where: { $0.id == id }) else { return [] }
            let change = changes.remove(at: index)
            var actions: [Action] = []
            var refusals: [Email.ID: String] = [:]
            for email in change.emails {
                if let reason = result.refused[email] {
                    refusals[email] = reason
                } else if let flags = result.flags[email] {
                    confirmed[email] = flags
                } else {
                    confirmed[email] = Self.setting(
                        Self.flag(change.kind, pinFlag), change.value, in: confirmed[email] ?? [])
                }
                actions += shown(email, changes, &confirmed, pinFlag)
            }
            return refusals.isEmpty ? actions : actions + [.refused(change, refusals)]
        case .failed(let id, let error):
            guard let index = changes.firstIndex(where: { $0.id == id }) else { return [] }
            let change = changes.remove(at: index)
            return change.emails.flatMap { shown($0, changes, &confirmed, pinFlag) } + [.failed(change, error)]
        case .changedElsewhere(let id, let flags):
            guard confirmed[id] != nil else { return [.show(id, flags)] }
            confirmed[id] = flags
            return shown(id, changes, &confirmed, pinFlag)
        case .loaded(let emails):
            let adopted = emails.map { email in
                var flags = email.flags
                var isPending = false
                for change in changes where change.emails.contains(email.id) {
                    flags = Self.setting(Self.flag(change.kind, pinFlag), change.value, in: flags)
                    isPending = true
                }
                if isPending { confirmed[email.id] = email.flags }
                return email.withFlags(flags, pinFlag: pinFlag)
            }
            return [.adopted(adopted)]
        }
    }

    private var confirmedFlags: [Email.ID: [Flag]] {
        switch state {
        case .idle: return [:]
        case .pending(_, let confirmed): return confirmed
        }
    }

    /// Message `id` with its confirmed flags and the pending changes applied; its confirmed
    /// flags are forgotten once nothing is pending for it.
    private func shown(
        _ id: Email.ID, _ changes: [Change], _ confirmed: inout [Email.ID: [Flag]], _ pinFlag: Flag
    ) -> [Action] {
        guard var flags = confirmed[id] else { return [] }
        var isPending = false
        for change in changes where change.emails.contains(id) {
            flags = Self.setting(Self.flag(change.kind, pinFlag), change.value, in: flags)
            isPending = true
        }
        if !isPending { confirmed[id] = nil }
        return [.show(id, flags)]
    }

    private static func flag(_ kind: Kind, _ pinFlag: Flag) -> Flag {
        switch kind {
        case .read: return .seen
        case .pin: return pinFlag
        }
    }

    private static func setting(_ flag: Flag, _ present: Bool, in flags: [Flag]) -> [Flag] {
        let others = flags.filter { $0 != flag }
        return present ? others + [flag] : others
    }

    /// What a change does, for a notice: "mark as read", "unpin".
    package static func verb(_ change: Change) -> String {
        switch (change.kind, change.value) {
        case (.read, true): return "mark as read"
        case (.read, false): return "mark as unread"
        case (.pin, true): return "pin"
        case (.pin, false): return "unpin"
        }
    }
}
