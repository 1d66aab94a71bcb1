import FoundationEssentials
import IMAPClient
import IMAPCore

extension IMAPMailService {
    // MARK: - Events

    public nonisolated func events() -> AsyncStream<MailServiceEvent> {
        let stream = watchers.listen()
        // Listening (IDLE) costs round trips; it starts only once someone listens.
        Task { [weak self] in await self?.startPumpIfWatched() }
        return stream
    }

    public func close() async {
        // Everything is reset before the first await: a call that ends while the connections
        // log out finds the new, unopened state (it used to start listening on the closing
        // connection, and the service then never listened again).
        pump?.cancel()
        pump = nil
        let closing = (connection, others, lane)
        lane = nil
        // The index is still answered from, and followed again (on a new session) once the
        // mailbox is open again and changes.
        let following = follower
        follower = following.map { makeFollower($0.index) }
        // A later call opens the mailbox again on a new connection.
        connection = MailboxConnection(
            configuration: configuration, credentials: credentials, mailbox: MailboxName(wire: mailboxName),
            policy: reconnectPolicy)
        others = OtherMailboxes(configuration: configuration, credentials: credentials)
        described = nil
        selected = nil
        listed = false
        modificationSequences = ModificationSequenceCache()
        watchers.finish()
        let writing = caching
        await closing.0.close()
        await closing.1.close()
        await closing.2?.close()
        await following?.stop()
        await writing?.value
    }

    /// `30 s`, `0.5 s`.
    static func spoken(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        let tenths = (Double(seconds) + Double(attoseconds) / 1e18) * 10
        return "\(Double(tenths.rounded()) / 10) s"
    }

    func broadcast(_ event: MailServiceEvent) {
        watchers.send(event)
    }

    /// Starts listening for changes when someone watches and the mailbox has been listed or
    /// searched (whose answer gives the session its sequence-to-UID map, so listening needs no
    /// UID SEARCH ALL of its own). A one-shot caller that never asks for events pays no IDLE.
    func startPumpIfWatched() async {
        guard listed, described != nil, watchers.isHeard else { return }
        await startPump()
    }

    func startPump() async {
        guard pump == nil else { return }
        let source = connection
        let changes = await source.changes()
        // Another call may have started listening meanwhile, or close() replaced the connection.
        guard pump == nil, source === connection else { return }
        pump = Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                await self.handle(change)
            }
        }
    }

    func handle(_ change: MailboxConnection.Change) async {
        guard let description = described else { return }
        if Self.changesMessages(change) { await indexChanged() }
        switch change {
        case .mailbox(let event):
            switch event {
            case .messageCount: return
            case .arrived(let uids):
                // What a reconnect catches up on starts past what was announced here.
                if let highest = uids.numbers?.max(), let next = selected?.uidNext, highest >= next {
                    selected?.uidNext = highest + 1
                }
                let summaries: [MessageSummary]
                do {
                    summaries = try await connection.summaries(uids)
                } catch {
                    broadcast(.reloadNeeded(reason: "new mail arrived but could not be fetched (\(error.message))"))
                    return
                }
                let emails = summaries.map {
                    Self.email($0, mailbox: description.name, uidValidity: description.uidValidity, description.pinFlag)
                }
                for summary in summaries {
                    if let modseq = summary.modificationSequence { modificationSequences[summary.uid] = modseq }
                }
                if !emails.isEmpty { broadcast(.arrived(emails.sorted { $0.uid > $1.uid })) }
            case .expunged(let uids):
                let numbers = uids.numbers ?? []
                for uid in numbers { modificationSequences[uid] = nil }
                if !numbers.isEmpty { broadcast(.expunged(numbers.map { id($0, description) })) }
            case .flagsChanged(let uid, let flags, let modseq):
                if let modseq { modificationSequences[uid] = modseq }
                broadcast(.flagsChanged(id(uid, description), flags.filter { $0 != .recent }))
            case .uidValidityChanged(_, _, let new):
                // A reconnect that found the new UIDVALIDITY has said so already (its report
                // arrives first, and the description holds the new value): one reload a change.
                guard description.uidValidity != new else { return }
                // Later changes belong to the new mailbox: they are still told, with its UIDVALIDITY
                // (a watcher that stopped hearing them after the reload would miss them all).
                modificationSequences = ModificationSequenceCache()
                selected?.uidValidity = new
                described?.uidValidity = new
                broadcast(.reloadNeeded(reason: "\(description.name) was re-created on the server"))
            case .resyncNeeded:
                broadcast(.reloadNeeded(reason: "too many changes arrived at once to follow them one by one"))
            case .alert(let text):
                broadcast(.alert(text))
            }
        case .reconnecting(let attempt, let reason):
            // Two lines at most for one outage: the loss, then (if it lasts until the waits reach
            // their longest) that the service is offline and how often it tries; a watcher shows
            // the latest until the connection is back.
            if attempt == 1 {
                broadcast(.connectionLost("Connection lost (\(reason.message)); reconnecting"))
            } else if reconnectPolicy.retriesForever, attempt == max(2, reconnectPolicy.firstAttemptAtMaximumDelay) {
                broadcast(.connectionLost("Offline: retrying every \(Self.spoken(reconnectPolicy.maximumDelay))"))
            }
        case .reconnected(let report):
            let previous = selected
            let fresh = describe(report.mailbox)
            broadcast(.connectionRestored)
            // The session's own event may have told of the new UIDVALIDITY first (one reload a change).
            let toldAlready = report.uidValidityChanged && previous?.uidValidity == report.mailbox.uidValidity
            if toldAlready { return }
            if report.needsReload || report.uidValidityChanged {
                broadcast(
                    .reloadNeeded(
                        reason: report.uidValidityChanged
                            ? "\(fresh.name) was re-created on the server" : "the connection was restored"))
                return
            }
            if let expunged = report.expunged?.numbers, !expunged.isEmpty {
                broadcast(.expunged(expunged.map { id($0, fresh) }))
            }
            for (uid, flags) in report.flags.sorted(by: { $0.key < $1.key }) {
                broadcast(.flagsChanged(id(uid, fresh), flags.filter { $0 != .recent }))
            }
            // Mail that arrived while the connection was away.
            if let before = previous?.uidNext, let after = report.mailbox.uidNext, after > before {
                do {
                    let summaries = try await connection.summaries(SequenceSet(before...(after - 1)))
                    let emails = summaries.map {
                        Self.email($0, mailbox: fresh.name, uidValidity: fresh.uidValidity, fresh.pinFlag)
                    }
                    if !emails.isEmpty { broadcast(.arrived(emails.sorted { $0.uid > $1.uid })) }
                } catch {
                    broadcast(.reloadNeeded(reason: "mail arrived while the connection was away (\(error.message))"))
                }
            }
        case .failed(let error):
            broadcast(.failed(MailServiceError(error)))
        }
    }

    /// Whether `change` may change what the local index holds (so it catches up).
    static func changesMessages(_ change: MailboxConnection.Change) -> Bool {
        switch change {
        case .mailbox(.messageCount), .mailbox(.alert), .reconnecting, .failed: false
        case .mailbox, .reconnected: true
        }
    }
}
