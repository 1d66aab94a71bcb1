import IMAPCore

/// The client side of one IMAP connection after the greeting, as a value: tags, the commands
/// queued and in flight with the pipelining rules of RFC 3501 5.5, where each untagged response
/// goes, literals, IDLE, capabilities, the selected mailbox and its events.
///
/// The connection's `phase` (`ClientStateMachine+Phase.swift`) is an enum whose cases carry what
/// can be true in them: the selected mailbox and IDLE only when authenticated, nothing accepted
/// once ended.
///
/// It does no I/O. The driver (`IMAPSession`) feeds it events (a command to run, a parsed
/// response, a SASL answer, a closed connection, the clock) and performs the actions it returns,
/// in order.
///
/// ```
/// var machine = ClientStateMachine(capabilities: [.imap4rev1], isAuthenticated: true)
/// machine.enqueue(1, CommandRequest(command: .noop), now: now)   // [.write("M1 NOOP\r\n")]
/// machine.received(.tagged(ok "M1"), now: now)                   // [.succeed(1, ...)]
/// ```
struct ClientStateMachine: Sendable {
    /// What the driver does next.
    enum Action: Sendable {
        /// Write these bytes (after every write returned before). A trace shows `shown` in their
        /// place where it is set: on every chunk of a command that carries credentials (the line
        /// and each literal on its own) and on every SASL answer, so no chunk of a secret is shown.
        case write([UInt8], shown: String?)
        /// The command ended with OK.
        case succeed(CommandID, CommandOutcome)
        /// The command failed (NO, BAD, a closed connection, cancelled, timed out).
        case fail(CommandID, IMAPError)
        /// A FETCH response of a streaming command.
        case yield(CommandID, FetchResponse)
        /// The server sent `+` to a SASL command: answer with `challengeAnswered`.
        case challenge(CommandID, ContinuationRequest)
        /// Mailbox events are waiting in `takeEvents()`.
        case eventsAvailable
        /// Close the connection: the session has ended with this error.
        case closeConnection(IMAPError)
    }

    /// Capabilities the session uses (the server's, less those configured away).
    private(set) var capabilities: Set<Capability>
    /// Capabilities enabled with ENABLE.
    private(set) var enabled: Set<Capability> = []
    /// Where the connection is; what is true only in some phases lives in their cases.
    private(set) var phase: Phase
    /// Whether a listener wants IDLE whenever no command is running: a wish kept in every phase
    /// (a listener may ask before the login), acted on once authenticated.
    private(set) var idleWanted = false
    /// Whether the server's IDLE may be used.
    /// IDLE is a command of the authenticated and selected states (RFC 2177, RFC 9051 6.3.13).
    var canIdle: Bool { capabilities.contains(.idle) && isAuthenticated }
    /// Nothing queued, nothing waiting for an answer, not idling: a command enqueued now is
    /// written at once.
    var isQuiet: Bool { queued.isEmpty && inFlight.isEmpty && literalWriter == nil && idle == .off }

    private let ignoredCapabilities: Set<Capability>
    // The pipeline (queued and in flight commands, a literal being sent, the tag counter, the
    // last BYE) exists in both live phases alike, so it stays here rather than being copied into
    // each case; `end(with:)` empties it on entering `.ended`, and nothing refills it after.
    private var queued: [Entry] = []
    private var inFlight: [Entry] = []
    /// The command whose next literal waits for `+`; nothing else may be written meanwhile.
    private var literalWriter: CommandID?
    private var knownUIDValidity: [MailboxName: UInt32] = [:]
    private var tagCounter = 0
    private var events: [MailboxEvent] = []
    private let eventCapacity: Int
    private var lastActivity: Moment?
    private var byeText: String?

    init(
        capabilities: Set<Capability>, isAuthenticated: Bool, ignoredCapabilities: Set<Capability> = [],
        eventCapacity: Int = 5000
    ) {
        self.ignoredCapabilities = ignoredCapabilities
        self.capabilities = capabilities.subtracting(ignoredCapabilities)
        self.phase = isAuthenticated ? .authenticated(Authenticated()) : .notAuthenticated(selecting: nil)
        self.eventCapacity = max(eventCapacity, 2)
    }

    /// Commands queued or in flight (IDLE not counted).
    var activeCommandCount: Int { queued.count + inFlight.count }

    // MARK: - Events from the driver

    /// Runs `request` when the pipelining rules allow.
    mutating func enqueue(_ id: CommandID, _ request: CommandRequest, now: ContinuousClock.Instant) -> [Action] {
        if let failure { return [.fail(id, failure)] }
        queued.append(Entry(id: id, request: request))
        var actions: [Action] = []
        pump(now: now, into: &actions)
        return actions
    }

    /// The caller stopped waiting for `id`: a queued command is dropped, a sent one is abandoned
    /// (its responses are still read, and dropped).
    mutating func cancel(_ id: CommandID, now: ContinuousClock.Instant) -> [Action] {
        let error = IMAPError(.cancelled, "the command was cancelled")
        if let index = queued.firstIndex(where: { $0.id == id }) {
            queued.remove(at: index)
            var actions: [Action] = [.fail(id, error)]
            pump(now: now, into: &actions)
            return actions
        }
        if let index = inFlight.firstIndex(where: { $0.id == id }), !inFlight[index].abandoned {
            inFlight[index].abandoned = true
            return [.fail(id, error)]
        }
        return []
    }

    /// The driver's answer to a SASL challenge.
    mutating func challengeAnswered(_ id: CommandID, _ bytes: [UInt8]) -> [Action] {
        // Only a command that takes challenges (AUTHENTICATE) may have an answer written for it.
        guard failure == nil, inFlight.contains(where: { $0.id == id && $0.request.answersChallenges }) else {
            return []
        }
        return [.write(bytes, shown: "*** (SASL answer)")]
    }

    /// A listener wants IDLE (or stops wanting it).
    mutating func setIdleWanted(_ wanted: Bool, now: ContinuousClock.Instant) -> [Action] {
        idleWanted = wanted
        var actions: [Action] = []
        if !wanted, case .idling(let tag) = idle {
            updateAuthenticated { $0.idle = .ending(tag: tag) }
            actions.append(.write(CommandEncoder.encodeIdleDone(), shown: nil))
        }
        pump(now: now, into: &actions)
        return actions
    }

    /// IDLE has lasted long enough (RFC 2177: renew before 29 minutes): DONE, then IDLE again.
    mutating func renewIdle() -> [Action] {
        guard case .idling(let tag) = idle else { return [] }
        updateAuthenticated { $0.idle = .ending(tag: tag) }
        return [.write(CommandEncoder.encodeIdleDone(), shown: nil)]
    }

    /// One parsed response from the server.
    mutating func received(_ response: Response, now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        received(response, now: now, into: &actions)
        return actions
    }

    /// ``received(_:now:)`` appending to `actions`: the session keeps one array for every
    /// response of a chunk instead of allocating one per response (20,000 FETCH responses of
    /// a mailbox's envelopes are 20,000 arrays).
    mutating func received(_ response: Response, now: ContinuousClock.Instant, into actions: inout [Action]) {
        guard !hasEnded else { return }
        lastActivity = Moment(now)
        switch response {
        case .continuation(let request): continuationReceived(request, now: now, into: &actions)
        case .tagged(let tagged): taggedReceived(tagged, now: now, into: &actions)
        case .untagged(let untagged): untaggedReceived(untagged, into: &actions)
        }
    }

    /// The connection ended (closed by the server, broken, or a protocol error).
    mutating func connectionFailed(_ error: IMAPError) -> [Action] {
        if error.transportCode == .connectionClosed, let byeText {
            return end(with: IMAPError(.bye, "the server closed the session: \(byeText)", serverText: byeText))
        }
        return end(with: error)
    }

    /// Ends the session: every command fails with `error`, the connection is closed.
    mutating func end(with error: IMAPError) -> [Action] {
        guard failure == nil else { return [] }
        phase = .ended(Ended(failure: error, wasAuthenticated: isAuthenticated, lastSelected: tracker))
        var actions: [Action] = []
        for entry in inFlight where !entry.abandoned { actions.append(.fail(entry.id, error)) }
        for entry in queued { actions.append(.fail(entry.id, error)) }
        inFlight = []
        queued = []
        literalWriter = nil
        actions.append(.eventsAvailable)
        actions.append(.closeConnection(error))
        return actions
    }

    /// The clock: a command that has waited `limit` with nothing arriving ends the session.
    mutating func tick(now: ContinuousClock.Instant, inactivityLimit: Duration) -> [Action] {
        guard failure == nil else { return [] }
        let waiting = inFlight.filter { entry in
            if case .idle = entry.request.command { return false }
            return entry.sentAt != nil
        }
        var oldest = waiting.compactMap(\.sentAt).min()
        var name = waiting.first?.request.command.name
        if oldest == nil, case .authenticated(let state) = phase, case .starting = state.idle {
            oldest = [lastActivity, state.idleSentAt].compactMap { $0 }.max()
            name = "IDLE"
        }
        if oldest == nil, case .ending = idle {
            oldest = lastActivity
            name = "DONE"
        }
        guard let oldest, let name else { return [] }
        let since = max(lastActivity ?? oldest, oldest)
        guard Moment(now) - since >= inactivityLimit else { return [] }
        return end(
            with: IMAPError(
                .timeout,
                "the server did not answer \(name) for \(inactivityLimit.spokenSeconds); the session was closed, try again later"
            ))
    }

    /// Takes the buffered mailbox events, oldest first.
    mutating func takeEvents() -> [MailboxEvent] {
        defer { events = [] }
        return events
    }

    /// Forgets the UIDVALIDITY remembered for mailboxes (a new connection starts from the
    /// caller's cache instead).
    mutating func rememberUIDValidity(_ value: UInt32, for mailbox: MailboxName) {
        knownUIDValidity[mailbox] = value
    }

    // MARK: - Phases

    /// Runs `body` on the authenticated phase's fields in place; nothing in other phases (see
    /// `Phase.updateAuthenticated`).
    @discardableResult
    private mutating func updateAuthenticated<Result>(_ body: (inout Authenticated) -> Result) -> Result? {
        phase.updateAuthenticated(body)
    }

    /// Sets the mailbox a SELECT in flight is opening (nil: none), in either live phase.
    private mutating func setSelecting(_ tracker: MailboxTracker?) {
        switch phase {
        case .notAuthenticated: phase = .notAuthenticated(selecting: tracker)
        case .authenticated: updateAuthenticated { $0.selecting = tracker }
        case .ended: break
        }
    }

    /// LOGIN or AUTHENTICATE succeeded, or a SELECT did (which only an authenticated session
    /// can do): a SELECT in flight keeps opening its mailbox.
    private mutating func authenticate() {
        guard case .notAuthenticated(let selecting) = phase else { return }
        phase = .authenticated(Authenticated(selecting: selecting))
    }

    // MARK: - Sending

    /// Releases every queued command the rules allow, in order; starts or ends IDLE.
    private mutating func pump(now: ContinuousClock.Instant, into actions: inout [Action]) {
        guard failure == nil else { return }
        switch idle {
        case .idling(let tag):
            if !queued.isEmpty {
                updateAuthenticated { $0.idle = .ending(tag: tag) }
                actions.append(.write(CommandEncoder.encodeIdleDone(), shown: nil))
            }
            return
        case .starting, .ending: return
        case .off: break
        }
        var index = 0
        var blockedExclusive = false
        var blockedClasses: Set<ResponseClass> = []
        var blockedAny = false
        while index < queued.count, literalWriter == nil {
            let entry = queued[index]
            let exclusiveInFlight = inFlight.contains { $0.isExclusive && $0.holdsBack(entry) }
            let classBusy = entry.responseClass.map { responseClass in
                blockedClasses.contains(responseClass)
                    || inFlight.contains { other in
                        other.responseClass == responseClass
                            && (other.request.streamGroup == nil
                                || other.request.streamGroup != entry.request.streamGroup)
                    }
            }
            let mayGo: Bool
            if blockedExclusive || exclusiveInFlight {
                mayGo = false
            } else if entry.isExclusive {
                mayGo = !inFlight.contains { $0.holdsBack(entry) } && !blockedAny
            } else {
                mayGo = classBusy != true
            }
            guard mayGo else {
                blockedAny = true
                if entry.isExclusive { blockedExclusive = true }
                if let responseClass = entry.responseClass { blockedClasses.insert(responseClass) }
                index += 1
                continue
            }
            queued.remove(at: index)
            release(entry, now: now, into: &actions)
        }
        if queued.isEmpty && inFlight.isEmpty && literalWriter == nil && idleWanted && canIdle {
            tagCounter += 1
            let tag = "M\(tagCounter)"
            updateAuthenticated { state in
                state.idle = .starting(tag: tag)
                state.idleSentAt = Moment(now)
            }
            actions.append(.write(Array("\(tag) IDLE\r\n".utf8), shown: nil))
        }
    }

    private mutating func release(_ entry: Entry, now: ContinuousClock.Instant, into actions: inout [Action]) {
        var entry = entry
        if let expected = entry.request.expectedMailbox {
            let selected = tracker?.mailbox
            if selected?.name != expected.name
                || (expected.uidValidity != nil && selected?.uidValidity != expected.uidValidity)
            {
                actions.append(
                    .fail(
                        entry.id,
                        IMAPError(
                            .mailboxChanged,
                            "\(expected.name) is no longer the selected mailbox (another task selected \(selected.map { "\($0.name)" } ?? "nothing")); select it again"
                        )))
                return
            }
        }
        tagCounter += 1
        entry.tag = "M\(tagCounter)"
        entry.sentAt = Moment(now)
        if entry.isSelect {
            var mailbox: SelectedMailbox
            switch entry.request.command {
            case .examine(let name, _): mailbox = SelectedMailbox(name: name, isReadOnly: true)
            case .select(let name, _): mailbox = SelectedMailbox(name: name, isReadOnly: false)
            default: mailbox = SelectedMailbox(name: "", isReadOnly: false)
            }
            if capabilities.contains(.condstore) || enabled.contains(.condstore) {
                mailbox.highestModificationSequence = 0
            }
            setSelecting(MailboxTracker(mailbox))
        }
        let options = EncodingOptions.client(capabilities: capabilities, utf8Enabled: enabled.contains(.utf8Accept))
        let tagged = TaggedCommand(tag: entry.tag, command: entry.request.command)
        var chunks = CommandEncoder.encode(tagged, options: options)
        let first = chunks.removeFirst()
        actions.append(
            .write(first.bytes, shown: tagged.command.carriesCredentials ? Redaction.shownText(of: tagged) : nil))
        if first.waitsForContinuation {
            literalWriter = entry.id
            entry.remaining = chunks
        }
        inFlight.append(entry)
    }

    private mutating func continuationReceived(
        _ request: ContinuationRequest, now: ContinuousClock.Instant, into actions: inout [Action]
    ) {
        if let writer = literalWriter, let index = inFlight.firstIndex(where: { $0.id == writer }) {
            let next = inFlight[index].remaining.removeFirst()
            let secret = inFlight[index].request.command.carriesCredentials
            actions.append(.write(next.bytes, shown: secret ? "*** (literal)" : nil))
            if !next.waitsForContinuation {
                literalWriter = nil
                pump(now: now, into: &actions)
            }
            return
        }
        if case .starting(let tag) = idle {
            let ends = !queued.isEmpty || !idleWanted
            updateAuthenticated { $0.idle = ends ? .ending(tag: tag) : .idling(tag: tag) }
            if ends { actions.append(.write(CommandEncoder.encodeIdleDone(), shown: nil)) }
            return
        }
        if let entry = inFlight.last(where: { $0.request.answersChallenges }) {
            actions.append(.challenge(entry.id, request))
            return
        }
        // A `+` nobody asked for: ignore it (RFC 3501 7.5 allows only the expected ones).
    }

    private mutating func taggedReceived(
        _ tagged: TaggedResponse, now: ContinuousClock.Instant, into actions: inout [Action]
    ) {
        if tagged.status == .ok, case .capability(let list)? = tagged.text.code { setCapabilities(Set(list)) }
        switch idle {
        case .starting(let tag) where tag == tagged.tag, .idling(let tag) where tag == tagged.tag,
            .ending(let tag) where tag == tagged.tag:
            updateAuthenticated { $0.idle = .off }
            if tagged.status != .ok {
                // A server that refuses IDLE is polled with NOOP from now on.
                capabilities.remove(.idle)
            }
            pump(now: now, into: &actions)
            return
        default: break
        }
        guard let index = inFlight.firstIndex(where: { $0.tag == tagged.tag }) else { return }
        let entry = inFlight.remove(at: index)
        if literalWriter == entry.id { literalWriter = nil }
        if entry.isSelect { finishSelect(tagged, into: &actions) }
        if tagged.status == .ok { afterSuccess(of: entry.request.command, tagged) }
        if tagged.status == .ok, entry.request.mapsAllUIDs { installUIDs(answeredBy: entry) }
        if !entry.abandoned {
            do throws(IMAPError) {
                try Self.check(tagged, command: entry.request.command)
                actions.append(
                    .succeed(
                        entry.id,
                        CommandOutcome(
                            tagged: tagged, untagged: entry.collected, expungedUIDs: entry.expunged,
                            unidentifiedExpunges: entry.unidentifiedExpunges)))
            } catch {
                actions.append(.fail(entry.id, error))
            }
        }
        pump(now: now, into: &actions)
    }

    private mutating func finishSelect(_ tagged: TaggedResponse, into actions: inout [Action]) {
        guard tagged.status == .ok, var selected = selecting else {
            // RFC 3501 6.3.1: a failed SELECT leaves no mailbox selected.
            setSelecting(nil)
            updateAuthenticated { $0.tracker = nil }
            return
        }
        setSelecting(nil)
        selected.applyCode(tagged.text.code)
        selected.markSelected()
        let name = selected.mailbox.name
        if let value = selected.mailbox.uidValidity {
            if let old = knownUIDValidity[name], old != value {
                push(.uidValidityChanged(mailbox: name, old: old, new: value), into: &actions)
            }
            knownUIDValidity[name] = value
        }
        // Only an authenticated session can select (PREAUTH, or a login this machine did not see).
        authenticate()
        updateAuthenticated { $0.tracker = selected }
    }

    /// Makes the answer of a search of every message the sequence-to-UID map, if nothing changed
    /// the mailbox's membership since the answer arrived (see `CommandRequest.mapsAllUIDs`).
    private mutating func installUIDs(answeredBy entry: Entry) {
        guard let membership = tracker?.membershipChanges,
            entry.membershipAtAnswer == nil || entry.membershipAtAnswer == membership
        else { return }
        updateAuthenticated { $0.tracker?.setAllUIDs(entry.collected.answeredUIDs.sorted()) }
    }

    private mutating func afterSuccess(of command: Command, _ tagged: TaggedResponse) {
        switch command {
        case .login, .authenticate: authenticate()
        case .close, .unselect: updateAuthenticated { $0.tracker = nil }
        default: break
        }
        updateAuthenticated { $0.tracker?.applyCode(tagged.text.code) }
    }

    private mutating func untaggedReceived(_ response: UntaggedResponse, into actions: inout [Action]) {
        switch response {
        case .capability(let list): setCapabilities(Set(list))
        case .enabled(let list): enabled.formUnion(list)
        case .condition(.bye, let text): byeText = text.text.string
        default: break
        }
        // Everything while a SELECT is in flight is the mailbox's, except the answer of an
        // ENABLE sent just before it (see `holdsBack`).
        // (The SELECT is looked for first: `selecting` is read out of the phase, a copy, and
        // this runs for each of a fetch's thousands of responses.)
        if !response.isEnabled, let index = inFlight.firstIndex(where: { $0.isSelect }), var opening = selecting {
            setSelecting(nil)
            _ = opening.apply(response)
            setSelecting(opening)
            inFlight[index].collected.append(response)
            return
        }
        for index in inFlight.indices where inFlight[index].request.claim.claims(response, tag: inFlight[index].tag) {
            if case .fetch(let fetch) = response, let uid = fetch.uid {
                updateAuthenticated { $0.tracker?.record(uid: uid, at: fetch.sequenceNumber) }
            }
            if inFlight[index].request.mapsAllUIDs, inFlight[index].membershipAtAnswer == nil {
                inFlight[index].membershipAtAnswer = tracker?.membershipChanges
            }
            if inFlight[index].abandoned { return }
            if inFlight[index].request.streams, case .fetch(let fetch) = response {
                actions.append(.yield(inFlight[index].id, fetch))
            } else {
                inFlight[index].collected.append(response)
            }
            return
        }
        noteRemoval(response)
        guard let mailboxEvents = updateAuthenticated({ $0.tracker?.apply(response) }) ?? nil else {
            if case .condition(.no, let text) = response { push(.alert(text.text.string), into: &actions) }
            if case .condition(.ok, let text) = response, case .alert? = text.code {
                push(.alert(text.text.string), into: &actions)
            }
            return
        }
        for event in mailboxEvents {
            push(event, into: &actions)
        }
    }

    /// Credits an EXPUNGE (by the UID the map knows for its sequence number, before the tracker
    /// forgets it) or a VANISHED to the command in flight that removes messages, if one is.
    private mutating func noteRemoval(_ response: UntaggedResponse) {
        guard let index = inFlight.firstIndex(where: { $0.removesMessages && !$0.abandoned }) else { return }
        switch response {
        case .expunge(let number):
            if let uid = tracker?.uid(atSequenceNumber: number) {
                inFlight[index].expunged.append(uid)
            } else {
                inFlight[index].unidentifiedExpunges += 1
            }
        case .vanished(earlier: false, let set):
            inFlight[index].expunged += set.numbers ?? []
        default: break
        }
    }

    private mutating func push(_ event: MailboxEvent, into actions: inout [Action]) {
        if events.count >= eventCapacity {
            // Nobody took them in time: what was missed can only be recovered by a resync.
            events = [.resyncNeeded]
        }
        events.append(event)
        actions.append(.eventsAvailable)
    }

    private mutating func setCapabilities(_ list: Set<Capability>) {
        capabilities = list.subtracting(ignoredCapabilities)
    }

    /// Turns NO and BAD into errors.
    static func check(_ tagged: TaggedResponse, command: Command) throws(IMAPError) {
        let text = tagged.text.text.string
        switch tagged.status {
        case .ok: return
        case .no:
            var code = IMAPError.Code.no
            if case .login = command { code = .authentication }
            if case .authenticate = command { code = .authentication }
            if case .authenticationFailed? = tagged.text.code { code = .authentication }
            if case .other(let name, _)? = tagged.text.code, name.uppercased() == "UNAVAILABLE" { code = .unavailable }
            throw IMAPError(
                code, "the server refused \(command.name): \(text)", serverText: text, responseCode: tagged.text.code)
        case .bad:
            throw IMAPError(
                .bad, "the server did not accept \(command.name): \(text)", serverText: text,
                responseCode: tagged.text.code)
        }
    }
}

extension UntaggedResponse {
    /// `* ENABLED ...`.
    fileprivate var isEnabled: Bool {
        if case .enabled = self { return true }
        return false
    }
}
