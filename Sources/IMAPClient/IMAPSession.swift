public import IMAPCore
import Transport

/// An IMAP session: one connection, async/await commands, pipelined where RFC 3501 5.5 allows.
///
/// ```swift
/// let session = try await IMAPSession.connect(IMAPConfiguration(host: "imap.example.com"))
/// try await session.login(.password(user: "me", password: secret))
/// try await session.select("INBOX")
/// let uids = try await session.search([.from("alice")])          // newest first
/// for try await message in session.fetch(SequenceSet(numbers: uids), items: [.uid, .envelope]) { ... }
/// ```
/// A reader task parses everything the server sends and routes each untagged response to the
/// command that asked for it, or to the mailbox event stream. A dropped connection fails every
/// pending command; a server that stops answering fails them with a timeout.
public actor IMAPSession {
    /// The configuration the session was made with.
    public let configuration: IMAPConfiguration
    /// The capabilities the server announced last (refreshed after STARTTLS and login).
    public internal(set) var capabilities: Set<Capability>
    /// Whether the session has logged in.
    public internal(set) var isAuthenticated: Bool
    /// The selected mailbox, if any.
    public internal(set) var selectedMailbox: SelectedMailbox?
    /// Capabilities enabled with ENABLE.
    public internal(set) var enabled: Set<Capability> = []

    let connection: NetworkConnection
    let logger: Logger
    private var parser: ResponseParser
    private var tagCounter = 0
    private var pending: [String: PendingCommand] = [:]
    private var pendingOrder: [String] = []
    private var continuationWaiter: (tag: String, continuation: CheckedContinuation<ContinuationRequest, any Error>)?
    private var sendLockHeld = false
    private var sendLockWaiters: [CheckedContinuation<Void, Never>] = []
    private var commandsInFlight = 0
    private var exclusiveInFlight = false
    private var gateWaiters: [CheckedContinuation<Void, Never>] = []
    private var commandsWaiting = 0
    private var inFlightClasses: [ResponseClass: Int] = [:]
    private var terminalError: IMAPError?
    private var lastActivity = ContinuousClock.now
    private var byeText: String?
    private var readerStarted = false
    /// Where unclaimed mailbox events go while someone idles or polls.
    private var eventSink: MessageStream<MailboxEvent>?
    var idle = IdleState()

    init(
        configuration: IMAPConfiguration, connection: NetworkConnection, parser: ResponseParser,
        capabilities: Set<Capability>, authenticated: Bool
    ) {
        self.configuration = configuration
        self.connection = connection
        self.logger = configuration.logger
        self.parser = parser
        self.capabilities = capabilities.subtracting(configuration.ignoredCapabilities)
        self.isAuthenticated = authenticated
    }

    /// Connects, reads the greeting, upgrades with STARTTLS when configured, and learns the
    /// capabilities. Plain text is refused for any host but a loopback address.
    public static func connect(_ configuration: IMAPConfiguration) async throws(IMAPError) -> IMAPSession {
        try await SessionBootstrap.connect(configuration)
    }

    func startReader() {
        guard !readerStarted else { return }
        readerStarted = true
        Task { await self.readLoop() }
    }

    // MARK: - Sending commands

    struct PendingCommand {
        let tag: String
        let command: Command
        let sentAt: ContinuousClock.Instant
        let claims: @Sendable (UntaggedResponse) -> Bool
        let fetchSink: MessageStream<FetchResponse>?
        var collected: [UntaggedResponse] = []
        var completion: CheckedContinuation<TaggedResponse, any Error>?
        var result: Result<TaggedResponse, IMAPError>?
        var abandoned = false
    }

    /// Runs one command: waits its turn, sends it (with its literals), and returns the tagged
    /// response with the untagged responses the command claimed. NO and BAD become errors.
    @discardableResult
    func run(
        _ command: Command, claims: @escaping @Sendable (UntaggedResponse) -> Bool = { _ in false },
        fetchSink: MessageStream<FetchResponse>? = nil,
        onContinuation: (@Sendable (ContinuationRequest) throws(IMAPError) -> [UInt8])? = nil
    ) async throws(IMAPError) -> (tagged: TaggedResponse, untagged: [UntaggedResponse]) {
        let tag = try await send(command, claims: claims, fetchSink: fetchSink, onContinuation: onContinuation)
        defer { leaveGate(command) }
        let tagged = try await completion(of: tag)
        let collected = pending.removeValue(forKey: tag)?.collected ?? []
        try Self.check(tagged, command: command)
        return (tagged, collected)
    }

    /// Sends a command and registers it; returns its tag. The caller must await `completion(of:)`
    /// and then call `leaveGate`.
    func send(
        _ command: Command, claims: @escaping @Sendable (UntaggedResponse) -> Bool,
        fetchSink: MessageStream<FetchResponse>? = nil,
        onContinuation: (@Sendable (ContinuationRequest) throws(IMAPError) -> [UInt8])? = nil
    ) async throws(IMAPError) -> String {
        if let terminalError { throw terminalError }
        let exclusive = Self.isExclusive(command)
        await passGate(exclusive: exclusive, isIdle: command == .idle, responseClass: ResponseClass(command))
        do throws(IMAPError) {
            await acquireSendLock()
            defer { releaseSendLock() }
            if let terminalError { throw terminalError }
            tagCounter += 1
            let tag = "M\(tagCounter)"
            pending[tag] = PendingCommand(
                tag: tag, command: command, sentAt: .now, claims: claims, fetchSink: fetchSink)
            pendingOrder.append(tag)
            let options = EncodingOptions.client(
                capabilities: capabilities, utf8Enabled: enabled.contains(.utf8Accept))
            let chunks = CommandEncoder.encode(TaggedCommand(tag: tag, command: command), options: options)
            for chunk in chunks {
                traceClient(chunk.bytes)
                try await write(chunk.bytes)
                if chunk.waitsForContinuation {
                    let request = try await awaitContinuation(tag: tag)
                    _ = request
                }
            }
            if let onContinuation {
                // SASL exchanges: answer every challenge until the tagged response arrives.
                while pending[tag]?.result == nil {
                    guard let request = try? await awaitContinuation(tag: tag) else { break }
                    let answer = try onContinuation(request)
                    logger.trace("C: *** (SASL answer)")
                    try await write(answer)
                }
            }
            return tag
        } catch {
            leaveGate(command)
            throw error
        }
    }

    /// Waits for the tagged response of `tag`. Cancelling the calling task abandons the command
    /// (its responses are still read and dropped).
    func completion(of tag: String) async throws(IMAPError) -> TaggedResponse {
        if let result = pending[tag]?.result { return try result.get() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<TaggedResponse, any Error>) in
                    if let result = pending[tag]?.result {
                        continuation.resume(with: result.mapError { $0 as any Error })
                    } else if pending[tag] == nil {
                        continuation.resume(
                            throwing: terminalError ?? IMAPError(.cancelled, "the command was abandoned"))
                    } else {
                        pending[tag]?.completion = continuation
                    }
                }
            } onCancel: {
                Task { await self.abandon(tag) }
            }
        } catch let error as IMAPError {
            throw error
        } catch {
            throw IMAPError(.cancelled, "the command was cancelled")
        }
    }

    private func abandon(_ tag: String) {
        guard let completion = pending[tag]?.completion else { return }
        pending[tag]?.completion = nil
        pending[tag]?.abandoned = true
        completion.resume(throwing: IMAPError(.cancelled, "the command was cancelled"))
    }

    /// Waits for the server's `+` for the command `tag`.
    func continuationRequest(for tag: String) async throws(IMAPError) -> ContinuationRequest {
        try await awaitContinuation(tag: tag)
    }

    private func awaitContinuation(tag: String) async throws(IMAPError) -> ContinuationRequest {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                if let result = pending[tag]?.result {
                    // The command already ended (NO/BAD instead of "+").
                    switch result {
                    case .success(let tagged):
                        continuation.resume(
                            throwing: IMAPError(
                                tagged.status == .ok ? .protocolViolation : (tagged.status == .no ? .no : .bad),
                                "the server ended the command instead of accepting its data: \(tagged.text.text.string)",
                                serverText: tagged.text.text.string, responseCode: tagged.text.code))
                    case .failure(let error): continuation.resume(throwing: error)
                    }
                } else if let terminalError {
                    continuation.resume(throwing: terminalError)
                } else {
                    continuationWaiter = (tag, continuation)
                }
            }
        } catch let error as IMAPError {
            throw error
        } catch {
            throw IMAPError(.cancelled, "the command was cancelled")
        }
    }

    func write(_ bytes: [UInt8]) async throws(IMAPError) {
        do {
            try await connection.write(bytes)
        } catch {
            fail(with: IMAPError(error))
            throw IMAPError(error)
        }
    }

    /// Leaves the ordering gate `command` passed.
    func leaveGate(_ command: Command) {
        leaveGate(exclusive: Self.isExclusive(command), responseClass: ResponseClass(command))
    }

    /// Commands that must not be pipelined with others (RFC 3501 5.5): they change the session
    /// state, or use sequence numbers that an EXPUNGE could shift.
    static func isExclusive(_ command: Command) -> Bool {
        switch command {
        case .uidFetch, .uidSearch, .uidSort, .uidStore, .uidCopy, .noop, .capability, .list, .lsub, .status,
            .namespace, .id, .check, .create, .subscribe, .unsubscribe, .append:
            return false
        case .select, .examine, .startTLS, .login, .authenticate, .idle, .logout, .close, .unselect, .expunge,
            .uidExpunge, .enable, .fetch, .store, .search, .sort, .copy, .move, .uidMove, .delete, .rename:
            return true
        }
    }

    static func check(_ tagged: TaggedResponse, command: Command) throws(IMAPError) {
        let text = tagged.text.text.string
        switch tagged.status {
        case .ok: return
        case .no:
            var code = IMAPError.Code.no
            if case .authenticationFailed? = tagged.text.code { code = .authentication }
            if case .login = command { code = .authentication }
            if case .authenticate = command { code = .authentication }
            throw IMAPError(
                code, "the server refused \(command.name): \(text)", serverText: text, responseCode: tagged.text.code)
        case .bad:
            throw IMAPError(
                .bad, "the server did not accept \(command.name): \(text)", serverText: text,
                responseCode: tagged.text.code)
        }
    }

    // MARK: - Ordering

    private func passGate(exclusive: Bool, isIdle: Bool, responseClass: ResponseClass?) async {
        // An IDLE also lets every waiting command go first, so idling never starves commands.
        // Two commands whose untagged answers look alike (two SEARCHes, two FETCHes) never overlap:
        // their responses could not be told apart (RFC 3501 5.5).
        while exclusiveInFlight || (exclusive && commandsInFlight > 0) || (isIdle && commandsWaiting > 0)
            || responseClass.map({ inFlightClasses[$0, default: 0] > 0 }) == true
        {
            if !isIdle && idle.isIdling { requestIdleInterruption() }
            if !isIdle { commandsWaiting += 1 }
            await withCheckedContinuation { gateWaiters.append($0) }
            if !isIdle { commandsWaiting -= 1 }
        }
        commandsInFlight += 1
        if exclusive { exclusiveInFlight = true }
        if let responseClass { inFlightClasses[responseClass, default: 0] += 1 }
    }

    func leaveGate(exclusive: Bool, responseClass: ResponseClass?) {
        commandsInFlight -= 1
        if exclusive { exclusiveInFlight = false }
        if let responseClass { inFlightClasses[responseClass, default: 1] -= 1 }
        let waiters = gateWaiters
        gateWaiters = []
        waiters.forEach { $0.resume() }
    }

    private func acquireSendLock() async {
        while sendLockHeld { await withCheckedContinuation { sendLockWaiters.append($0) } }
        sendLockHeld = true
    }

    private func releaseSendLock() {
        sendLockHeld = false
        if !sendLockWaiters.isEmpty { sendLockWaiters.removeFirst().resume() }
    }

    // MARK: - Reading

    private func readLoop() async {
        let pollInterval = min(max(configuration.timeouts.commandInactivity / 4, .milliseconds(50)), .seconds(5))
        while terminalError == nil {
            let bytes: [UInt8]
            do {
                bytes = try await connection.read(timeout: pollInterval)
            } catch {
                if error.code == .readTimeout {
                    checkInactivity()
                    continue
                }
                if error.code == .connectionClosed, let byeText {
                    fail(with: IMAPError(.bye, "the server closed the session: \(byeText)", serverText: byeText))
                } else {
                    fail(with: IMAPError(error))
                }
                return
            }
            lastActivity = .now
            parser.append(bytes)
            do {
                while let response = try parser.next() {
                    await dispatch(response)
                }
                // The chunk is used up: let streaming consumers have what is buffered.
                for tag in pendingOrder { pending[tag]?.fetchSink?.flush() }
            } catch {
                logger.error("protocol error: \(error.description)")
                fail(with: IMAPError(error))
                connection.close()
                return
            }
        }
    }

    private func checkInactivity() {
        var waiting: [PendingCommand] = []
        for tag in pendingOrder {
            guard let entry = pending[tag], entry.result == nil else { continue }
            if case .idle = entry.command, idle.isIdling { continue }
            waiting.append(entry)
        }
        guard let oldest = waiting.map({ $0.sentAt }).min() else { return }
        let since = max(lastActivity, oldest)
        if ContinuousClock.now - since >= configuration.timeouts.commandInactivity {
            let seconds = configuration.timeouts.commandInactivity.spokenSeconds
            fail(
                with: IMAPError(
                    .timeout,
                    "the server did not answer \(waiting[0].command.name) for \(seconds); the session was closed, try again later"
                ))
            connection.close()
        }
    }

    private func dispatch(_ response: Response) async {
        switch response {
        case .continuation(let request):
            logger.trace("S: + \(request.text.string)")
            if let waiter = continuationWaiter {
                continuationWaiter = nil
                waiter.continuation.resume(returning: request)
            } else {
                logger.warning("unexpected continuation request: \(request.text.string)")
            }
        case .tagged(let tagged):
            logger.trace("S: \(tagged.tag) \(tagged.status) \(tagged.text.text.string)")
            complete(tagged)
        case .untagged(let untagged):
            if logger.isEnabled(.trace) { logger.trace("S: * \(Self.summary(of: untagged))") }
            apply(untagged)
            for tag in pendingOrder {
                guard let entry = pending[tag], entry.result == nil, entry.claims(untagged) else { continue }
                if let sink = entry.fetchSink, case .fetch(let fetch) = untagged {
                    _ = await sink.send(fetch)
                } else if !entry.abandoned {
                    pending[tag]?.collected.append(untagged)
                }
                return
            }
            if let event = Self.event(from: untagged) { await deliver(event) }
        }
    }

    private func complete(_ tagged: TaggedResponse) {
        if case .capability(let list)? = tagged.text.code, tagged.status == .ok {
            setCapabilities(Set(list))
        }
        guard pending[tagged.tag] != nil else {
            logger.warning("tagged response for an unknown tag \(tagged.tag)")
            return
        }
        pending[tagged.tag]?.result = .success(tagged)
        pendingOrder.removeAll { $0 == tagged.tag }
        if let waiter = continuationWaiter, waiter.tag == tagged.tag {
            continuationWaiter = nil
            waiter.continuation.resume(
                throwing: IMAPError(
                    tagged.status == .no ? .no : .bad,
                    "the server refused the command's data: \(tagged.text.text.string)",
                    serverText: tagged.text.text.string, responseCode: tagged.text.code))
        }
        if let completion = pending[tagged.tag]?.completion {
            pending[tagged.tag]?.completion = nil
            completion.resume(returning: tagged)
        }
        if pending[tagged.tag]?.abandoned == true { pending.removeValue(forKey: tagged.tag) }
    }

    /// Updates capabilities and the selected mailbox from any untagged response.
    private func apply(_ untagged: UntaggedResponse) {
        switch untagged {
        case .capability(let list): setCapabilities(Set(list))
        case .enabled(let list): enabled.formUnion(list)
        case .exists(let count): selectedMailbox?.messageCount = count
        case .recent(let count): selectedMailbox?.recentCount = count
        case .expunge:
            if let count = selectedMailbox?.messageCount, count > 0 { selectedMailbox?.messageCount = count - 1 }
        case .flags(let flags): selectedMailbox?.flags = flags
        case .condition(let status, let text):
            switch text.code {
            case .permanentFlags(let flags)?: selectedMailbox?.permanentFlags = flags
            case .uidValidity(let value)?: selectedMailbox?.uidValidity = value
            case .uidNext(let value)?: selectedMailbox?.uidNext = value
            case .unseen(let value)?: selectedMailbox?.firstUnseen = value
            case .highestModificationSequence(let value)?: selectedMailbox?.highestModificationSequence = value
            case .noModificationSequence?: selectedMailbox?.highestModificationSequence = nil
            case .readOnly?: selectedMailbox?.isReadOnly = true
            case .capability(let list)?: setCapabilities(Set(list))
            default: break
            }
            if status == .bye { byeText = text.text.string }
        case .fetch(let fetch):
            if let value = fetch.modificationSequence, let highest = selectedMailbox?.highestModificationSequence,
                value > highest
            {
                selectedMailbox?.highestModificationSequence = value
            }
        default: break
        }
    }

    static func event(from untagged: UntaggedResponse) -> MailboxEvent? {
        switch untagged {
        case .exists(let count): return .messageCount(count)
        case .expunge(let number): return .expunged(sequenceNumber: number)
        case .vanished(_, let set): return .vanished(set)
        case .fetch(let fetch):
            guard let flags = fetch.flags else { return nil }
            return .flagsChanged(
                sequenceNumber: fetch.sequenceNumber, uid: fetch.uid, flags: flags,
                modificationSequence: fetch.modificationSequence)
        case .condition(.ok, let text):
            if case .alert? = text.code { return .alert(text.text.string) }
            return nil
        case .condition(.no, let text): return .alert(text.text.string)
        default: return nil
        }
    }

    private func deliver(_ event: MailboxEvent) async {
        if let eventSink {
            _ = await eventSink.send(event)
        } else {
            idle.bufferedEvents.append(event)
            if idle.bufferedEvents.count > 10_000 { idle.bufferedEvents.removeFirst(5000) }
        }
    }

    func setEventSink(_ sink: MessageStream<MailboxEvent>?) async {
        eventSink = sink
        if let sink {
            let buffered = idle.bufferedEvents
            idle.bufferedEvents = []
            for event in buffered { _ = await sink.send(event) }
        }
    }

    /// Fails every pending command and the event stream; the session is unusable afterwards.
    func fail(with error: IMAPError) {
        guard terminalError == nil else { return }
        terminalError = error
        logger.info("session ended: \(error.message)")
        for tag in pendingOrder {
            if let completion = pending[tag]?.completion {
                pending[tag]?.completion = nil
                completion.resume(throwing: error)
            }
            pending[tag]?.result = .failure(error)
            pending[tag]?.fetchSink?.finish(throwing: error)
        }
        pendingOrder = []
        if let waiter = continuationWaiter {
            continuationWaiter = nil
            waiter.continuation.resume(throwing: error)
        }
        eventSink?.finish(throwing: error)
        eventSink = nil
        wakeIdleLoop()
    }

    func setCapabilities(_ list: Set<Capability>) { capabilities = list.subtracting(configuration.ignoredCapabilities) }

    func beginSelecting(_ mailbox: SelectedMailbox?) { selectedMailbox = mailbox }

    func markReadOnly() { selectedMailbox?.isReadOnly = true }

    /// The error that ended the session, if it ended.
    public var failure: IMAPError? { terminalError }

    // MARK: - Trace

    private func traceClient(_ bytes: [UInt8]) {
        guard logger.isEnabled(.trace) else { return }
        let redacted = Redaction.redactCredentials(in: bytes)
        var text = String(decoding: redacted.prefix(2000), as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        logger.trace("C: \(text)")
    }

    static func summary(of untagged: UntaggedResponse) -> String {
        var buffer = EncodeBuffer(options: .server)
        buffer.write(untagged)
        let bytes = buffer.takeBytes()
        return String(decoding: bytes.prefix(300), as: UTF8.self) + (bytes.count > 300 ? " ..." : "")
    }
}

/// The kind of untagged data a command is answered with; two commands of one class are never in
/// flight together.
enum ResponseClass: Hashable {
    case search, messageData, mailboxList, mailboxStatus, capability, namespace, identity

    init?(_ command: Command) {
        switch command {
        case .search, .uidSearch, .sort, .uidSort: self = .search
        case .fetch, .uidFetch, .store, .uidStore: self = .messageData
        case .list, .lsub: self = .mailboxList
        case .status: self = .mailboxStatus
        case .capability: self = .capability
        case .namespace: self = .namespace
        case .id: self = .identity
        case .noop, .logout, .startTLS, .login, .authenticate, .enable, .select, .examine, .create, .delete, .rename,
            .subscribe, .unsubscribe, .close, .unselect, .expunge, .uidExpunge, .append, .check, .copy, .uidCopy,
            .move, .uidMove, .idle:
            return nil
        }
    }
}
