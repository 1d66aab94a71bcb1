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
        guard !isAuthenticated else { return }
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
        isAuthenticated = true
        if case .capability(let list)? = tagged.text.code {
            setCapabilities(Set(list))
        } else {
            try await refreshCapabilities()
        }
        if capabilities.contains(.id) {
            _ = try? await run(.id(configuration.clientIdentity), claims: { if case .id = $0 { true } else { false } })
        }
        let wanted = [Capability.condstore, .utf8Accept].filter { capabilities.contains($0) }
        if capabilities.contains(.enable) && !wanted.isEmpty {
            _ = try? await run(.enable(wanted), claims: { if case .enabled = $0 { true } else { false } })
        }
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
                onContinuation: { _ throws(IMAPError) in Array("\r\n".utf8) }
            ).tagged
        }
        let answer = CommandEncoder.encodeAuthenticationResponse(token)
        let state = AnswerOnce(answer)
        return try await run(
            .authenticate(mechanism: mechanism), onContinuation: { _ throws(IMAPError) in state.next() }
        ).tagged
    }

    /// CAPABILITY.
    public func refreshCapabilities() async throws(IMAPError) {
        let result = try await run(.capability, claims: { if case .capability = $0 { true } else { false } })
        for case .capability(let list) in result.untagged { setCapabilities(Set(list)) }
    }

    // MARK: - Mailboxes

    /// LIST: the mailboxes matching `pattern` (default: all).
    public func list(reference: MailboxName = "", pattern: String = "*") async throws(IMAPError) -> [MailboxListItem] {
        let result = try await run(
            .list(reference: reference, patterns: [ByteString(pattern)]),
            claims: { if case .list = $0 { true } else { false } })
        return result.untagged.compactMap { if case .list(let item) = $0 { item } else { nil } }
    }

    /// STATUS of a mailbox that need not be selected.
    public func status(
        _ mailbox: MailboxName,
        _ attributes: [StatusAttribute] = [.messages, .unseen, .uidNext, .uidValidity]
    ) async throws(IMAPError) -> MailboxStatus {
        var wanted = attributes
        if capabilities.contains(.condstore) && !wanted.contains(.highestModSeq) { wanted.append(.highestModSeq) }
        let result = try await run(
            .status(mailbox, wanted),
            claims: { response in
                if case .mailboxStatus(let name, _) = response { return name == mailbox }
                return false
            })
        for case .mailboxStatus(_, let status) in result.untagged { return status }
        throw IMAPError(.protocolViolation, "the server answered STATUS without a STATUS response")
    }

    /// SELECT (or EXAMINE when `readOnly`), with CONDSTORE when the server has it.
    @discardableResult
    public func select(_ mailbox: MailboxName, readOnly: Bool = false) async throws(IMAPError) -> SelectedMailbox {
        let parameters: [SelectParameter] = capabilities.contains(.condstore) ? [.condStore] : []
        beginSelecting(SelectedMailbox(name: mailbox, isReadOnly: readOnly))
        do {
            let result = try await run(
                readOnly ? .examine(mailbox, parameters: parameters) : .select(mailbox, parameters: parameters),
                claims: { response in
                    switch response {
                    case .flags, .exists, .recent, .condition(.ok, _): return true
                    default: return false
                    }
                })
            if case .readOnly? = result.tagged.text.code { markReadOnly() }
        } catch {
            beginSelecting(nil)
            throw error
        }
        guard let selected = selectedMailbox else {
            throw IMAPError(.cancelled, "the session ended while selecting \(mailbox)")
        }
        return selected
    }

    // MARK: - Search

    /// Searches the selected mailbox; returns UIDs, newest first.
    ///
    /// SORT `(REVERSE ARRIVAL)` when the server has SORT, ESEARCH `RETURN (COUNT ALL)` when it has
    /// ESEARCH, plain UID SEARCH otherwise. Non-ASCII text goes as `CHARSET UTF-8` with literals,
    /// or quoted UTF-8 under IMAP4rev2/UTF8=ACCEPT. On `NO [BADCHARSET]` an ASCII query is retried
    /// without the charset; a non-ASCII one fails with a clear error.
    public func search(_ keys: [SearchKey]) async throws(IMAPError) -> [UInt32] {
        let keys = keys.isEmpty ? [SearchKey.all] : keys
        let isASCII = keys.allSatisfy { $0.isASCII }
        let utf8Mode = capabilities.contains(.imap4rev2) || enabled.contains(.utf8Accept)
        if capabilities.contains(.sort) {
            do {
                return try await sortNewestFirst(keys, charset: "UTF-8")
            } catch  where error.responseCode.isBadCharset {
                guard isASCII else { throw Self.cannotSearchNonASCII(error) }
                return try await sortNewestFirst(keys, charset: "US-ASCII")
            }
        }
        let charset = isASCII || utf8Mode ? nil : "UTF-8"
        do {
            return try await searchNewestFirst(keys, charset: charset)
        } catch  where error.responseCode.isBadCharset && charset != nil {
            throw Self.cannotSearchNonASCII(error)
        } catch  where error.responseCode.isBadCharset && isASCII {
            return try await searchNewestFirst(keys, charset: nil)
        }
    }

    private func sortNewestFirst(_ keys: [SearchKey], charset: String) async throws(IMAPError) -> [UInt32] {
        let result = try await run(
            .uidSort(criteria: [SortCriterion(.arrival, reversed: true)], charset: charset, keys: keys),
            claims: { if case .sort = $0 { true } else { false } })
        var uids: [UInt32] = []
        for case .sort(let numbers, _) in result.untagged { uids += numbers }
        return uids
    }

    private func searchNewestFirst(_ keys: [SearchKey], charset: String?) async throws(IMAPError) -> [UInt32] {
        if capabilities.contains(.esearch) {
            let result = try await run(
                .uidSearch(charset: charset, returnOptions: [.count, .all], keys: keys),
                claims: { response in
                    if case .extendedSearch = response { return true }
                    if case .search = response { return true }
                    return false
                })
            var uids: [UInt32] = []
            for response in result.untagged {
                if case .extendedSearch(let answer) = response { uids += answer.all?.numbers ?? [] }
                if case .search(let numbers, _) = response { uids += numbers }
            }
            return uids.sorted(by: >)
        }
        let result = try await run(
            .uidSearch(charset: charset, keys: keys), claims: { if case .search = $0 { true } else { false } })
        var uids: [UInt32] = []
        for case .search(let numbers, _) in result.untagged { uids += numbers }
        return uids.sorted(by: >)
    }

    static func cannotSearchNonASCII(_ error: IMAPError) -> IMAPError {
        IMAPError(
            .unsupported,
            "the server cannot search non-ASCII text (it refused the UTF-8 charset); search with ASCII words instead",
            serverText: error.serverText, responseCode: error.responseCode)
    }

    // MARK: - Fetch

    /// UID FETCH of `items` for `uids`, as a stream of parsed messages. A long UID set is split
    /// into commands of bounded length; BODY[...] items are always sent as BODY.PEEK, so fetching
    /// never marks mail read. When the consumer stops, no further commands are sent.
    public nonisolated func fetch(
        _ uids: SequenceSet, items: [FetchAttribute], changedSince: UInt64? = nil
    ) -> MessageStream<FetchResponse> {
        let stream = MessageStream<FetchResponse>()
        Task { await self.runFetch(uids, items: items, changedSince: changedSince, into: stream) }
        return stream
    }

    private func runFetch(
        _ uids: SequenceSet, items: [FetchAttribute], changedSince: UInt64?, into stream: MessageStream<FetchResponse>
    ) async {
        var attributes = items.map(Self.peeking)
        if !attributes.contains(.uid) { attributes.insert(.uid, at: 0) }
        let modifiers: [FetchModifier] = changedSince.map { [.changedSince($0)] } ?? []
        let commands = Command.uidFetch(uids, attributes, modifiers: modifiers).split(
            maximumLineLength: configuration.maximumCommandLength)
        let wanted = Set(attributes.compactMap(AttributeKind.init))
        do {
            for command in commands {
                guard !stream.isConsumerGone else { break }
                guard case .uidFetch(let set, _, _) = command else { continue }
                try await run(
                    command,
                    claims: { response in
                        // Ours: a UID in our set and at least one item we asked for (an
                        // unsolicited FLAGS change of another message is not ours).
                        guard case .fetch(let fetch) = response, let uid = fetch.uid, set.contains(uid) else {
                            return false
                        }
                        return wanted.isEmpty
                            || fetch.attributes.contains { AttributeKind($0).map(wanted.contains) ?? false }
                    }, fetchSink: stream)
            }
            stream.finish()
        } catch {
            stream.finish(throwing: error)
        }
    }

    static func peeking(_ attribute: FetchAttribute) -> FetchAttribute {
        switch attribute {
        case .bodySection(_, let section, let partial):
            return .bodySection(peek: true, section: section, partial: partial)
        case .binary(_, let part, let partial): return .binary(peek: true, part: part, partial: partial)
        case .rfc822: return .bodySection(peek: true, section: .complete, partial: nil)
        case .rfc822Text: return .bodySection(peek: true, section: .text, partial: nil)
        default: return attribute
        }
    }

    // MARK: - Store

    /// UID STORE: adds, removes or replaces flags; with `unchangedSince` (CONDSTORE) the server
    /// refuses messages changed since then, and `StoreResult.refused` names them.
    @discardableResult
    public func store(
        _ uids: SequenceSet, _ operation: StoreFlags.Operation, _ flags: [Flag], silent: Bool = false,
        unchangedSince: UInt64? = nil
    ) async throws(IMAPError) -> StoreResult {
        var refused: [UInt32] = []
        var newFlags: [UInt32: [Flag]] = [:]
        let commands = Command.uidStore(
            uids, unchangedSince: unchangedSince, StoreFlags(operation, silent: silent, flags: flags)
        )
        .split(maximumLineLength: configuration.maximumCommandLength)
        for command in commands {
            guard case .uidStore(let set, _, _) = command else { continue }
            let result = try await run(
                command,
                claims: { response in
                    guard case .fetch(let fetch) = response, let uid = fetch.uid else { return false }
                    return set.contains(uid)
                })
            for case .fetch(let fetch) in result.untagged {
                if let uid = fetch.uid, let flags = fetch.flags { newFlags[uid] = flags }
            }
            if case .modified(let set)? = result.tagged.text.code { refused += set.numbers ?? [] }
        }
        return StoreResult(refused: refused.isEmpty ? nil : SequenceSet(numbers: refused), flags: newFlags)
    }

    // MARK: - Session

    /// NOOP: lets the server report changes (they go to `events()` or are buffered for it).
    public func noop() async throws(IMAPError) { try await run(.noop) }

    /// Sends any command and returns the tagged response with every untagged response it claims
    /// by `claims`. NO and BAD become errors.
    @discardableResult
    public func execute(
        _ command: Command, claims: @escaping @Sendable (UntaggedResponse) -> Bool = { _ in false }
    ) async throws(IMAPError) -> (tagged: TaggedResponse, untagged: [UntaggedResponse]) {
        try await run(command, claims: claims)
    }

    /// LOGOUT, then closes the connection.
    public func logout() async {
        _ = try? await run(.logout)
        close()
    }

    /// Closes the connection at once; pending commands fail with `.cancelled`.
    public func close() {
        fail(with: IMAPError(.cancelled, "the session was closed"))
        connection.close()
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

extension Optional where Wrapped == ResponseCode {
    var isBadCharset: Bool {
        if case .badCharset? = self { return true }
        return false
    }
}

extension SearchKey {
    /// Whether every string in the key is 7-bit.
    var isASCII: Bool {
        switch self {
        case .bcc(let text), .body(let text), .cc(let text), .from(let text), .subject(let text), .text(let text),
            .to(let text):
            return text.bytes.allSatisfy { $0 < 0x80 }
        case .header(let field, let value): return (field.bytes + value.bytes).allSatisfy { $0 < 0x80 }
        case .not(let key): return key.isASCII
        case .or(let left, let right): return left.isASCII && right.isASCII
        case .and(let keys): return keys.allSatisfy { $0.isASCII }
        case .gmailRaw(let text): return text.bytes.allSatisfy { $0 < 0x80 }
        default: return true
        }
    }
}

/// The kind of a FETCH item, to tell which command a FETCH response answers.
enum AttributeKind: Hashable {
    case flags, envelope, internalDate, size, structure, section, binary, preview, modificationSequence, other

    init?(_ attribute: FetchAttribute) {
        switch attribute {
        case .uid: return nil
        case .flags: self = .flags
        case .envelope: self = .envelope
        case .internalDate: self = .internalDate
        case .rfc822Size: self = .size
        case .bodyStructure: self = .structure
        case .bodySection, .rfc822, .rfc822Header, .rfc822Text: self = .section
        case .binary, .binarySize: self = .binary
        case .preview: self = .preview
        case .modificationSequence: self = .modificationSequence
        case .gmailMessageID, .gmailThreadID, .gmailLabels: self = .other
        }
    }

    init?(_ attribute: MessageAttribute) {
        switch attribute {
        case .uid: return nil
        case .flags: self = .flags
        case .envelope: self = .envelope
        case .internalDate: self = .internalDate
        case .rfc822Size: self = .size
        case .body, .bodyStructure: self = .structure
        case .bodySection, .rfc822, .rfc822Header, .rfc822Text: self = .section
        case .binary, .binarySize: self = .binary
        case .preview: self = .preview
        case .modificationSequence: self = .modificationSequence
        case .gmailMessageID, .gmailThreadID, .gmailLabels, .unknown: self = .other
        }
    }
}
