public import IMAPCore
import MailMIME
import Synchronization

extension IMAPSession {
    // MARK: - Authentication

    /// Logs in: AUTHENTICATE PLAIN (with SASL-IR when offered) or LOGIN for a password,
    /// AUTHENTICATE XOAUTH2 for a token. Credentials are never sent over an unencrypted connection
    /// to a non-loopback host. Afterwards capabilities are refreshed, ID is sent when offered, and
    /// CONDSTORE and UTF8=ACCEPT are enabled when offered.
    public func login(_ credentials: Credentials) async throws(IMAPError) {
        try await login(credentials, awaitingEnable: true)
    }

    /// Logs in; with `awaitingEnable` false, returns without waiting for ENABLE's answer, so that
    /// a SELECT sent next goes out in the same flight (``select(_:readOnly:resynchronizing:)``
    /// waits for the answer itself where the SELECT depends on it). Until then ``enabled`` may
    /// not show what ENABLE turned on.
    func login(_ credentials: Credentials, awaitingEnable: Bool) async throws(IMAPError) {
        guard !isAuthenticated else { return }
        if loginWaiters != nil {
            // A login is under way (this actor runs another caller between its suspensions):
            // this one ends as that one does.
            let failure = await withCheckedContinuation { (continuation: CheckedContinuation<IMAPError?, Never>) in
                loginWaiters?.append(continuation)
            }
            if let failure { throw failure }
            return
        }
        loginWaiters = []
        var failure: IMAPError?
        do throws(IMAPError) {
            try await authenticateOnce(credentials, awaitingEnable: awaitingEnable)
        } catch {
            failure = error
        }
        let waiting = loginWaiters ?? []
        loginWaiters = nil
        for waiter in waiting { waiter.resume(returning: failure) }
        if let failure { throw failure }
    }

    private func authenticateOnce(_ credentials: Credentials, awaitingEnable: Bool) async throws(IMAPError) {
        guard connection.isTLS || connection.peerIsLoopback else {
            throw IMAPError(
                .insecure,
                "refusing to send credentials over an unencrypted connection to \(configuration.host); use TLS")
        }
        let mechanisms = Set(capabilities.compactMap { $0.authenticationMechanism?.uppercased() })
        let saslIR = capabilities.contains(.saslIR)
        var tagged: TaggedResponse
        switch credentials {
        case .password(let user, let password):
            if mechanisms.contains("PLAIN") || capabilities.contains(.loginDisabled) {
                guard mechanisms.contains("PLAIN") else {
                    throw IMAPError(
                        .unsupported,
                        "the server disables LOGIN and offers no AUTHENTICATE PLAIN; it cannot take a password")
                }
                let token = ByteString(Base64.encode(Array("\0\(user)\0\(password)".utf8)))
                tagged = try await authenticate(mechanism: "PLAIN", token: token, initialResponse: saslIR)
            } else {
                tagged = try await run(.login(username: ByteString(user), password: ByteString(password))).tagged
            }
        case .oauth2(let user, let token):
            guard mechanisms.contains("XOAUTH2") else {
                throw IMAPError(.unsupported, "the server does not offer AUTHENTICATE XOAUTH2; use a password")
            }
            let payload = ByteString(Base64.encode(Array("user=\(user)\u{1}auth=Bearer \(token)\u{1}\u{1}".utf8)))
            tagged = try await authenticate(mechanism: "XOAUTH2", token: payload, initialResponse: saslIR)
        }
        if case .capability? = tagged.text.code {
            // The machine took the new capabilities from the response code.
        } else {
            try await refreshCapabilities()
        }
        if capabilities.contains(.id) {
            // Sent without waiting for the answer (nothing reads the server's ID; NO or BAD is
            // no reason to fail the login), so ENABLE and SELECT follow it in the same flight.
            send(.id(configuration.clientIdentity), claim: .identity)
        }
        let wanted = Self.enabledAtLogin(offered: capabilities)
        if !wanted.isEmpty {
            // NO or BAD to ENABLE leaves the session as it was: no reason to fail the login.
            sendEnable(wanted)
            if awaitingEnable { await enableAnswered() }
        }
    }

    /// What the session ENABLEs after logging in on a server that offers `capabilities`:
    /// CONDSTORE, QRESYNC and UTF8=ACCEPT, those offered, when ENABLE is.
    public static func enabledAtLogin(offered capabilities: Set<Capability>) -> [Capability] {
        guard capabilities.contains(.enable) else { return [] }
        return [Capability.condstore, .qresync, .utf8Accept].filter { capabilities.contains($0) }
    }

    private func authenticate(
        mechanism: String, token: ByteString, initialResponse: Bool
    ) async throws(IMAPError)
        -> TaggedResponse
    {
        if initialResponse {
            // A challenge after an initial response is an error report (XOAUTH2): answer empty.
            return try await run(
                .authenticate(mechanism: mechanism, initialResponse: token),
                onChallenge: { _ throws(IMAPError) in Array("\r\n".utf8) }
            ).tagged
        }
        let answer = CommandEncoder.encodeAuthenticationResponse(token)
        let state = AnswerOnce(answer)
        return try await run(
            .authenticate(mechanism: mechanism), onChallenge: { _ throws(IMAPError) in state.next() }
        ).tagged
    }

    /// CAPABILITY.
    public func refreshCapabilities() async throws(IMAPError) {
        try await run(.capability, claim: .capability)
    }

    // MARK: - Mailboxes

    /// LIST: the mailboxes matching `pattern` (default: all).
    public func list(reference: MailboxName = "", pattern: String = "*") async throws(IMAPError) -> [MailboxListItem] {
        let result = try await run(
            .list(reference: reference, patterns: [ByteString(pattern)]), claim: .mailboxList)
        return result.untagged.compactMap { if case .list(let item) = $0 { item } else { nil } }
    }

    /// STATUS of a mailbox that need not be selected.
    public func status(
        _ mailbox: MailboxName,
        _ attributes: [StatusAttribute] = [.messages, .unseen, .uidNext, .uidValidity]
    ) async throws(IMAPError) -> MailboxStatus {
        var wanted = attributes
        if capabilities.contains(.condstore) && !wanted.contains(.highestModSeq) { wanted.append(.highestModSeq) }
        let result = try await run(.status(mailbox, wanted), claim: .status(mailbox))
        for case .mailboxStatus(_, let status) in result.untagged { return status }
        throw IMAPError(.protocolViolation, "the server answered STATUS without a STATUS response")
    }

    /// SELECT (or EXAMINE when `readOnly`), with CONDSTORE when the server has it. When the
    /// mailbox was selected before with another UIDVALIDITY, `.uidValidityChanged` is reported
    /// to `events()`.
    @discardableResult
    public func select(_ mailbox: MailboxName, readOnly: Bool = false) async throws(IMAPError) -> SelectedMailbox {
        try await select(mailbox, readOnly: readOnly, resynchronizing: nil).mailbox
    }

    /// SELECT with QRESYNC (RFC 7162 3.2.5) when the server has it enabled and `known` is given:
    /// the server reports what was expunged (VANISHED (EARLIER)) and which flags changed since
    /// `known.highestModificationSequence`, in the same round trip.
    public func select(
        _ mailbox: MailboxName, readOnly: Bool = false, resynchronizing known: KnownMailboxState?
    ) async throws(IMAPError) -> (mailbox: SelectedMailbox, changes: [UntaggedResponse]) {
        // A SELECT with QRESYNC parameters, or with a name UTF8=ACCEPT would change, waits for a
        // pending ENABLE's answer; any other goes out behind it in the same flight, written as
        // if ENABLE succeeded (it answers before the SELECT is read).
        let requested = enableRequested
        if (known != nil && requested.contains(.qresync))
            || (requested.contains(.utf8Accept) && !mailbox.bytes.isASCII)
        {
            await enableAnswered()
        }
        let assumed = enabled.union(enableRequested)
        var parameters: [SelectParameter] = []
        if let known, enabled.contains(.qresync), let modseq = known.highestModificationSequence, modseq > 0 {
            var value = "(\(known.uidValidity) \(modseq)"
            if let uids = known.uids, !uids.isEmpty { value += " \(uids)" }
            parameters.append(.other(name: "QRESYNC", value: ByteString(value + ")")))
        } else if capabilities.contains(.condstore) && !assumed.contains(.qresync) {
            parameters.append(.condStore)
        }
        if let known { machine.rememberUIDValidity(known.uidValidity, for: mailbox) }
        let outcome = try await run(
            readOnly ? .examine(mailbox, parameters: parameters) : .select(mailbox, parameters: parameters))
        guard let selected = selectedMailbox else {
            throw IMAPError(.cancelled, "the session ended while selecting \(mailbox)")
        }
        let changes = outcome.untagged.filter { response in
            switch response {
            case .vanished, .fetch: return true
            default: return false
            }
        }
        return (selected, changes)
    }

    // MARK: - Search

    /// Searches the selected mailbox; returns the UIDs, newest first, and their count.
    ///
    /// Runs the ``SearchPlan`` of `keys` for this server's capabilities and what it enabled: SORT
    /// `(REVERSE ARRIVAL)` when the server has SORT, ESEARCH `RETURN (COUNT ALL)` when it has
    /// ESEARCH, plain UID SEARCH otherwise. Non-ASCII text goes as `CHARSET UTF-8` with literals,
    /// or quoted UTF-8 under IMAP4rev2/UTF8=ACCEPT. On `NO [BADCHARSET]` (or a `BAD` that
    /// servers such as Cyrus give for an unknown charset) an ASCII SORT is retried in US-ASCII;
    /// a non-ASCII search fails with a clear error. With `mailbox`, the search fails with
    /// `.mailboxChanged` rather than run in another mailbox another task selected. With
    /// `ordered` false a plain UID SEARCH (ESEARCH when the server has it) runs even where SORT
    /// is there.
    public func search(
        _ keys: [SearchKey], in mailbox: MailboxExpectation? = nil, ordered: Bool = true
    ) async throws(IMAPError) -> SearchResult {
        let plan = searchPlan(keys, ordered: ordered)
        guard plan.steps.count == 1 else {
            // The parts of a long UID set are disjoint: UIDs and counts simply add up.
            var uids: [UInt32] = []
            var count = 0
            for step in plan.steps {
                let found = try await run(step, of: plan, mailbox, mapsAllUIDs: false)
                uids += found.uids
                count += found.count
            }
            return SearchResult(uids: uids.sorted(by: >), count: count)
        }
        // A search of every message gives the whole sequence-to-UID map for free, so listening
        // for events afterwards needs no UID SEARCH ALL of its own. The state machine installs
        // it when the answer is complete, in order with the responses around it: an EXPUNGE read
        // just after it cannot be undone by a map installed later.
        return try await run(plan.steps[0], of: plan, mailbox, mapsAllUIDs: keys.isEmpty || keys == [.all])
    }

    /// What ``search(_:in:ordered:)`` sends for `keys` on this server, as it stands now.
    func searchPlan(_ keys: [SearchKey], ordered: Bool = true) -> SearchPlan {
        SearchPlan(
            keys: keys, ordered: ordered, capabilities: capabilities, enabled: enabled,
            maximumCommandLength: configuration.maximumCommandLength)
    }

    private func run(
        _ step: SearchPlan.Step, of plan: SearchPlan, _ mailbox: MailboxExpectation?, mapsAllUIDs: Bool
    ) async throws(IMAPError) -> SearchResult {
        do {
            return try await run(step.command, sortsOnServer: plan.sortsOnServer, mailbox, mapsAllUIDs)
        } catch  where error.isCharsetRefusal {
            switch step.whenCharsetRefused {
            case .retry(let command)?:
                return try await run(command, sortsOnServer: plan.sortsOnServer, mailbox, mapsAllUIDs)
            case .fails?: throw Self.cannotSearchNonASCII(error)
            case nil: throw error
            }
        }
    }

    private func run(
        _ command: Command, sortsOnServer: Bool, _ mailbox: MailboxExpectation?, _ mapsAllUIDs: Bool
    ) async throws(IMAPError) -> SearchResult {
        let result = try await run(command, claim: .search, expecting: mailbox, mapsAllUIDs: mapsAllUIDs)
        // RFC 5267 ESORT servers may answer with ESEARCH even to a plain SORT.
        if sortsOnServer {
            let uids = result.untagged.answeredUIDs
            return SearchResult(uids: uids, count: uids.count)
        }
        // RFC 4731: ESEARCH with or without the correlator, and with no return data at all
        // when nothing matched.
        let uids = result.untagged.answeredUIDs.sorted(by: >)
        var count: Int?
        for case .extendedSearch(let answer) in result.untagged {
            if let reported = answer.count { count = Int(reported) }
        }
        return SearchResult(uids: uids, count: count ?? uids.count)
    }

    static func cannotSearchNonASCII(_ error: IMAPError) -> IMAPError {
        IMAPError(
            .unsupported,
            "the server cannot search non-ASCII text (it refused the UTF-8 charset); search with ASCII words instead",
            serverText: error.serverText, responseCode: error.responseCode)
    }

    // MARK: - Store

    /// UID STORE: adds, removes or replaces flags; with `unchangedSince` (CONDSTORE) the server
    /// refuses messages changed since then, and `StoreResult.refused` names them.
    @discardableResult
    public func store(
        _ uids: SequenceSet, _ operation: StoreFlags.Operation, _ flags: [Flag], silent: Bool = false,
        unchangedSince: UInt64? = nil, in mailbox: MailboxExpectation? = nil
    ) async throws(IMAPError) -> StoreResult {
        var refused: [UInt32] = []
        var newFlags: [UInt32: [Flag]] = [:]
        var modificationSequences: [UInt32: UInt64] = [:]
        let commands = Command.uidStore(
            uids, unchangedSince: unchangedSince, StoreFlags(operation, silent: silent, flags: flags)
        )
        .split(maximumLineLength: configuration.maximumCommandLength)
        for command in commands {
            guard case .uidStore(let set, _, _) = command else { continue }
            let result = try await run(command, claim: .store(set), expecting: mailbox)
            for case .fetch(let fetch) in result.untagged {
                guard let uid = fetch.uid else { continue }
                if let flags = fetch.flags { newFlags[uid] = flags }
                if let modseq = fetch.modificationSequence { modificationSequences[uid] = modseq }
            }
            if case .modified(let set)? = result.tagged.text.code { refused += set.numbers ?? [] }
        }
        return StoreResult(
            refused: refused.isEmpty ? nil : SequenceSet(numbers: refused), flags: newFlags,
            modificationSequences: modificationSequences)
    }

    // MARK: - Session

    /// NOOP: lets the server report changes (they go to `events()` or are buffered for it).
    public func noop() async throws(IMAPError) { try await run(.noop) }

    /// Sends any command and returns the tagged response with every untagged response it claims
    /// by `claims`. NO and BAD become errors.
    @discardableResult
    public func execute(
        _ command: Command, claims: @escaping @Sendable (UntaggedResponse) -> Bool = { _ in false }
    ) async throws(IMAPError) -> CommandOutcome {
        try await run(command, claim: .custom(claims))
    }

    /// LOGOUT, then closes the connection. The answer is waited for at most
    /// ``IMAPConfiguration/Timeouts-swift.struct/logoutAnswer`` (3 seconds by default).
    ///
    /// With ``IMAPConfiguration/waitsForLogoutAnswer`` off and nothing else in flight, LOGOUT is
    /// written and the connection closed without waiting for the answer (one round trip less
    /// for a one-shot tool; every earlier command has been answered, so nothing is left undone).
    public func logout() async {
        if !configuration.waitsForLogoutAnswer && machine.isQuiet {
            send(.logout)
            await writesDone()
            close()
            return
        }
        // The server may close the connection before its tagged OK arrives; either way we close.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await self.run(.logout) }
            group.addTask { [limit = configuration.timeouts.logoutAnswer] in try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
        close()
    }
}

/// Answers the first SASL challenge with the credentials and any later one with an empty line.
private final class AnswerOnce: Sendable {
    private let answer: [UInt8]
    private let used = Mutex(false)

    init(_ answer: [UInt8]) { self.answer = answer }

    func next() -> [UInt8] {
        let first = used.withLock { used -> Bool in
            defer { used = true }
            return !used
        }
        return first ? answer : Array("\r\n".utf8)
    }
}

extension IMAPError {
    /// The server refused the charset: `NO [BADCHARSET]`, or a `BAD` naming the charset (Cyrus
    /// answers an unknown charset with BAD).
    var isCharsetRefusal: Bool {
        if case .badCharset? = responseCode { return true }
        return code == .bad && (serverText?.lowercased().contains("charset") ?? false)
    }
}
