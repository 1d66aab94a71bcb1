public import IMAPCore
import Synchronization

/// A long-lived connection to one mailbox of one account, over `IMAPSession`s: when the
/// connection drops it reconnects (capped, jittered exponential backoff), logs in again,
/// re-selects the mailbox and resynchronises it, and tells its owner what changed.
///
/// ```swift
/// let inbox = MailboxConnection(configuration: configuration, credentials: .password(user: u, password: p),
///                               mailbox: "INBOX")
/// let selected = try await inbox.open()
/// let found = try await inbox.search([.unseen])                    // retried once after a reconnect
/// try await inbox.store(SequenceSet(numbers: found.uids.prefix(3)), .add, [.flagged])
/// for await change in inbox.changes() { ... }                     // mailbox events and reconnects
/// ```
/// Every call names this connection's mailbox, so another task's SELECT can never redirect it.
/// Idempotent calls (SEARCH, SORT, FETCH, NOOP) are retried once after a reconnect. A STORE
/// whose outcome is unknown (the connection broke before its answer) is never blindly sent
/// again: the flags are read back first, and only what is still missing is applied.
public actor MailboxConnection {
    /// What changed on the server while the connection was away.
    public struct Resynchronization: Hashable, Sendable {
        /// The mailbox was re-created: every cached UID is void (reload everything).
        public var uidValidityChanged: Bool
        /// UIDs removed meanwhile, when the connection could tell (QRESYNC, or a complete UID map).
        public var expunged: SequenceSet?
        /// Messages whose flags changed meanwhile (QRESYNC or CONDSTORE), by UID.
        public var flags: [UInt32: [Flag]]
        /// Whether the owner must reload: the connection could not tell exactly what changed.
        public var needsReload: Bool
        /// The mailbox as selected on the new connection.
        public var mailbox: SelectedMailbox
    }

    /// What the owner hears.
    public enum Change: Hashable, Sendable {
        /// Something happened in the mailbox (see `MailboxEvent`).
        case mailbox(MailboxEvent)
        /// The connection broke; reconnecting (attempt number, what happened).
        case reconnecting(attempt: Int, reason: IMAPError)
        /// Connected again and resynchronised.
        case reconnected(Resynchronization)
        /// Reconnecting failed for good; calls will throw this error.
        case failed(IMAPError)
    }

    public let configuration: IMAPConfiguration
    public let mailbox: MailboxName
    private let credentials: Credentials
    private let policy: ReconnectPolicy
    private var session: IMAPSession?
    private var selected: SelectedMailbox?
    private var known: KnownMailboxState?
    private var lastUIDs: [UInt32]?
    /// The one attempt to connect in flight (the first connection or a reconnect): everyone who
    /// needs a session meanwhile waits for it, so there is never a second session beside it.
    private var connecting: Task<IMAPSession, any Error>?
    private var watchers: [UInt64: AsyncStream<Change>.Continuation] = [:]
    private var nextWatcher: UInt64 = 0
    private var listener: Task<Void, Never>?
    private var random: SplitMix
    private var closed = false
    /// When the reconnect under way must stop trying (``ReconnectPolicy/maximumTotalWait`` after
    /// its first attempt was announced); nil when the policy has no bound or none is under way.
    private var reconnectDeadline: ContinuousClock.Instant?
    /// How many times the connection was re-established (for tests and diagnostics).
    public private(set) var reconnectCount = 0

    public init(
        configuration: IMAPConfiguration, credentials: Credentials, mailbox: MailboxName = "INBOX",
        policy: ReconnectPolicy = ReconnectPolicy(), known: KnownMailboxState? = nil
    ) {
        self.configuration = configuration
        self.credentials = credentials
        self.mailbox = mailbox
        self.policy = policy
        self.known = known
        self.random = SplitMix(seed: policy.jitterSeed ?? UInt64.random(in: 0...UInt64.max))
    }

    deinit {
        listener?.cancel()
        connecting?.cancel()
        for watcher in watchers.values { watcher.finish() }
    }

    /// Connects, logs in and selects the mailbox. With a `known` state from a previous run, a
    /// changed UIDVALIDITY is reported as `.reconnected` with `uidValidityChanged`.
    @discardableResult
    public func open() async throws(IMAPError) -> SelectedMailbox {
        if let selected, session?.isUsable ?? false { return selected }
        _ = try await liveSession(reporting: known != nil)
        return selected ?? SelectedMailbox(name: mailbox, isReadOnly: false)
    }

    /// The mailbox as last selected.
    public var selectedMailbox: SelectedMailbox? { selected }

    /// The capabilities of the current session.
    public var capabilities: Set<Capability> {
        get async { await session?.capabilities ?? [] }
    }

    /// The session in use (connecting first when needed), for calls this type does not wrap.
    /// Its mailbox may change under you after a reconnect: prefer the wrapped calls.
    public func currentSession() async throws(IMAPError) -> IMAPSession { try await liveSession() }

    /// The session in use when it is connected and usable, without connecting: nil before the
    /// first connection, after ``close()`` and while a reconnect is under way.
    public var usableSession: IMAPSession? {
        guard !closed, let session, session.isUsable else { return nil }
        return session
    }

    // MARK: - Calls

    /// UID SEARCH/SORT of this mailbox, newest first; retried once after a reconnect.
    public func search(_ keys: [SearchKey], ordered: Bool = true) async throws(IMAPError) -> SearchResult {
        try await idempotent { session, expectation throws(IMAPError) in
            try await session.search(keys, in: expectation, ordered: ordered)
        }
    }

    /// UID FETCH of `items` for `uids`, collected; retried once after a reconnect.
    public func fetch(_ uids: SequenceSet, items: [FetchAttribute]) async throws(IMAPError) -> [FetchResponse] {
        try await idempotent { session, expectation throws(IMAPError) in
            var messages: [FetchResponse] = []
            for try await message in session.fetch(uids, items: items, in: expectation) { messages.append(message) }
            return messages
        }
    }

    /// Summaries (see `IMAPSession.fetchSummaries`) for `uids`, collected; retried once.
    public func summaries(_ uids: SequenceSet, previews: Bool = true) async throws(IMAPError) -> [MessageSummary] {
        try await idempotent { session, expectation throws(IMAPError) in
            var summaries: [MessageSummary] = []
            for try await summary in session.fetchSummaries(uids, previews: previews, in: expectation) {
                summaries.append(summary)
            }
            return summaries
        }
    }

    /// Summaries for `uids` in that order (see `IMAPSession.fetchSummaries(inOrder:previews:)`),
    /// handed to `body` in batches as they arrive, so a listing of thousands is never held
    /// whole. A lost connection is reconnected once and what had not been handed over yet is
    /// fetched again; nothing is handed over twice.
    public func summaries(
        inOrder uids: [UInt32], previews: Bool = true,
        batches body: @Sendable (consuming [MessageSummary]) async -> Void
    ) async throws(IMAPError) {
        // The index in `uids` after the last UID handed over.
        var handedOver = 0
        try await idempotent { session, expectation throws(IMAPError) in
            let rest = Array(uids[handedOver...])
            guard !rest.isEmpty else { return }
            let stream = session.fetchSummaries(inOrder: rest, previews: previews, in: expectation)
            var batch: [MessageSummary] = []
            func handOver() async {
                guard let last = batch.last else { return }
                while handedOver < uids.count, uids[handedOver] != last.uid { handedOver += 1 }
                handedOver += 1
                // Handed over, not shared: the body owns the only reference and may move the
                // summaries out.
                let handed = batch
                batch = []
                await body(handed)
            }
            let iterator = stream.makeAsyncIterator()
            while let summary = try await iterator.next() {
                batch.append(consume summary)
                if batch.count >= 250 || stream.bufferedCount == 0 { await handOver() }
            }
            await handOver()
        }
    }

    /// NOOP; retried once after a reconnect.
    public func noop() async throws(IMAPError) {
        try await idempotent { session, _ throws(IMAPError) in try await session.noop() }
    }

    /// UID STORE. If the connection breaks before the answer, the outcome is unknown: after
    /// reconnecting, the flags are read back and only what is still missing is applied, so a
    /// change is never lost and never applied twice. A read-back the server refuses for a while
    /// (`NO`, `NO [UNAVAILABLE]`) is tried again in the next round. When the rounds run out and
    /// a change was sent without an answer, the error is `.outcomeUnknown`: the change may or may
    /// not have been made, and the caller must read the flags again rather than assume either.
    @discardableResult
    public func store(
        _ uids: SequenceSet, _ operation: StoreFlags.Operation, _ flags: [Flag], silent: Bool = true,
        unchangedSince: UInt64? = nil
    ) async throws(IMAPError) -> StoreResult {
        var pending = uids
        var lastLoss: IMAPError?
        // The mailbox the UIDs belong to: as it was when the change was asked for, in every round.
        let asked = selected == nil ? nil : expectation()
        // Whether a STORE was sent and its answer never came: from then on no error may be
        // reported as "not applied" until the flags have been read back.
        var uncertain = false
        // Each round: (after a loss) reconnect and read the flags back, then send the change for
        // what is still missing. A round that loses the connection again starts over; the change
        // is never sent for a message that already has it.
        for round in 0..<max(policy.maximumAttempts, 1) {
            var sending = false
            do {
                let session: IMAPSession
                if let loss = lastLoss {
                    if !Self.isConnectionLoss(loss) {
                        try await pause(policy.delay(attempt: round - 1, jitter: random.nextUnit()))
                    }
                    session = try await reconnect(after: loss)
                    var missing: [UInt32] = []
                    let readBack = session.fetch(pending, items: [.uid, .flags], in: asked ?? expectation())
                    for try await message in readBack {
                        guard let uid = message.uid, let current = message.flags else { continue }
                        if !Self.isApplied(operation, flags, to: current) { missing.append(uid) }
                    }
                    guard !missing.isEmpty else { return StoreResult(refused: nil, flags: [:]) }
                    pending = SequenceSet(numbers: missing)
                    uncertain = false
                } else {
                    session = try await liveSession()
                }
                sending = true
                return try await session.store(
                    pending, operation, flags, silent: silent, unchangedSince: unchangedSince,
                    in: asked ?? expectation())
            } catch  where Self.isConnectionLoss(error) {
                configuration.logger.info("store outcome unknown (round \(round + 1)): \(error.message)")
                if sending { uncertain = true }
                lastLoss = error
            } catch  where uncertain && (error.code == .no || error.code == .unavailable) {
                // The flags could not be read back yet: the outcome is still unknown.
                configuration.logger.info("store read-back refused (round \(round + 1)): \(error.message)")
                lastLoss = error
            } catch {
                if uncertain { throw Self.outcomeUnknown(error) }
                throw error
            }
        }
        let failure = lastLoss ?? IMAPError(.connection, "the connection was lost")
        throw uncertain ? Self.outcomeUnknown(failure) : failure
    }

    /// Mailbox events and reconnections, as they happen, until the connection is closed.
    public func changes() -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream<Change>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        nextWatcher += 1
        let id = nextWatcher
        watchers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            // Owned by the stream's end: it only tells the connection, if there still is one.
            guard let self else { return }
            Task { await self.removeWatcher(id) }
        }
        // Listening starts with the first session (open, or the first call).
        if session != nil { startListening() }
        return stream
    }

    /// Logs out and ends every task; later calls fail with `.cancelled`.
    public func close() async {
        closed = true
        listener?.cancel()
        listener = nil
        connecting?.cancel()
        for watcher in watchers.values { watcher.finish() }
        watchers = [:]
        let current = session
        session = nil
        await current?.logout()
    }

    // MARK: - Reconnecting

    private func removeWatcher(_ id: UInt64) {
        watchers[id] = nil
        if watchers.isEmpty {
            listener?.cancel()
            listener = nil
        }
    }

    func broadcast(_ change: Change) {
        for watcher in watchers.values { watcher.yield(change) }
    }

    private func expectation() -> MailboxExpectation {
        MailboxExpectation(name: mailbox, uidValidity: selected?.uidValidity)
    }

    /// Runs `call`, and once more after a reconnect (or a moment, after `NO [UNAVAILABLE]`).
    /// Both tries expect the mailbox as it was when the call was made: UIDs the caller holds
    /// belong to it, and if a reconnect finds the mailbox re-created, the retry fails with
    /// `.mailboxChanged` instead of acting on other messages under the same numbers.
    private func idempotent<T: Sendable>(
        _ call: (IMAPSession, MailboxExpectation) async throws(IMAPError) -> T
    ) async throws(IMAPError) -> T {
        let asked = selected == nil ? nil : expectation()
        let session = try await liveSession()
        let expected = asked ?? expectation()
        do {
            return try await call(session, expected)
        } catch  where Self.isTransient(error) {
            let fresh: IMAPSession
            if Self.isConnectionLoss(error) {
                fresh = try await reconnect(after: error)
            } else {
                // NO [UNAVAILABLE]: the connection is fine; wait a moment, then once more.
                try await pause(policy.delay(attempt: 0, jitter: random.nextUnit()))
                fresh = try await liveSession()
            }
            return try await call(fresh, expected)
        }
    }

    /// The usable session: the current one, the one being connected (waited for), a reconnect
    /// of a dead one, or (with none yet) the first connection, made once for every caller
    /// meanwhile (one attempt: a refused first login is the caller's error, not retried).
    private func liveSession(reporting: Bool = false) async throws(IMAPError) -> IMAPSession {
        try await Self.session(from: sessionOrAttempt(reporting: reporting))
    }

    /// A session, or the attempt to connect that will give one.
    enum Attempt {
        case ready(IMAPSession)
        case pending(Task<IMAPSession, any Error>)
    }

    /// The usable session, or the attempt to wait for (see ``liveSession(reporting:)``): the
    /// listener waits for an attempt without holding the connection.
    func sessionOrAttempt(reporting: Bool = false) async throws(IMAPError) -> Attempt {
        if closed { throw IMAPError(.cancelled, "the connection was closed") }
        if let session, session.isUsable { return .ready(session) }
        if let connecting { return .pending(connecting) }
        if let session {
            let failure = await session.failure
            let reason = failure.flatMap { Self.isConnectionLoss($0) ? $0 : nil }
            return try await reconnectAttempt(after: reason ?? IMAPError(.connection, "the connection was lost"))
        }
        // No suspension between the checks above and `connecting = task`. Owned by this
        // connection (`connecting`, cancelled by close); it holds the connection for one
        // attempt, bounded by the connect, TLS and greeting timeouts.
        let task = Task { try await self.connectFirst(reporting: reporting) }
        connecting = task
        return .pending(task)
    }

    static func session(from attempt: Attempt) async throws(IMAPError) -> IMAPSession {
        switch attempt {
        case .ready(let session): return session
        case .pending(let task): return try await outcome(of: task)
        }
    }

    private func connectFirst(reporting: Bool) async throws(IMAPError) -> IMAPSession {
        defer { connecting = nil }
        let session = try await establish(reporting: reporting)
        try await adopt(session)
        return session
    }

    /// Makes a new session the current one, unless the connection was closed meanwhile (then
    /// the session is logged out and the caller gets `.cancelled`).
    private func adopt(_ session: IMAPSession) async throws(IMAPError) {
        if closed {
            await session.logout()
            throw IMAPError(.cancelled, "the connection was closed")
        }
        self.session = session
        // A listener of an earlier session may have ended with it: a new one reads this session.
        if !watchers.isEmpty { restartListening() }
    }

    private static func outcome(of task: Task<IMAPSession, any Error>) async throws(IMAPError) -> IMAPSession {
        do {
            return try await task.value
        } catch let error as IMAPError {
            throw error
        } catch {
            throw IMAPError(.cancelled, "connecting was cancelled")
        }
    }

    /// Reconnects once for everyone waiting (concurrent callers share one attempt).
    private func reconnect(after error: IMAPError) async throws(IMAPError) -> IMAPSession {
        try await Self.session(from: reconnectAttempt(after: error))
    }

    /// The reconnect to wait for (the one under way, or a new one); the session when it is fine.
    func reconnectAttempt(after error: IMAPError) async throws(IMAPError) -> Attempt {
        if closed { throw IMAPError(.cancelled, "the connection was closed") }
        if let session, session.isUsable, await session.failure == nil { return .ready(session) }
        if let connecting { return .pending(connecting) }
        // No suspension between the check and `connecting = task`: a second caller (the listener
        // and a command both see the same loss) must find this attempt and share it.
        let old = session
        session = nil
        // Owned by this connection (`connecting`, cancelled by close and deinit). It holds the
        // connection weakly while it waits between attempts, which may go on for good
        // (`ReconnectPolicy.retriesForever`): a connection dropped meanwhile ends it.
        let task = Task { [weak self] in try await Self.reconnectLoop(Weak(self), after: error, old: old) }
        connecting = task
        return .pending(task)
    }

    private static func reconnectLoop(
        _ connection: Weak<MailboxConnection>, after error: IMAPError, old: IMAPSession?
    ) async throws(IMAPError) -> IMAPSession {
        let gone = IMAPError(.cancelled, "the connection was closed")
        if let old { await connection.value?.remember(old) }
        var lastError = error
        var attempt = 0
        while true {
            guard let delay = await connection.value?.beginAttempt(attempt, after: lastError) else { throw gone }
            do {
                try await Task.sleep(for: delay)
            } catch {
                await connection.value?.endAttempts()
                throw IMAPError(.cancelled, "the call was cancelled")
            }
            guard let current = connection.value else { throw gone }
            switch await current.attemptReconnect(attempt) {
            case .connected(let session): return session
            case .failed(let failure): throw failure
            case .retry(let failure): lastError = failure
            }
            attempt += 1
        }
    }

    /// What one reconnect attempt came to.
    private enum AttemptOutcome {
        case connected(IMAPSession)
        case retry(IMAPError)
        case failed(IMAPError)
    }

    /// Says that attempt `attempt` is coming and returns how long to wait for it; nil when the
    /// connection was closed.
    private func beginAttempt(_ attempt: Int, after error: IMAPError) -> Duration? {
        if closed {
            connecting = nil
            return nil
        }
        broadcast(.reconnecting(attempt: attempt + 1, reason: error))
        let now = ContinuousClock.now
        if attempt == 0 { reconnectDeadline = policy.maximumTotalWait.map { now + $0 } }
        var delay = policy.delay(attempt: attempt, jitter: random.nextUnit())
        // The last wait ends at the deadline, so one more attempt is made then.
        if let deadline = reconnectDeadline { delay = max(.zero, min(delay, deadline - now)) }
        configuration.logger.info("reconnecting in \(delay.spokenSeconds) (attempt \(attempt + 1))")
        return delay
    }

    private func endAttempts() { connecting = nil }

    /// One reconnect attempt, after its wait.
    private func attemptReconnect(_ attempt: Int) async -> AttemptOutcome {
        if closed {
            connecting = nil
            return .failed(IMAPError(.cancelled, "the connection was closed"))
        }
        do throws(IMAPError) {
            let session = try await establish(reporting: true)
            try await adopt(session)
            reconnectCount += 1
            connecting = nil
            return .connected(session)
        } catch  where !Self.isTransient(error) && error.code != .no {
            // Retrying cannot fix a refused login or an untrusted certificate.
            connecting = nil
            broadcast(.failed(error))
            return .failed(error)
        } catch {
            let outOfTime = reconnectDeadline.map { ContinuousClock.now >= $0 } ?? false
            guard attempt + 1 >= max(policy.maximumAttempts, 1) || outOfTime else { return .retry(error) }
            connecting = nil
            let failure = giveUp(after: error, attempts: attempt + 1)
            broadcast(.failed(failure))
            return .failed(failure)
        }
    }

    /// The error when every attempt failed.
    private func giveUp(after lastError: IMAPError, attempts: Int) -> IMAPError {
        let within =
            attempts < policy.maximumAttempts ? policy.maximumTotalWait.map { " within \($0.spokenSeconds)" } : nil
        return IMAPError(
            lastError.code,
            "could not reconnect to \(configuration.host) after \(attempts) attempts\(within ?? ""): \(lastError.message)",
            serverText: lastError.serverText, responseCode: lastError.responseCode,
            transportCode: lastError.transportCode)
    }

    /// Connects, logs in, selects with resynchronisation, and (when `reporting`) tells the
    /// watchers what changed.
    private func establish(reporting: Bool) async throws(IMAPError) -> IMAPSession {
        let session = try await IMAPSession.connect(configuration)
        do {
            // ENABLE's answer is not awaited: the SELECT follows it in the same flight.
            try await session.login(credentials, awaitingEnable: false)
            let (mailbox, changes) = try await session.select(self.mailbox, resynchronizing: known)
            var report = Resynchronization(
                uidValidityChanged: false, expunged: nil, flags: [:], needsReload: false, mailbox: mailbox)
            if let known, let validity = mailbox.uidValidity, validity != known.uidValidity {
                report.uidValidityChanged = true
                report.needsReload = true
                lastUIDs = nil
            } else if let known {
                try await resynchronize(session, known: known, changes: changes, into: &report)
            }
            selected = mailbox
            if let validity = mailbox.uidValidity {
                known = KnownMailboxState(
                    uidValidity: validity, highestModificationSequence: mailbox.highestModificationSequence)
            }
            if reporting { broadcast(.reconnected(report)) }
            return session
        } catch {
            await session.close()
            throw error
        }
    }

    /// Takes what the old session learned before it broke: its UID map, and the highest
    /// MODSEQ it saw. Without the MODSEQ the resynchronisation would ask for every change since
    /// the first SELECT and report again, after the reconnect, changes the owner already had
    /// (and whose state may since have changed again).
    private func remember(_ old: IMAPSession) async {
        lastUIDs = await old.completeUIDMap()
        guard let seen = await old.selectedMailbox, seen.name == mailbox, let known,
            seen.uidValidity == known.uidValidity, let latest = seen.highestModificationSequence,
            latest > (known.highestModificationSequence ?? 0)
        else { return }
        self.known?.highestModificationSequence = latest
    }

    private func resynchronize(
        _ session: IMAPSession, known: KnownMailboxState, changes: [UntaggedResponse],
        into report: inout Resynchronization
    ) async throws(IMAPError) {
        if await session.enabled.contains(.qresync), known.highestModificationSequence != nil {
            var expunged: [UInt32] = []
            for change in changes {
                switch change {
                case .vanished(_, let set): expunged += set.numbers ?? []
                case .fetch(let fetch):
                    if let uid = fetch.uid, let flags = fetch.flags { report.flags[uid] = flags }
                default: break
                }
            }
            report.expunged = SequenceSet(numbers: expunged)
            return
        }
        if let modseq = known.highestModificationSequence, modseq > 0,
            await session.capabilities.contains(.condstore)
        {
            for try await message in session.fetch(.all, items: [.uid, .flags], changedSince: modseq) {
                if let uid = message.uid, let flags = message.flags { report.flags[uid] = flags }
            }
        } else {
            report.needsReload = true
        }
        if let before = lastUIDs {
            let now = Set(try await session.search([.all]).uids)
            report.expunged = SequenceSet(numbers: before.filter { !now.contains($0) })
        } else {
            report.needsReload = true
        }
    }

    // MARK: - Listening

    private func startListening() {
        guard listener == nil else { return }
        restartListening()
    }

    private func restartListening() {
        listener?.cancel()
        // Owned by this connection (`listener`, cancelled by close, deinit and the last watcher
        // leaving). It holds the connection weakly while it waits for events, so dropping the
        // connection ends it.
        listener = Task { [weak self] in await Self.listen(Weak(self)) }
    }

    // MARK: - Helpers

    private func pause(_ delay: Duration) async throws(IMAPError) {
        do {
            try await Task.sleep(for: delay)
        } catch {
            throw IMAPError(.cancelled, "the call was cancelled")
        }
    }
}
