import FoundationEssentials
import IMAPClient

/// The local index, fed over a session of its own (so the open mailbox stays selected on the
/// service's connection, and a long first sync never holds up its commands).
extension IMAPMailService {
    /// Brings `mailboxes` (names as on the wire) of `index` in step with the server, one after
    /// the other; `progress` is told the mailbox, the messages added so far and how many come.
    public func syncIndex(
        _ index: MessageIndex, mailboxes names: [String],
        progress: @escaping @Sendable (String, Int, Int) -> Void = { _, _, _ in }
    ) async throws(MailServiceError) -> [IndexSync.Summary] {
        let session: IMAPSession
        do {
            session = try await IMAPSession.connect(configuration)
            try await session.login(credentials)
        } catch {
            throw MailServiceError(error)
        }
        let sync = IndexSync(index: index) { Int(Date.now.timeIntervalSince1970) }
        var summaries: [IndexSync.Summary] = []
        do {
            for name in names {
                summaries.append(try await sync.sync(name, over: session) { progress(name, $0, $1) })
            }
        } catch let error as IMAPError {
            await session.logout()
            throw MailServiceError(error)
        } catch let error as StoreError {
            await session.logout()
            throw MailServiceError(.index, error.message)
        } catch {
            await session.logout()
            throw MailServiceError(.cancelled, "the sync was cancelled")
        }
        await session.logout()
        return summaries
    }

    /// Lets ``localMatches(_:limit:)`` answer from `index` (nil: no local answers). The index
    /// is read as it is: bring it in step first (``syncIndex(_:mailboxes:progress:)``).
    public func answerLocally(from index: MessageIndex?) {
        localIndex = index
    }

    /// The newest `limit` matches of `query` in the open mailbox's index, as the server's
    /// search would find them; nil without an index of this mailbox under its UIDVALIDITY with
    /// a finished sync, for a query of another mailbox, and for one only the server can decide.
    public func localMatches(_ query: Query, limit: Int) async -> [Email]? {
        guard let index = localIndex, let described else { return nil }
        return await index.newestEmails(
            query, context: context(), in: mailboxName, uidValidity: described.uidValidity, limit: limit,
            now: Int(now().timeIntervalSince1970), budget: MessageIndex.typeAheadBudget)
    }
}
