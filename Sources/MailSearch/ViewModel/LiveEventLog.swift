package import IMAPCore

/// The live changes (arrivals, expunges, flag changes) that requests in flight may have missed,
/// so an answer computed before them is brought up to date when it arrives (docs/inbox-view-model.md
/// "Live changes"). A pure state machine: it keeps a change only while a request that started
/// before it is in flight.
package struct LiveEventLog: Hashable, Sendable {
    /// A kind of request whose answer is brought up to date.
    package enum Request: Hashable, Sendable, CaseIterable {
        case list, unread, inboxPage, search, resultsPage
    }

    /// What is kept.
    package enum State: Hashable, Sendable {
        /// No request in flight: nothing is kept; the next change is number `next`.
        case idle(next: Int)
        /// Requests in flight, each with the number of the first change it may have missed;
        /// `changes[0]` is number `first`.
        case recording(first: Int, changes: [MailServiceEvent], requests: [Request: Int])
    }

    /// What happens.
    package enum Event: Hashable, Sendable {
        /// A request was sent: it may miss every change from now on.
        case started(Request)
        /// Something happened in the mailbox (only changes to messages are kept).
        case happened(MailServiceEvent)
        /// These requests are in flight, no others (answered, superseded or cancelled).
        case inFlight(Set<Request>)
    }

    package private(set) var state: State = .idle(next: 0)

    package init() {}

    private var next: Int {
        switch state {
        case .idle(let next): return next
        case .recording(let first, let changes, _): return first + changes.count
        }
    }

    /// Applies `event`. Nothing is asked of the driver: the log is read by ``changes(since:)``.
    package mutating func event(_ event: Event) {
        switch (state, event) {
        case (.idle(let next), .started(let request)):
            state = .recording(first: next, changes: [], requests: [request: next])
        case (.recording(let first, let changes, var requests), .started(let request)):
            requests[request] = first + changes.count
            state = .recording(first: first, changes: changes, requests: requests)
        case (.idle(let next), .happened(let change)):
            if Self.isKept(change) { state = .idle(next: next + 1) }
        case (.recording(let first, var changes, let requests), .happened(let change)):
            guard Self.isKept(change) else { return }
            changes.append(change)
            state = .recording(first: first, changes: changes, requests: requests)
        case (.idle, .inFlight):
            return
        case (.recording(let first, let changes, let requests), .inFlight(let live)):
            let kept = requests.filter { live.contains($0.key) }
            guard let oldest = kept.values.min() else {
                state = .idle(next: first + changes.count)
                return
            }
            let drop = min(changes.count, max(0, oldest - first))
            state = .recording(first: first + drop, changes: Array(changes.dropFirst(drop)), requests: kept)
        }
    }

    /// Whether `change` is one an answer must be brought up to date with.
    private static func isKept(_ change: MailServiceEvent) -> Bool {
        switch change {
        case .arrived, .expunged, .flagsChanged: return true
        case .reloadNeeded, .connectionLost, .connectionRestored, .failed, .alert: return false
        }
    }

    /// The changes since `request` was sent (none when it is not in flight).
    package func changes(since request: Request) -> ArraySlice<MailServiceEvent> {
        guard case .recording(let first, let changes, let requests) = state, let start = requests[request] else {
            return []
        }
        return changes[min(max(0, start - first), changes.count)...]
    }

    /// Brings `emails`, an answer to `request`, up to date with the changes since it was sent
    /// (arrivals go on top only when `insertingArrivals`); returns the messages expunged meanwhile.
    package func replay(
        _ request: Request, onto emails: inout [Email], insertingArrivals: Bool, pinFlag: Flag
    ) -> Set<Email.ID> {
        var expunged: Set<Email.ID> = []
        for change in changes(since: request) {
            switch change {
            case .arrived(let arrived):
                guard insertingArrivals else { continue }
                let known = Set(emails.map(\.id))
                let fresh = arrived.filter { !known.contains($0.id) && !$0.flags.contains(.deleted) }
                emails.insert(contentsOf: fresh.map { $0.withFlags($0.flags, pinFlag: pinFlag) }, at: 0)
            case .expunged(let ids):
                let removed = Set(ids)
                expunged.formUnion(removed)
                emails.removeAll { removed.contains($0.id) }
            case .flagsChanged(let id, let flags):
                if flags.contains(.deleted) {
                    emails.removeAll { $0.id == id }
                    continue
                }
                for index in emails.indices where emails[index].id == id {
                    emails[index].setFlags(flags, pinFlag: pinFlag)
                }
            case .reloadNeeded, .connectionLost, .connectionRestored, .failed, .alert:
                continue
            }
        }
        return expunged
    }
}
