import FoundationEssentials
import IMAPClient
import IMAPCore

/// The second connection an ``IMAPMailService`` searches other mailboxes on (`in:Archive`,
/// `in:all`): connected on first use, each mailbox EXAMINEd (read-only, so searching never
/// changes it), one call at a time. A broken connection is replaced on the next call. Flag
/// changes of those mailboxes' messages SELECT the mailbox instead (``changing(_:_:)``).
actor OtherMailboxes {
    private let configuration: IMAPConfiguration
    private let credentials: Credentials
    private var session: IMAPSession?
    /// The MODSEQs of the messages fetched lately, by mailbox and UIDVALIDITY, for a flag
    /// change's UNCHANGEDSINCE.
    private var modificationSequences: [MailboxIdentity: ModificationSequenceCache] = [:]
    /// One call at a time: the session's selected mailbox belongs to the call that selected it.
    private let turns = TakingTurns()

    init(configuration: IMAPConfiguration, credentials: Credentials) {
        self.configuration = configuration
        self.credentials = credentials
    }

    /// The UIDs matching `keys` in each of `mailboxes`, newest first within a mailbox; across
    /// mailboxes by INTERNALDATE, newest first.
    func search(_ keys: [SearchKey], in mailboxes: [String]) async throws(MailServiceError) -> MessageList {
        try await turns.run { () throws(MailServiceError) -> MessageList in
            var found: [(id: Email.ID, received: Int)] = []
            var total = 0
            for mailbox in mailboxes {
                let session = try await self.liveSession()
                do throws(IMAPError) {
                    let selected = try await session.select(MailboxName(wire: mailbox), readOnly: true)
                    let validity = selected.uidValidity ?? 0
                    let result = try await session.search(
                        keys, in: MailboxExpectation(name: selected.name, uidValidity: selected.uidValidity))
                    total += result.count
                    if mailboxes.count == 1 {
                        found += result.uids.map { (Email.ID(mailbox: mailbox, uidValidity: validity, uid: $0), 0) }
                        continue
                    }
                    guard !result.uids.isEmpty else { continue }
                    for try await message in session.fetch(
                        SequenceSet(numbers: result.uids), items: [.uid, .internalDate],
                        in: MailboxExpectation(name: selected.name, uidValidity: selected.uidValidity))
                    {
                        guard let uid = message.uid else { continue }
                        found.append(
                            (
                                Email.ID(mailbox: mailbox, uidValidity: validity, uid: uid),
                                message.internalDate?.secondsSinceEpoch ?? 0
                            ))
                    }
                } catch  where error.code == .no {
                    throw MailServiceError(
                        .refused,
                        "cannot search \(mailbox): \(error.serverText ?? error.message) (check the name with in:)")
                } catch {
                    self.drop(after: error)
                    throw MailServiceError(error)
                }
            }
            if mailboxes.count > 1 {
                found.sort { $0.received != $1.received ? $0.received > $1.received : $0.id.uid > $1.id.uid }
            }
            return MessageList(ids: found.map(\.id), total: total)
        }
    }

    /// `in:all`: every selectable mailbox the server lists.
    func searchEverywhere(_ keys: [SearchKey]) async throws(MailServiceError) -> MessageList {
        let names = try await turns.run { () throws(MailServiceError) -> [String] in
            let session = try await self.liveSession()
            do throws(IMAPError) {
                return try await session.list().filter { item in
                    !item.attributes.contains { ["\\noselect", "\\nonexistent"].contains($0.lowercased()) }
                }
                .map(\.name.description)
            } catch {
                self.drop(after: error)
                throw MailServiceError(error)
            }
        }
        return try await search(keys, in: names)
    }

    /// The summaries of `ids` (all outside the open mailbox), in no particular order.
    func emails(_ ids: [Email.ID], pinFlag: Flag) async throws(MailServiceError) -> [Email] {
        try await turns.run { () throws(MailServiceError) -> [Email] in
            var emails: [Email] = []
            let byMailbox = Dictionary(grouping: ids, by: \.mailbox)
            for (mailbox, ids) in byMailbox.sorted(by: { $0.key < $1.key }) {
                let session = try await self.liveSession()
                do {
                    let selected = try await session.select(MailboxName(wire: mailbox), readOnly: true)
                    let validity = selected.uidValidity ?? 0
                    if ids.contains(where: { $0.uidValidity != validity }) {
                        throw MailServiceError(
                            .mailboxChanged,
                            "\(mailbox) was re-created on the server since it was searched; search again")
                    }
                    let identity = MailboxIdentity(name: mailbox, uidValidity: validity)
                    for try await summary in session.fetchSummaries(SequenceSet(numbers: ids.map(\.uid))) {
                        if let modseq = summary.modificationSequence {
                            self.modificationSequences[identity, default: ModificationSequenceCache()][summary.uid] =
                                modseq
                        }
                        emails.append(IMAPMailService.email(summary, mailbox: mailbox, uidValidity: validity, pinFlag))
                    }
                } catch let error as MailServiceError {
                    throw error
                } catch let error as IMAPError {
                    self.drop(after: error)
                    throw MailServiceError(error)
                } catch {
                    throw MailServiceError(.server, "fetching from \(mailbox) failed: \(error)")
                }
            }
            return emails
        }
    }

    /// UID FETCH of `items` for `uids` of `mailbox` (EXAMINEd), collected; throws
    /// `.mailboxChanged` when the mailbox's UIDVALIDITY is no longer `uidValidity`.
    func fetch(
        _ uids: SequenceSet, items: [FetchAttribute], in mailbox: String, uidValidity: UInt32
    ) async throws(MailServiceError) -> [FetchResponse] {
        try await turns.run { () throws(MailServiceError) -> [FetchResponse] in
            let session = try await self.liveSession()
            let selected: SelectedMailbox
            do throws(IMAPError) {
                selected = try await session.select(MailboxName(wire: mailbox), readOnly: true)
            } catch {
                self.drop(after: error)
                throw MailServiceError(error)
            }
            guard selected.uidValidity ?? 0 == uidValidity else {
                throw MailServiceError(
                    .mailboxChanged, "\(mailbox) was re-created on the server since it was searched; search again")
            }
            let expectation = MailboxExpectation(name: selected.name, uidValidity: selected.uidValidity)
            var messages: [FetchResponse] = []
            do throws(IMAPError) {
                for try await message in session.fetch(uids, items: items, in: expectation) { messages.append(message) }
            } catch {
                self.drop(after: error)
                throw MailServiceError(error)
            }
            return messages
        }
    }

    /// Runs `body` (a flag change) with `mailbox` SELECTed, not EXAMINEd, so its flags can
    /// change: `body` gets the route to the mailbox as the server opened it (its UIDVALIDITY,
    /// whether it is read-only; a refusal when the server would not open it) and the MODSEQs
    /// seen of its messages; the MODSEQs the change learned are kept.
    func changing(
        _ mailbox: String,
        _ body: @Sendable (FlagStoreRoute, ModificationSequenceCache) async throws(MailServiceError) -> FlagStoreOutcome
    ) async throws(MailServiceError) -> FlagStoreOutcome {
        try await turns.run { () throws(MailServiceError) -> FlagStoreOutcome in
            let session = try await self.liveSession()
            let selected: SelectedMailbox
            do throws(IMAPError) {
                selected = try await session.select(MailboxName(wire: mailbox))
            } catch  where error.code == .no {
                let refusal = "cannot open \(mailbox) to change its messages: \(error.serverText ?? error.message)"
                let route = FlagStoreRoute(
                    mailbox: mailbox, uidValidity: 0, isReadOnly: true, refusal: refusal,
                    store: { (_, _, _, _) throws(IMAPError) in throw IMAPError(.no, refusal) },
                    fetch: { (_, _) throws(IMAPError) in throw IMAPError(.no, refusal) })
                return try await body(route, ModificationSequenceCache())
            } catch {
                self.drop(after: error)
                throw MailServiceError(error)
            }
            let identity = MailboxIdentity(name: mailbox, uidValidity: selected.uidValidity ?? 0)
            let expectation = MailboxExpectation(name: selected.name, uidValidity: selected.uidValidity)
            let route = FlagStoreRoute(
                mailbox: mailbox, uidValidity: identity.uidValidity, isReadOnly: selected.isReadOnly,
                store: { (uids, operation, flags, modseq) throws(IMAPError) in
                    try await session.store(
                        uids, operation, flags, silent: false, unchangedSince: modseq, in: expectation)
                },
                fetch: { (uids, items) throws(IMAPError) in
                    var messages: [FetchResponse] = []
                    for try await message in session.fetch(uids, items: items, in: expectation) {
                        messages.append(message)
                    }
                    return messages
                })
            let outcome: FlagStoreOutcome
            do throws(MailServiceError) {
                outcome = try await body(route, self.modificationSequences[identity] ?? ModificationSequenceCache())
            } catch {
                if await session.failure != nil { self.session = nil }
                throw error
            }
            for (uid, modseq) in outcome.learned {
                self.modificationSequences[identity, default: ModificationSequenceCache()][uid] = modseq
            }
            return outcome
        }
    }

    func close() async {
        await session?.logout()
        session = nil
    }

    private func liveSession() async throws(MailServiceError) -> IMAPSession {
        if let session, await session.failure == nil { return session }
        do {
            let session = try await IMAPSession.connect(configuration)
            try await session.login(credentials)
            self.session = session
            return session
        } catch {
            throw MailServiceError(error)
        }
    }

    private func drop(after error: IMAPError) {
        guard [.connection, .timeout, .bye, .refused, .protocolViolation, .notIMAP, .tls].contains(error.code) else {
            return
        }
        session = nil
    }
}

/// A mailbox as it is now: re-created, the same name is another mailbox.
private struct MailboxIdentity: Hashable {
    var name: String
    var uidValidity: UInt32
}
