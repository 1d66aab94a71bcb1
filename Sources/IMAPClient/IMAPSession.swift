public import IMAPCore
import Synchronization
import Transport

/// An IMAP session: one connection, async/await commands, pipelined where RFC 3501 5.5 allows.
///
/// ```swift
/// let session = try await IMAPSession.connect(IMAPConfiguration(host: "imap.example.com"))
/// try await session.login(.password(user: "me", password: secret))
/// try await session.select("INBOX")
/// let found = try await session.search([.from("alice")])          // UIDs newest first, and the count
/// for try await message in session.fetch(SequenceSet(numbers: found.uids), items: [.uid, .envelope]) { ... }
/// ```
/// The protocol state lives in a `ClientStateMachine` value; this actor is its driver. One
/// reader task reads and parses everything the server sends and feeds it to the machine, so
/// the socket is always read, whatever a consumer does; one writer task writes what the machine
/// says, in order. Both end with the session: closing it, or dropping the last reference, fails
/// every waiter with a clear error. Timers (command inactivity, IDLE renewal, NOOP polling)
/// run off the reader's wake-ups, so no task sleeps past the session.
public actor IMAPSession {
    /// The configuration the session was made with.
    public nonisolated let configuration: IMAPConfiguration

    let connection: NetworkConnection
    let logger: Logger
    var machine: ClientStateMachine
    private var parser: ResponseParser
    private var nextID: CommandID = 0
    private var waiters: [CommandID: CheckedContinuation<CommandOutcome, any Error>] = [:]
    private var sinks: [CommandID: any FetchSink] = [:]
    private var challengeAnswers: [CommandID: @Sendable (ContinuationRequest) throws(IMAPError) -> [UInt8]] = [:]
    /// The listeners waiting for events, each woken when events arrive (one waiter used to
    /// replace another by waking it, and two listeners woke each other without end).
    private var eventWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    /// How many times a listener began to wait for events (for tests: a quiet mailbox must not
    /// make listeners wake).
    package private(set) var eventWaits: UInt64 = 0
    /// The listeners waiting for events now (for tests).
    package var waitingListenerCount: Int { eventWaiters.count }
    private var listeners = 0
    private var idleSince: ContinuousClock.Instant?
    private var nextPoll: ContinuousClock.Instant?
    private let writes: AsyncStream<Outgoing>.Continuation
    private let writeStream: AsyncStream<Outgoing>
    private var started = false
    private var closedByOwner = false
    /// Numbers the fetch streams whose windows may be in flight together.
    var nextStreamGroup: UInt64 = 0
    /// An ENABLE a login sent without waiting for its answer (`login(_:awaitingEnable: false)`):
    /// what it asked for, and who waits for the answer.
    private var pendingEnable: (id: CommandID, requested: Set<Capability>, waiting: [CheckedContinuation<Void, Never>])?
    /// Set once the session has ended, readable without a suspension.
    let connectionEnded = Atomic<Bool>(false)
    /// While a login runs: the callers of `login` that came meanwhile, each given its outcome
    /// (nil when it succeeded) instead of sending a second AUTHENTICATE the server would refuse.
    var loginWaiters: [CheckedContinuation<IMAPError?, Never>]? {
        didSet { wakeLoginWatchers() }
    }
    /// Tests waiting until a number of callers wait for a login (`waitUntilLoginsWait`).
    private var loginWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Returns once `count` callers of `login` are waiting for a login under way (for tests).
    package func waitUntilLoginsWait(_ count: Int) async {
        guard (loginWaiters?.count ?? 0) < count else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loginWatchers.append((count, continuation))
        }
    }

    private func wakeLoginWatchers() {
        let waiting = loginWaiters?.count ?? 0
        let ready = loginWatchers.filter { $0.count <= waiting }
        loginWatchers.removeAll { $0.count <= waiting }
        for watcher in ready { watcher.continuation.resume() }
    }

    init(
        configuration: IMAPConfiguration, connection: NetworkConnection, parser: ResponseParser,
        capabilities: Set<Capability>, authenticated: Bool
    ) {
        self.configuration = configuration
        self.connection = connection
        self.logger = configuration.logger
        self.parser = parser
        self.machine = ClientStateMachine(
            capabilities: capabilities, isAuthenticated: authenticated,
            ignoredCapabilities: configuration.ignoredCapabilities, eventCapacity: configuration.eventBufferCapacity)
        (writeStream, writes) = AsyncStream<Outgoing>.makeStream()
    }

    deinit {
        writes.finish()
        connection.close()
    }

    /// Connects, reads the greeting, upgrades with STARTTLS when configured, and learns the
    /// capabilities. Plain text is refused for any host but a loopback address.
    public static func connect(_ configuration: IMAPConfiguration) async throws(IMAPError) -> IMAPSession {
        try await SessionBootstrap.connect(configuration)
    }

    /// The capabilities the server announced last (refreshed after STARTTLS and login).
    public var capabilities: Set<Capability> { machine.capabilities }
    /// Whether the session has logged in.
    public var isAuthenticated: Bool { machine.isAuthenticated }
    /// The selected mailbox, if any, kept up to date from the server's responses.
    public var selectedMailbox: SelectedMailbox? { machine.tracker?.mailbox }
    /// How many times messages came or went in the selected mailbox since it was selected
    /// (EXISTS with a new count, EXPUNGE, VANISHED); nil with none selected. While it is 0, the
    /// message count and UIDNEXT of ``selectedMailbox`` are the server's at the SELECT.
    public var membershipChangesSinceSelect: Int? { machine.tracker?.membershipChangesSinceSelect }
    /// Capabilities enabled with ENABLE.
    public var enabled: Set<Capability> { machine.enabled }
    /// The error that ended the session, if it ended.
    public var failure: IMAPError? { machine.failure }

    /// Starts the reader and writer tasks. They hold the session weakly, so dropping it ends them.
    func start() {
        guard !started else { return }
        started = true
        let connection = connection
        let writeStream = writeStream
        let logger = logger
        // The writer: owned by the session (it ends when `writes` finishes, at close or deinit).
        Task { [weak self] in
            var failed = false
            for await outgoing in writeStream {
                switch outgoing {
                case .bytes(let bytes):
                    // After a failed write the rest is dropped; the loop goes on only to answer
                    // the `.written` markers behind it.
                    guard !failed else { continue }
                    do throws(TransportError) {
                        try await connection.write(bytes)
                    } catch {
                        failed = true
                        logger.debug("write failed: \(error.message)")
                        await self?.connectionFailed(IMAPError(error))
                    }
                case .written(let continuation):
                    continuation.resume()
                }
            }
        }
        let pollInterval = min(
            max(configuration.timeouts.commandInactivity / 4, .milliseconds(50)), .seconds(5),
            configuration.timeouts.pollInterval)
        // The reader: owned by the session (it holds it weakly between reads and ends when the
        // connection closes).
        Task { [weak self] in
            while true {
                let bytes: [UInt8]
                do throws(TransportError) {
                    bytes = try await connection.read(timeout: pollInterval)
                } catch {
                    guard let self else { return }
                    if error.code == .readTimeout {
                        await self.tick()
                        continue
                    }
                    await self.connectionFailed(IMAPError(error))
                    return
                }
                guard let self, await self.consume(bytes) else { return }
            }
        }
    }

    // MARK: - Running commands

    /// Runs one command: waits its turn, sends it (with its literals), and returns the tagged
    /// response with the untagged responses it claimed. NO and BAD become errors. Cancelling the
    /// calling task ends the wait at once; the session stays usable.
    @discardableResult
    func run(
        _ command: Command, claim: CommandClaim = .nothing, expecting mailbox: MailboxExpectation? = nil,
        mapsAllUIDs: Bool = false, sink: (any FetchSink)? = nil, streamGroup: UInt64? = nil,
        onChallenge: (@Sendable (ContinuationRequest) throws(IMAPError) -> [UInt8])? = nil
    ) async throws(IMAPError) -> CommandOutcome {
        if let failure = machine.failure { throw failure }
        nextID += 1
        let id = nextID
        if let sink { sinks[id] = sink }
        if let onChallenge { challengeAnswers[id] = onChallenge }
        defer {
            sinks[id] = nil
            challengeAnswers[id] = nil
        }
        let request = CommandRequest(
            command: command, claim: claim, streams: sink != nil, streamGroup: streamGroup, expectedMailbox: mailbox,
            answersChallenges: onChallenge != nil, mapsAllUIDs: mapsAllUIDs)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<CommandOutcome, any Error>) in
                    if Task.isCancelled {
                        continuation.resume(throwing: IMAPError(.cancelled, "the command was cancelled"))
                        return
                    }
                    waiters[id] = continuation
                    perform(machine.enqueue(id, request, now: .now))
                }
            } onCancel: {
                // Owned by the cancelled command: one hop onto the actor to withdraw it.
                Task { await self.cancel(id) }
            }
        } catch let error as IMAPError {
            throw error
        } catch {
            throw IMAPError(.cancelled, "the command was cancelled")
        }
    }

    /// What the writer task takes, in order: bytes to write, or a marker it answers once every
    /// write before it has been made (or has failed).
    enum Outgoing: Sendable {
        case bytes([UInt8])
        case written(CheckedContinuation<Void, Never>)
    }

    /// Returns once every write queued so far has been handed to the connection (or failed).
    func writesDone() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if case .terminated = writes.yield(.written(continuation)) { continuation.resume() }
        }
    }

    /// Queues a command whose answer no one waits for: it is sent in its turn like any other, and
    /// its tagged response (OK, NO or BAD) is read and dropped.
    @discardableResult
    func send(_ command: Command, claim: CommandClaim = .nothing) -> CommandID? {
        guard machine.failure == nil else { return nil }
        nextID += 1
        perform(machine.enqueue(nextID, CommandRequest(command: command, claim: claim), now: .now))
        return nextID
    }

    /// Sends ENABLE without waiting for its answer; ``enableAnswered()`` waits for it. (Its
    /// answer can only come in a later read, after this has noted it as pending.)
    func sendEnable(_ capabilities: [Capability]) {
        guard let id = send(.enable(capabilities), claim: .enabled) else { return }
        pendingEnable = (id, Set(capabilities), [])
    }

    /// What a pending ENABLE asked for (empty when none is pending).
    var enableRequested: Set<Capability> { pendingEnable?.requested ?? [] }

    /// Returns once a pending ENABLE is answered (or the session ended); at once when none is.
    func enableAnswered() async {
        guard pendingEnable != nil else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            pendingEnable?.waiting.append(continuation)
        }
    }

    private func cancel(_ id: CommandID) {
        perform(machine.cancel(id, now: .now))
    }

    /// Performs the machine's actions in order, then notes whether the session now idles.
    func perform(_ actions: [ClientStateMachine.Action]) {
        performActions(actions)
        noteIdling()
    }

    /// Performs the machine's actions in order (``consume`` notes idling once per chunk: asking
    /// the machine copied it, and a chunk holds hundreds of responses).
    private func performActions(_ actions: [ClientStateMachine.Action]) {
        for action in actions {
            switch action {
            case .write(let bytes, let shown):
                traceClient(bytes, shown: shown)
                writes.yield(.bytes(bytes))
            case .succeed(let id, let outcome): resume(id, .success(outcome))
            case .fail(let id, let error):
                sinks[id]?.finish(throwing: error)
                resume(id, .failure(error))
            case .yield(let id, let fetch): sinks[id]?.yield(fetch)
            case .challenge(let id, let request):
                guard let answer = challengeAnswers[id] else { continue }
                do throws(IMAPError) {
                    perform(machine.challengeAnswered(id, try answer(request)))
                } catch {
                    perform(machine.end(with: error))
                }
            case .eventsAvailable:
                wakeEventWaiters()
            case .closeConnection(let error):
                connectionEnded.store(true, ordering: .relaxed)
                logger.info("session ended: \(error.message)")
                for sink in sinks.values { sink.finish(throwing: error) }
                writes.finish()
                connection.close()
            }
        }
    }

    /// Starts or clears the IDLE renewal clock after the machine's actions.
    private func noteIdling() {
        if machine.isIdling {
            if idleSince == nil {
                idleSince = .now
                logger.debug("idling")
            }
        } else {
            idleSince = nil
        }
    }

    private func resume(_ id: CommandID, _ result: Result<CommandOutcome, IMAPError>) {
        if let waiter = waiters.removeValue(forKey: id) {
            waiter.resume(with: result.mapError { $0 as any Error })
        }
        if let pending = pendingEnable, pending.id == id {
            pendingEnable = nil
            for waiting in pending.waiting { waiting.resume() }
        }
    }

    // MARK: - Reading

    /// Parses a chunk and feeds every response to the machine; false once the session ended.
    private func consume(_ bytes: [UInt8]) -> Bool {
        guard machine.failure == nil else { return false }
        parser.append(bytes)
        let now = ContinuousClock.now
        var actions: [ClientStateMachine.Action] = []
        do {
            while let response = try parser.next() {
                if logger.isEnabled(.trace) { logger.trace("S: \(Self.summary(of: response))") }
                machine.received(response, now: now, into: &actions)
                performActions(actions)
                // Emptied from the end, keeping the room: one action (a FETCH's yield) is the
                // common case, and `removeAll(keepingCapacity:)` went through `replaceSubrange`,
                // some 220 instructions for each response of a listing.
                while !actions.isEmpty { actions.removeLast() }
            }
        } catch {
            logger.error("protocol error: \(error.description)")
            perform(machine.end(with: IMAPError(error)))
            return false
        }
        noteIdling()
        // The chunk is used up: let streaming consumers have what is buffered.
        for sink in sinks.values { sink.flush() }
        return machine.failure == nil
    }

    private func connectionFailed(_ error: IMAPError) {
        if closedByOwner { return }
        perform(machine.connectionFailed(error))
    }

    /// The reader's periodic wake-up: inactivity, IDLE renewal, NOOP polling.
    private func tick() {
        let now = ContinuousClock.now
        perform(machine.tick(now: now, inactivityLimit: configuration.timeouts.commandInactivity))
        if let idleSince, now - idleSince >= configuration.timeouts.idleRenewal {
            self.idleSince = nil
            perform(machine.renewIdle())
        }
        if listeners > 0 && !machine.canIdle && machine.failure == nil {
            if let nextPoll, now < nextPoll { return }
            nextPoll = now + configuration.timeouts.pollInterval
            // Owned by the poll: one NOOP, which fails at once when the session ends.
            if machine.activeCommandCount == 0 { Task { try? await self.run(.noop) } }
        }
    }

    // MARK: - Events

    /// Starts listening: IDLE whenever no command runs (or NOOP polling without IDLE).
    func addListener() {
        listeners += 1
        nextPoll = nil
        perform(machine.setIdleWanted(true, now: .now))
    }

    /// Stops listening: DONE when the last listener leaves.
    /// Whether anyone listens for events (an event stream's consumer leaves it asynchronously).
    var hasListeners: Bool { listeners > 0 }

    func removeListener() {
        listeners -= 1
        if listeners <= 0 {
            listeners = 0
            perform(machine.setIdleWanted(false, now: .now))
        }
    }

    /// The events buffered since the last call, waiting until there is at least one; nil when
    /// the session was closed by its owner, an error when it failed.
    func nextEvents() async throws(IMAPError) -> [MailboxEvent]? {
        while true {
            let events = machine.takeEvents()
            if !events.isEmpty { return events }
            if let failure = machine.failure {
                if closedByOwner { return nil }
                throw failure
            }
            if Task.isCancelled { return nil }
            eventWaits += 1
            let waiter = eventWaits
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    eventWaiters[waiter] = continuation
                }
            } onCancel: {
                // Owned by the cancelled listener: one hop onto the actor to wake it.
                Task { await self.wakeEventWaiter(waiter) }
            }
        }
    }

    private func wakeEventWaiter(_ waiter: UInt64) {
        eventWaiters.removeValue(forKey: waiter)?.resume()
    }

    private func wakeEventWaiters() {
        let waiting = eventWaiters.values
        eventWaiters = [:]
        for waiter in waiting { waiter.resume() }
    }

    // MARK: - Closing

    /// Closes the connection at once; pending commands fail with `.cancelled`.
    public func close() {
        closedByOwner = true
        perform(machine.end(with: IMAPError(.cancelled, "the session was closed")))
    }

    // MARK: - Trace

    /// Traces written bytes, or what the machine says to show in their place (a secret's chunk).
    /// Other commands' lines still pass through the line redaction as a second guard.
    private func traceClient(_ bytes: [UInt8], shown: String?) {
        guard logger.isEnabled(.trace) else { return }
        if let shown {
            logger.trace("C: \(shown)")
            return
        }
        var text = String(decoding: Redaction.redactCredentials(in: bytes), as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        logger.trace("C: \(text)")
    }

    static func summary(of response: Response) -> String {
        var buffer = EncodeBuffer(options: .server)
        switch response {
        case .untagged(let untagged): buffer.write(untagged)
        case .tagged(let tagged): return "\(tagged.tag) \(tagged.status) \(tagged.text.text.string)"
        case .continuation(let request): return "+ \(request.text.string)"
        }
        let bytes = buffer.takeBytes()
        return String(decoding: bytes.prefix(300), as: UTF8.self) + (bytes.count > 300 ? " ..." : "")
    }
}
