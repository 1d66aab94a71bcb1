import IMAPCore
import Synchronization
import Transport

/// Runs one connection: reads bytes, feeds them to the command parser and the session state
/// machine, performs the actions it returns (write, STARTTLS, check credentials, run mailbox
/// commands, close), and pushes changes to an idling client.
///
/// Everything the connection receives arrives as one stream of inputs, handled in order: bytes
/// from the reader task, silence (a read timeout), the end of the stream, and "the selected
/// mailbox changed" from the store. The reader is restarted after STARTTLS with a new epoch, so
/// plain-text bytes read before the handshake are dropped, never parsed.
///
/// Faults (`FaultController`) are applied here, on the way out: each command is reported to the
/// server's faults before it runs, and the effects that come back change how (and whether) it is
/// run and how its responses are written. The session state machine knows nothing of them.
struct ConnectionDriver {
    enum Input: Sendable {
        case bytes([UInt8], epoch: Int)
        case silence(epoch: Int)
        case closed(epoch: Int)
        case mailboxChanged
    }

    /// Set while a mailbox-changed input is queued, so a burst of changes queues one input.
    final class ChangeSignal: Sendable {
        let pending = Atomic<Bool>(false)
    }

    let connection: NetworkConnection
    let store: MailStore
    let configuration: MockIMAPServer.Configuration
    let certificate: ServerTLSConfiguration
    let record: SessionRecord
    let faults: FaultController

    private var machine: SessionStateMachine
    private var parser: CommandParser
    private var mailboxSession: MailboxSession?
    private var output: [UInt8] = []
    /// The encoded OK of STARTTLS, written together with the handshake start.
    private var startTLSResponse: [UInt8]?
    private var closing = false
    private var lastActivity = ContinuousClock.now
    private var epoch = 0
    private let changeSignal = ChangeSignal()
    private var observation: (id: UInt64, mailbox: String)?
    private var continuation: AsyncStream<Input>.Continuation?
    /// Client bytes given to the parser and not yet matched to an event (for the transcript).
    private var unattributed: [UInt8] = []
    private var appendedTotal = 0
    private var attributedTotal = 0
    /// A fault stalled the connection: nothing more is read or answered until it closes.
    private var stalled = false
    /// The effects of the faults on the command being run, if any.
    private var faultEffects: FaultEffects?
    /// Injected untagged lines waiting for the command's tagged response.
    private var pendingInjection: [UInt8] = []
    /// The last command was AUTHENTICATE: a line that follows and is not a command is a SASL
    /// answer, even when the server refused the AUTHENTICATE instead of asking for it.
    private var afterAuthenticate = false

    init(
        connection: NetworkConnection, listener: MockIMAPServer.Listener.Kind, store: MailStore,
        configuration: MockIMAPServer.Configuration, certificate: ServerTLSConfiguration, record: SessionRecord,
        faults: FaultController
    ) {
        self.connection = connection
        self.store = store
        self.configuration = configuration
        self.certificate = certificate
        self.record = record
        self.faults = faults
        machine = SessionStateMachine(
            settings: SessionStateMachine.Settings(
                profile: configuration.profile, offersStartTLS: listener == .plain,
                allowPlainTextAuthentication: configuration.allowPlainTextAuthentication,
                loginTimeout: configuration.loginTimeout, autologoutTimeout: configuration.autologoutTimeout,
                limits: configuration.limits,
                maximumLiteralSizeBeforeLogin: configuration.maximumLiteralSizeBeforeLogin),
            isTLS: listener == .implicitTLS)
        parser = CommandParser(options: machine.parserOptions)
    }

    /// Serves the connection until it closes.
    mutating func run() async {
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        self.continuation = continuation
        var reader = startReader()
        defer {
            reader.cancel()
            if let observation { store.stopObserving(observation.id) }
            connection.close()
            continuation.finish()
        }
        guard await perform(machine.connected()), await flush() else { return }
        for await input in inputs {
            if stalled {
                // A stall ends only when the client or the server closes the connection.
                if case .closed = input { return }
                continue
            }
            switch input {
            case .bytes(let bytes, let inputEpoch):
                guard inputEpoch == epoch else { continue }
                lastActivity = .now
                guard await handle(bytes) else { return }
            case .silence(let inputEpoch):
                guard inputEpoch == epoch else { continue }
                guard await perform(machine.silence(for: .now - lastActivity)) else { return }
            case .closed(let inputEpoch):
                guard inputEpoch == epoch else { continue }
                machine.connectionClosed()
                return
            case .mailboxChanged:
                changeSignal.pending.store(false, ordering: .relaxed)
                guard await perform(machine.mailboxChanged()) else { return }
            }
            guard await flush(), !closing else { return }
            if let response = startTLSResponse {
                startTLSResponse = nil
                reader.cancel()
                await reader.value
                epoch += 1
                // Bytes after STARTTLS came before the handshake: never trusted (RFC 3501 6.2.1).
                _ = parser.takeUnframedBytes()
                unattributed.removeAll()
                appendedTotal = 0
                attributedTotal = 0
                do {
                    try await connection.startTLS(server: certificate, afterWriting: response)
                    machine.tlsStarted()
                } catch {
                    _ = machine.tlsFailed()
                    return
                }
                lastActivity = .now
                reader = startReader()
            }
        }
    }

    /// A task that reads until the connection ends, tagged with the current epoch.
    private func startReader() -> Task<Void, Never> {
        let connection = connection
        let continuation = continuation
        let epoch = epoch
        let tick = min(configuration.loginTimeout, configuration.autologoutTimeout)
        return Task {
            while !Task.isCancelled {
                do throws(TransportError) {
                    let bytes = try await connection.read(timeout: tick)
                    continuation?.yield(.bytes(bytes, epoch: epoch))
                } catch {
                    if error.code == .readTimeout {
                        continuation?.yield(.silence(epoch: epoch))
                        continue
                    }
                    if !Task.isCancelled { continuation?.yield(.closed(epoch: epoch)) }
                    return
                }
            }
        }
    }

    // MARK: - Client bytes

    /// Parses and runs what `bytes` complete; false when the connection is gone.
    private mutating func handle(_ bytes: [UInt8]) async -> Bool {
        parser.append(bytes)
        unattributed += bytes
        appendedTotal += bytes.count
        while !closing && !stalled && startTLSResponse == nil {
            let event: CommandParserEvent?
            do {
                event = try parser.next()
            } catch {
                // A SASL answer, or a line after an AUTHENTICATE the server did not continue
                // (a client that sent its answer without waiting for "+"), is hidden whole.
                recordClientFrame(
                    takeAttributedBytes(),
                    redacting: parser.mode == .authentication || afterAuthenticate ? .everything : .unknownCommand)
                let literalFollows = parser.isDiscardingRefusedLiteral
                guard await perform(machine.parseFailed(error, literalFollows: literalFollows)) else { return false }
                updateParser()
                continue
            }
            guard let event else {
                // Bytes a broken limit threw away belong to no event.
                _ = takeAttributedBytes()
                break
            }
            let action: SessionStateMachine.Action
            switch event {
            case .continuationNeeded(let size):
                action = machine.literalAnnounced(size: size)
            case .command(let tagged):
                let frame = takeAttributedBytes()
                // Decided from the command, not from its bytes (which its literals split): every
                // line and literal of a LOGIN or AUTHENTICATE is one `tag LOGIN ***` line.
                if tagged.command.carriesCredentials {
                    record.record(.client, line: Redaction.shownText(of: tagged))
                } else {
                    record.record(.client, frame)
                }
                if case .authenticate = tagged.command { afterAuthenticate = true } else { afterAuthenticate = false }
                let violation = LiteralRules.violation(in: frame, capabilities: machine.capabilities)
                let effects = faults.commandReceived(
                    name: tagged.command.name, tag: tagged.tag, user: machine.user, session: record.id)
                if !effects.isEmpty {
                    guard await perform(tagged, violation: violation, with: effects) else { return false }
                    updateParser()
                    continue
                }
                if let violation {
                    action = machine.literalRuleBroken(tag: tagged.tag, violation)
                } else {
                    action = machine.commandReceived(tagged)
                }
            case .authenticationResponse(let line):
                _ = takeAttributedBytes()
                record.record(.client, line: "***")
                action = machine.authenticationResponse(line)
            case .idleDone:
                record.record(.client, takeAttributedBytes())
                action = machine.idleDone()
            }
            guard await perform(action) else { return false }
            updateParser()
        }
        return true
    }

    /// Tells the parser how the machine reads the next line, and the limits in force (tighter
    /// before login).
    private mutating func updateParser() {
        parser.mode = machine.parserMode
        let options = machine.parserOptions
        if parser.options != options { parser.options = options }
    }

    /// How much of a frame the parser refused a transcript may show.
    private enum FrameRedaction {
        /// Nothing: `***` (a SASL answer).
        case everything
        /// The frame with any LOGIN or AUTHENTICATE arguments and literals hidden
        /// (`Redaction.redactCredentials`: the command is unknown, only its bytes are).
        case unknownCommand
    }

    /// The bytes the parser consumed since the last event.
    private mutating func takeAttributedBytes() -> [UInt8] {
        let consumed = appendedTotal - parser.bufferedByteCount
        let count = max(0, min(consumed - attributedTotal, unattributed.count))
        attributedTotal += count
        let bytes = Array(unattributed.prefix(count))
        unattributed.removeFirst(count)
        return bytes
    }

    private func recordClientFrame(_ bytes: [UInt8], redacting redaction: FrameRedaction) {
        guard !bytes.isEmpty else { return }
        switch redaction {
        case .everything: record.record(.client, line: "***")
        case .unknownCommand: record.record(.client, Redaction.redactCredentials(in: bytes))
        }
    }

    // MARK: - Faults

    /// Runs a command some faults fired on, and writes its responses the way they say; false
    /// when the connection is gone.
    private mutating func perform(
        _ tagged: TaggedCommand, violation: LiteralRules.Violation?, with effects: FaultEffects
    ) async -> Bool {
        // What earlier commands wrote goes out unharmed.
        guard await flush() else { return false }
        if effects.changesUIDValidity { renewUIDValidity(for: tagged.command) }
        faultEffects = effects
        pendingInjection = effects.injectedBytes
        defer {
            faultEffects = nil
            pendingInjection = []
        }
        switch effects.replacement {
        case .stall:
            stalled = true
            return true
        case .respond(let status, _, _):
            writePendingInjection()
            if let bytes = effects.replacementResponse(tag: tagged.tag) { output += bytes }
            if status == .bye { machine.connectionClosed() }
        case nil:
            let action: SessionStateMachine.Action
            if let violation {
                action = machine.literalRuleBroken(tag: tagged.tag, violation)
            } else {
                action = machine.commandReceived(tagged)
            }
            guard await perform(action) else { return false }
            // No tagged response yet (IDLE, a SASL challenge): the lines go after what was written.
            writePendingInjection()
        }
        if let delay = effects.delay {
            do {
                try await Task.sleep(for: delay)
            } catch {
                return false  // the server is stopping
            }
        }
        let bytes = output
        output = []
        let (writes, thenClose) = effects.writes(of: bytes)
        // The transcript shows what the client got, not what the command would have sent.
        record.record(.server, Array(writes.joined()))
        for chunk in writes {
            record.writing(chunk.count)
            do {
                try await connection.write(chunk)
            } catch {
                return false
            }
        }
        if thenClose {
            closing = true
            machine.connectionClosed()
        }
        return true
    }

    /// Gives the mailbox a command names (SELECT, EXAMINE, STATUS), else the selected one, a
    /// fresh UIDVALIDITY.
    private func renewUIDValidity(for command: Command) {
        guard let user = machine.user else { return }
        var mailbox = mailboxSession?.selected.map { MailboxName(ByteString($0.name)).displayName }
        if case .select(let name, _) = command { mailbox = name.displayName }
        if case .examine(let name, _) = command { mailbox = name.displayName }
        if case .status(let name, _) = command { mailbox = name.displayName }
        guard let mailbox else { return }
        // A mailbox that does not exist has no UIDVALIDITY to change; the command says so itself.
        _ = try? store.renewUIDValidity(user: user, mailbox: mailbox)
    }

    private mutating func writePendingInjection() {
        guard !pendingInjection.isEmpty else { return }
        output += pendingInjection
        pendingInjection = []
    }

    // MARK: - Actions

    /// Performs an action; false when the connection is gone.
    private mutating func perform(_ action: SessionStateMachine.Action) async -> Bool {
        switch action {
        case .none:
            return true
        case .send(let responses):
            return await write(responses)
        case .close(let responses):
            closing = true
            return await write(responses)
        case .startTLS(let response):
            let bytes = ResponseEncoder.encode(response)
            record.record(.server, bytes)
            startTLSResponse = bytes
            return true
        case .verifyPassword(_, let user, let password):
            let accepted = store.credentials(of: user)?.password.map { $0 == password } ?? false
            return await loggedIn(user, accepted: accepted)
        case .verifyToken(_, let user, let token):
            let accepted = store.credentials(of: user)?.oauth2Token.map { $0 == token } ?? false
            return await loggedIn(user, accepted: accepted)
        case .execute(let tagged):
            guard var session = mailboxSession else { return true }
            let outcome = session.execute(tagged)
            mailboxSession = session
            machine.executed(selection: session.selection, closesConnection: outcome.closesConnection)
            if outcome.closesConnection { closing = true }
            observeSelection()
            return await write(outcome.responses)
        case .reportUpdates(let prefix):
            guard await write(prefix) else { return false }
            guard var session = mailboxSession else { return true }
            let outcome = session.pendingUpdates()
            mailboxSession = session
            if outcome.closesConnection { closing = true }
            return await write(outcome.responses)
        }
    }

    private mutating func loggedIn(_ user: String, accepted: Bool) async -> Bool {
        if accepted {
            mailboxSession = MailboxSession(store: store, user: user, profile: configuration.profile)
            record.loggedIn(user)
        }
        return await perform(machine.credentialsChecked(user: user, accepted: accepted))
    }

    /// Watches the selected mailbox, so IDLE can report changes as they happen.
    private mutating func observeSelection() {
        let selected = mailboxSession?.selected?.name
        guard observation?.mailbox != selected else { return }
        if let observation { store.stopObserving(observation.id) }
        observation = nil
        guard let selected, let user = mailboxSession?.user else { return }
        let continuation = continuation
        let signal = changeSignal
        let id = store.observe(user: user, mailbox: selected) {
            if !signal.pending.exchange(true, ordering: .relaxed) { continuation?.yield(.mailboxChanged) }
        }
        observation = (id, selected)
    }

    /// Encodes responses into the output, sending it whenever it passes 1 MiB so a FETCH of
    /// many large messages never sits whole in memory; false when the connection is gone.
    private mutating func write(_ responses: [Response]) async -> Bool {
        for response in responses {
            if case .tagged = response { writePendingInjection() }
            let bytes = ResponseEncoder.encode(response)
            // Faulted responses are recorded when they are written (perhaps cut short).
            if faultEffects == nil { record.record(.server, bytes) }
            output += bytes
            // Faulted responses are written whole, by the fault's rules.
            if output.count >= 1 << 20 && faultEffects == nil {
                guard await flush() else { return false }
            }
        }
        return true
    }

    /// Sends what was written; false when the connection is gone.
    private mutating func flush() async -> Bool {
        guard !output.isEmpty else { return true }
        let bytes = output
        output = []
        record.writing(bytes.count)
        do {
            try await connection.write(bytes)
            return true
        } catch {
            return false
        }
    }
}
