import FoundationEssentials
import IMAPClient

/// The local index, fed over a session of its own (so the open mailbox stays selected on the
/// service's connection, and a long first sync never holds up its commands).
extension IMAPMailService {
    /// Brings `mailboxes` (names as on the wire) of `index` in step with the server, one after
    /// the other; `progress` is told the mailbox, the messages added so far and how many come.
    ///
    /// The open mailbox (once ``open()`` has selected it) is caught up on the service's own
    /// connection, from what its SELECT reported: when nothing changed, no command is sent
    /// (``IndexSync/sync(selected:over:progress:)``). The others are synced over a session of the
    /// index's own, opened only for them, so the open mailbox stays selected.
    public func syncIndex(
        _ index: MessageIndex, mailboxes names: [String],
        progress: @escaping @Sendable (String, Int, Int) -> Void = { _, _, _ in }
    ) async throws(MailServiceError) -> [IndexSync.Summary] {
        let now = now
        let sync = IndexSync(index: index) { Int(now().timeIntervalSince1970) }
        let own = await ownSession(for: names)
        var other: IMAPSession?
        var summaries: [IndexSync.Summary] = []
        do {
            for name in names {
                if let own, name == mailboxName {
                    summaries.append(try await sync.sync(selected: name, over: own) { progress(name, $0, $1) })
                    continue
                }
                let session: IMAPSession
                if let other {
                    session = other
                } else {
                    session = try await Self.indexSession(configuration, credentials)
                    other = session
                }
                summaries.append(try await sync.sync(name, over: session) { progress(name, $0, $1) })
            }
        } catch let error as IMAPError {
            await other?.logout()
            throw MailServiceError(error)
        } catch let error as StoreError {
            await other?.logout()
            throw MailServiceError(.index, error.message)
        } catch {
            await other?.logout()
            throw MailServiceError(.cancelled, "the sync was cancelled")
        }
        await other?.logout()
        return summaries
    }

    /// The service's own session when `names` include the open mailbox and the session has it
    /// selected; nil otherwise (not opened yet, or between reconnects).
    private func ownSession(for names: [String]) async -> IMAPSession? {
        guard names.contains(mailboxName), selected != nil,
            let session = await connection.usableSession,
            await session.selectedMailbox?.name == MailboxName(wire: mailboxName)
        else { return nil }
        return session
    }

    /// Lets ``localMatches(_:limit:)`` answer from `index` (nil: no local answers), and keeps
    /// it in step with the open mailbox from now on: it is caught up at once, and again after
    /// each change the service learns of (new mail, expunges and flag changes told while someone
    /// watches ``events()``, the service's own flag changes, a reconnect), over a session of its
    /// own. Bring a new index in step first (``syncIndex(_:mailboxes:progress:)``): until its
    /// first sync is done it answers nothing. ``indexUpdates()`` tells each catch-up.
    ///
    /// Each answer gets `budget` (type-ahead's 10 ms unless given; nil: no limit): a query that
    /// takes longer is given up, and answered nil.
    public func answerLocally(
        from index: MessageIndex?, budget: Duration? = MessageIndex.typeAheadBudget
    ) async {
        localBudget = budget
        let previous = follower
        follower = index.map(makeFollower)
        await previous?.stop()
        await follower?.changed()
    }

    /// Each catch-up of the index given to ``answerLocally(from:budget:)``, from now on.
    public nonisolated func indexUpdates() -> AsyncStream<IndexUpdate> { indexCatchUps.listen() }

    func makeFollower(_ index: MessageIndex) -> IndexFollower {
        let (configuration, credentials, now) = (configuration, credentials, now)
        return IndexFollower(
            index: index, mailbox: mailboxName, updates: indexCatchUps,
            clock: { Int(now().timeIntervalSince1970) },
            connect: { try await Self.indexSession(configuration, credentials) })
    }

    /// A session of the index's own, logged in (one that connected but could not log in is
    /// logged out): syncs and catch-ups never hold up the open mailbox's connection.
    static func indexSession(
        _ configuration: IMAPConfiguration, _ credentials: Credentials
    ) async throws(IMAPError) -> IMAPSession {
        let session = try await IMAPSession.connect(configuration)
        do { try await session.login(credentials) } catch {
            await session.logout()
            throw error
        }
        return session
    }

    /// The open mailbox changed: the followed index catches up.
    func indexChanged() async {
        await follower?.changed()
    }

    /// The newest `limit` matches of `query` in the open mailbox's index, as the server's
    /// search would find them; nil without an index of this mailbox under its UIDVALIDITY with
    /// a finished sync, for a query of another mailbox, and for one only the server can decide.
    public func localMatches(_ query: Query, limit: Int) async -> [Email]? {
        guard let index = follower?.index, let described else { return nil }
        return await index.newestEmails(
            query, context: context(), in: mailboxName, uidValidity: described.uidValidity, limit: limit,
            now: Int(now().timeIntervalSince1970), budget: localBudget)
    }
}
