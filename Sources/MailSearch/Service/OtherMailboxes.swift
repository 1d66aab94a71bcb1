import FoundationEssentials
import IMAPClient
import IMAPCore

/// The second connection an ``IMAPMailService`` searches other mailboxes on (`in:Archive`,
/// `in:all`): connected on first use, each mailbox EXAMINEd (read-only, so searching never
/// changes it), one call at a time. A broken connection is replaced on the next call.
actor OtherMailboxes {
    private let configuration: IMAPConfiguration
    private let credentials: Credentials
    private var session: IMAPSession?
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
                    for try await summary in session.fetchSummaries(SequenceSet(numbers: ids.map(\.uid))) {
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
