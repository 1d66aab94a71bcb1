import IMAPCore

extension IMAPSession {
    /// Changes in the selected mailbox as they happen (RFC 2177 IDLE, or NOOP polling every
    /// `pollInterval` where the server has no IDLE), until the consumer stops (breaks out of its
    /// loop or is cancelled): then IDLE is ended with DONE.
    ///
    /// Events carry UIDs: the session keeps the sequence-to-UID map (from a `UID SEARCH ALL`
    /// when listening starts, from every FETCH, and from the UIDs of new mail, which it fetches
    /// when EXISTS grows), or has the server send VANISHED (QRESYNC). Commands issued meanwhile
    /// interrupt IDLE and it resumes after them. A listener that falls more than
    /// `eventBufferCapacity` events behind gets `.resyncNeeded` instead of the lost events.
    public nonisolated func events() -> MailboxEventStream { MailboxEventStream(session: self) }

    /// Makes the sequence-to-UID map complete (without QRESYNC an EXPUNGE names only a sequence
    /// number).
    /// Another client's EXPUNGE or new mail arriving while the `UID SEARCH ALL` runs can make its
    /// answer disagree with the message count: then it is asked again (a few times at most).
    func completeSequenceMap() async throws(IMAPError) {
        for _ in 0..<3 {
            guard let tracker = machine.tracker, !tracker.isMapComplete, !enabled.contains(.qresync) else { return }
            let esearch = capabilities.contains(.esearch)
            // The state machine installs the answer as it completes (`mapsAllUIDs`), in order
            // with the responses around it.
            _ = try await run(
                .uidSearch(returnOptions: esearch ? [.all] : nil, keys: [.all]), claim: .search, mapsAllUIDs: true)
            if machine.tracker?.isMapComplete ?? true { return }
            logger.debug("the mailbox changed while its UIDs were read; reading them again")
        }
    }

    /// The UIDs of messages that arrived (EXISTS grew): `UID FETCH uidnext:* (FLAGS)` when the
    /// mailbox reported UIDNEXT, else `FETCH n:* (UID FLAGS)` from the first sequence number
    /// whose UID is unknown.
    func fetchArrivals() async throws(IMAPError) -> [MailboxEvent] {
        guard let tracker = machine.tracker, tracker.mailbox.messageCount > 0 else { return [] }
        let command: Command
        let previousLargest: UInt32
        if let next = tracker.mailbox.uidNext {
            previousLargest = next - 1
            command = .uidFetch(SequenceSet([SequenceRange(.number(next), .last)]), [.uid, .flags])
        } else if let first = tracker.uids.firstIndex(of: 0).map({ UInt32($0 + 1) }) {
            previousLargest = tracker.largestKnownUID ?? 0
            command = .fetch(SequenceSet([SequenceRange(.number(first), .last)]), [.uid, .flags])
        } else {
            return []
        }
        let outcome = try await run(command, claim: .custom { if case .fetch = $0 { true } else { false } })
        var arrived: [UInt32] = []
        var events: [MailboxEvent] = []
        for case .fetch(let fetch) in outcome.untagged {
            guard let uid = fetch.uid else { continue }
            if uid > previousLargest {
                arrived.append(uid)
            } else if let flags = fetch.flags {
                events.append(.flagsChanged(uid: uid, flags: flags, modificationSequence: fetch.modificationSequence))
            }
        }
        if !arrived.isEmpty { events.insert(.arrived(SequenceSet(numbers: arrived)), at: 0) }
        return events
    }
}

/// The events of a session's selected mailbox; see `IMAPSession.events()`.
public struct MailboxEventStream: AsyncSequence, Sendable {
    public typealias Element = MailboxEvent
    public typealias Failure = IMAPError

    let session: IMAPSession

    /// An iterator. Iterators of one session share its events: each event reaches one of them
    /// (for several consumers, one iterator and a fan-out, as `MailboxConnection.changes()`).
    public func makeAsyncIterator() -> Iterator { Iterator(session: session) }

    /// Reads the events in order; dropping it stops listening.
    public final class Iterator: AsyncIteratorProtocol {
        private let session: IMAPSession
        private var pending: [MailboxEvent] = []
        private var head = 0
        private var listening = false

        init(session: IMAPSession) { self.session = session }

        deinit {
            if listening {
                let session = session
                // Owned by the dropped iterator: one hop onto the actor to stop listening.
                Task { await session.removeListener() }
            }
        }

        /// The next event; nil when the session was closed by its owner or the task cancelled.
        public func next() async throws(IMAPError) -> MailboxEvent? {
            if !listening {
                // Listening only once the map is complete: a failure here leaves no listener
                // for deinit to remove (it used to remove another iterator's).
                try await session.completeSequenceMap()
                await session.addListener()
                listening = true
            }
            while head >= pending.count {
                guard let events = try await session.nextEvents() else { return nil }
                pending = []
                head = 0
                for event in events {
                    pending.append(event)
                    if case .messageCount = event { pending += try await session.fetchArrivals() }
                }
            }
            head += 1
            return pending[head - 1]
        }
    }
}
