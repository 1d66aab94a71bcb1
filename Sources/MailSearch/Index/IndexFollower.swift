import FoundationEssentials
import IMAPClient

/// When a followed index catches up: what one catch-up did, or why it could not.
public enum IndexUpdate: Sendable, Equatable {
    case caughtUp(IndexSync.Summary)
    /// The catch-up failed (the server went away, the index file could not be written): the
    /// index stays as it was, and the next change tried again.
    case failed(String)
}

/// Whether a followed index is being caught up, as a state machine (no I/O): a change told
/// while a catch-up runs is remembered, and one more catch-up follows, so that changes arriving
/// together cost one or two catch-ups, never one each, and none is missed.
public enum IndexFollowing: Sendable, Equatable, CaseIterable {
    case idle
    /// A catch-up runs.
    case catchingUp
    /// A catch-up runs, and a change was told since it began: another follows it.
    case catchingUpAgain
    case stopped

    public enum Event: Sendable, Equatable, CaseIterable {
        /// The mailbox changed (a change told by IDLE, a flag change of the service's own, a
        /// reconnect), or following began.
        case changed
        case caughtUp
        case failed
        case stop
    }

    public enum Action: Sendable, Equatable {
        case none
        case catchUp
        /// Stop the running catch-up and log out.
        case end
    }

    public mutating func event(_ event: Event) -> Action {
        switch (self, event) {
        case (.stopped, _):
            return .none
        case (_, .stop):
            self = .stopped
            return .end
        case (.idle, .changed):
            self = .catchingUp
            return .catchUp
        case (.idle, .caughtUp), (.idle, .failed):
            return .none
        case (.catchingUp, .changed), (.catchingUpAgain, .changed):
            self = .catchingUpAgain
            return .none
        case (.catchingUp, .caughtUp), (.catchingUp, .failed):
            self = .idle
            return .none
        case (.catchingUpAgain, .caughtUp), (.catchingUpAgain, .failed):
            // A failure is tried again only for a change told after it began: a server that is
            // gone is not asked in a loop, and the reconnect that brings it back is a change.
            self = .catchingUp
            return .catchUp
        }
    }
}

/// Keeps a local index of one mailbox in step while a service has the mailbox open: told of each
/// change, it catches the index up (``IndexSync``, one EXAMINE when nothing changed, QRESYNC or
/// CONDSTORE where the server has them) over a session of its own, kept between catch-ups.
/// Arrivals, expunges and flag changes reach the index this way, through the sync that is tested
/// equal to the server, not through a second way of writing the index.
actor IndexFollower {
    let index: MessageIndex
    let mailbox: String
    private let connect: @Sendable () async throws -> IMAPSession
    private let clock: @Sendable () -> Int
    private let updates: Broadcast<IndexUpdate>
    private var machine = IndexFollowing.idle
    private var session: IMAPSession?
    /// The catch-up that runs; owned here, ended by ``stop()``.
    private var running: Task<Void, Never>?

    init(
        index: MessageIndex, mailbox: String, updates: Broadcast<IndexUpdate>,
        clock: @escaping @Sendable () -> Int, connect: @escaping @Sendable () async throws -> IMAPSession
    ) {
        self.index = index
        self.mailbox = mailbox
        self.updates = updates
        self.clock = clock
        self.connect = connect
    }

    func changed() { perform(machine.event(.changed)) }

    /// Ends following: a catch-up under way stops (the index keeps what it committed), and the
    /// session logs out.
    func stop() async {
        perform(machine.event(.stop))
        let ending = running
        running = nil
        await ending?.value
        let closing = session
        session = nil
        await closing?.logout()
    }

    private func perform(_ action: IndexFollowing.Action) {
        switch action {
        case .none: return
        case .catchUp: running = Task { await self.catchUp() }
        case .end: running?.cancel()
        }
    }

    private func catchUp() async {
        do {
            let session: IMAPSession
            if let kept = self.session {
                session = kept
            } else {
                session = try await connect()
                self.session = session
            }
            let summary = try await IndexSync(index: index, clock: clock).sync(mailbox, over: session)
            updates.send(.caughtUp(summary))
            perform(machine.event(.caughtUp))
        } catch {
            // The session may be broken: the next catch-up opens another.
            let broken = session
            session = nil
            await broken?.logout()
            guard machine != .stopped else { return }
            updates.send(.failed(Self.message(error)))
            perform(machine.event(.failed))
        }
    }

    private static func message(_ error: any Error) -> String {
        switch error {
        case let error as IMAPError: return error.message
        case let error as StoreError: return error.message
        default: return "the index could not be caught up: \(error)"
        }
    }
}
