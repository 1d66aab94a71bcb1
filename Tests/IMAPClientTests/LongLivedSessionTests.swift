import IMAPClient
import IMAPCore
import MockIMAPServer
import Synchronization
import TestSupport
import Testing

/// What a session held open for hours must survive: commands awaited inside a large fetch loop,
/// a consumer that stops, cancellation, changes made by other connections.
@Suite(.hangGuard, .timeLimit(.minutes(3))) struct LongLivedSessionTests {
    @Test func commandsAwaitedInsideATwentyThousandMessageFetchLoopComplete() async throws {
        let server = try await MockServerFixture.start()
        let total = 20_000
        try MockServerFixture.seed(server, count: total)
        let session = try await server.loggedInSession()
        let window = session.configuration.fetchWindow
        let stream = session.fetch(SequenceSet([SequenceRange(1...UInt32(total))]), items: [.uid, .flags, .envelope])
        var received = 0
        var largestBuffer = 0
        var stored: [UInt32] = []
        var progressSeen: [StreamProgress] = []
        for try await message in stream {
            received += 1
            largestBuffer = max(largestBuffer, stream.bufferedCount)
            // Progress partway: the whole total from the first message on, and at least what was
            // consumed, at most that plus what is buffered.
            let progress = stream.progress
            if received % 1000 == 1 { progressSeen.append(progress) }
            #expect(progress.total == total, "at message \(received)")
            #expect(progress.received >= received && progress.received <= received + stream.bufferedCount + window)
            guard received % 100 == 0, let uid = message.uid else { continue }
            // Each of these would wait forever behind a reader blocked on a full buffer.
            try await session.store(SequenceSet(uid), .add, [.flagged], silent: true)
            let found = try await session.search([.uid(SequenceSet(uid)), .flagged])
            #expect(found.uids == [uid])
            try await session.noop()
            stored.append(uid)
        }
        #expect(received == total)
        #expect(stream.progress == StreamProgress(received: total, total: total))
        #expect(progressSeen.count == total / 1000)
        #expect(progressSeen.map(\.received) == progressSeen.map(\.received).sorted())
        #expect(progressSeen.first.map { $0.received < total } == true, "progress moved during the fetch")
        #expect(stored.count == total / 100)
        // The documented bound: at most three fetch windows are ever buffered.
        #expect(largestBuffer <= 3 * window)
        for uid in stored {
            #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: uid)?.contains(.flagged) == true)
        }
        let flagged = try await session.search([.flagged])
        #expect(flagged.count == stored.count)
        await session.logout()
        await server.stop()
    }

    @Test func aStoppedConsumerDoesNotDelayAnotherTasksSearch() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 5000)
        let session = try await server.loggedInSession { $0.fetchWindow = 500 }
        let searched = Signal()
        let consumer = Task { () -> Int in
            var count = 0
            for try await _ in session.fetch(SequenceSet([SequenceRange(1...5000)]), items: [.uid, .envelope]) {
                count += 1
                // The consumer stops after its first message until the other task's search is
                // done: if that search waited for this consumer, the test would hang.
                if count == 1 { await searched.wait() }
            }
            return count
        }
        let found = try await session.search([.subject("message 4321")])
        #expect(found.uids == [4321])
        await searched.raise()
        #expect(try await consumer.value == 5000)
        await session.logout()
        await server.stop()
    }

    @Test func cancellingAWaitingCommandEndsItAndLeavesTheSessionUsable() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 3000)
        let session = try await server.loggedInSession { $0.fetchWindow = 200 }
        let started = Signal()
        // A consumer that holds the stream open, and a search queued behind... nothing: cancel
        // both while they wait and check the session still answers.
        let holder = Task {
            var count = 0
            for try await _ in session.fetch(SequenceSet([SequenceRange(1...3000)]), items: [.uid, .envelope]) {
                count += 1
                if count == 10 { await started.raise() }
                if count == 10 { try await Task.sleep(for: .seconds(3600)) }  // the wait being cancelled
            }
        }
        await started.wait()
        holder.cancel()
        let outcome = await holder.result
        #expect(throws: (any Error).self) { try outcome.get() }
        let found = try await session.search([.subject("message 2999")])
        #expect(found.uids == [2999])
        var fetched: [UInt32?] = []
        for try await message in session.fetch(SequenceSet(7), items: [.uid, .envelope]) { fetched.append(message.uid) }
        #expect(fetched == [7])
        await session.logout()
        await server.stop()
    }

    @Test func anExpungeByAnotherConnectionReachesTheEventsWithItsUID() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 20)
        let watcher = try await server.loggedInSession()
        let actor = try await server.loggedInSession()
        // The watcher listens once it has read the UID map and gone into IDLE (NOOP polling
        // without IDLE): a fault that does nothing marks that command, and the expunge waits
        // for it. (Raised before the first `next()`, the expunge could come while the map was
        // read, and under a loaded CI run the test waited for an event that had been folded in.)
        server.faults.add(.command(MockServerFixture.announces(.idle) ? "IDLE" : "NOOP"), .delay(.zero))
        let events = watcher.events()
        let collector = Task { () -> [MailboxEvent] in
            var seen: [MailboxEvent] = []
            let iterator = events.makeAsyncIterator()
            while let event = try await iterator.next() {
                seen.append(event)
                if case .expunged = event { break }
            }
            return seen
        }
        #expect(await server.faults.waitUntilFired(count: 1, timeout: .seconds(120)))
        try await actor.store(SequenceSet(numbers: [13]), .add, [.deleted], silent: true)
        try await actor.execute(.expunge)
        let seen = try await collector.value
        #expect(seen.contains(.expunged(SequenceSet(13))))
        await watcher.logout()
        await actor.logout()
        await server.stop()
    }

    @Test func aChangedUIDValidityIsAnEventAndTheMapStartsAgain() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 5)
        let session = try await server.loggedInSession()
        let old = try #require(await session.selectedMailbox?.uidValidity)
        try server.store.setUIDValidity(old + 1000, user: "alice", mailbox: "INBOX")
        try await session.select("INBOX")
        let iterator = session.events().makeAsyncIterator()
        let event = try await iterator.next()
        #expect(event == .uidValidityChanged(mailbox: "INBOX", old: old, new: old + 1000))
        await session.logout()
        await server.stop()
    }

    @Test(
        .enabled(
            if: MockServerFixture.announces(.condstore) && MockServerFixture.announces(.idle),
            "MODSEQs and IDLE: this profile has no CONDSTORE or no IDLE"))
    func twoSessionsInterleaveAThousandFlagChangesAndEndEqualToTheServer() async throws {
        let server = try await MockServerFixture.start()
        let messages = 50
        try MockServerFixture.seed(server, count: messages)
        let first = try await server.loggedInSession()
        let second = try await server.loggedInSession()
        let sessions = [first, second]
        let views = [FlagView(), FlagView()]
        var listeners: [Task<Void, any Error>] = []
        for (session, view) in zip(sessions, views) {
            let all = SequenceSet([SequenceRange(1...UInt32(messages))])
            for try await message in session.fetch(all, items: [.uid, .flags, .modificationSequence]) {
                let uid = try #require(message.uid)
                await view.apply(uid: uid, flags: message.flags ?? [], modseq: message.modificationSequence ?? 0)
            }
            let ready = Signal()
            listeners.append(
                Task {
                    let iterator = session.events().makeAsyncIterator()
                    await ready.raise()
                    while let event = try await iterator.next() {
                        if case .flagsChanged(let uid, let flags, let modseq) = event {
                            await view.apply(uid: uid, flags: flags, modseq: modseq ?? 0, fromEvent: true)
                        }
                    }
                })
            await ready.wait()
        }
        var generator = SystemRandomNumberGenerator()
        let flags: [Flag] = [.seen, .flagged, .answered, "$Pinned", "$Label1"]
        for change in 0..<1000 {
            let index = change % 2
            let uid = UInt32.random(in: 1...UInt32(messages), using: &generator)
            let flag = flags.randomElement(using: &generator)!
            let operation: StoreFlags.Operation = Bool.random(using: &generator) ? .add : .remove
            let result = try await sessions[index].store(SequenceSet(uid), operation, [flag])
            if let flags = result.flags[uid] {
                await views[index].apply(uid: uid, flags: flags, modseq: result.modificationSequences[uid] ?? 0)
            }
        }
        // Each view reaches the server's state through the other session's IDLE pushes; one
        // that misses a change never does, and the time limit fails the test.
        for view in views { await view.waitUntilMatching(server) }
        for view in views {
            #expect(await view.matches(server))
            #expect(await view.eventModseqsStrictlyIncrease)
            #expect(await view.eventCount > 100)
        }
        for listener in listeners { listener.cancel() }
        await first.logout()
        await second.logout()
        await server.stop()
    }
}

/// One session's idea of every message's flags; the newest MODSEQ wins.
actor FlagView {
    private var flags: [UInt32: (Set<String>, UInt64)] = [:]
    private var eventModseqs: [UInt64] = []
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func apply(uid: UInt32, flags: [Flag], modseq: UInt64, fromEvent: Bool = false) {
        let normalized = Set(flags.map { $0.description.lowercased() }).subtracting(["\\recent"])
        if fromEvent { eventModseqs.append(modseq) }
        if let current = self.flags[uid], current.1 > modseq { return }
        self.flags[uid] = (normalized, modseq)
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    var eventCount: Int { eventModseqs.count }

    var eventModseqsStrictlyIncrease: Bool { zip(eventModseqs, eventModseqs.dropFirst()).allSatisfy { $0 < $1 } }

    func matches(_ server: MockIMAPServer) -> Bool {
        flags.allSatisfy { uid, entry in
            let stored = server.store.flags(user: "alice", mailbox: "INBOX", uid: uid) ?? []
            return Set(stored.map { $0.description.lowercased() }).subtracting(["\\recent"]) == entry.0
        }
    }

    /// Waits, change by change, until the view equals the server.
    func waitUntilMatching(_ server: MockIMAPServer) async {
        while !matches(server) { await withCheckedContinuation { waiters.append($0) } }
    }
}

/// Dropping the last reference to a session ends its tasks and its connection.
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct SessionLifetimeTests {
    @Test func droppingTheLastReferenceClosesTheConnection() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 3)
        var session: IMAPSession? = try await server.loggedInSession()
        _ = try await session?.search([.all])
        weak let dropped = session
        session = nil
        // No task of the session keeps it alive...
        #expect(dropped == nil)
        // ... and its connection is closed: the server sees the session end.
        #expect(await server.waitUntilSessionsEnd(timeout: .seconds(20)))
        let stillOpen = server.sessions.filter { $0.isOpen }.count
        #expect(stillOpen == 0)
        await server.stop()
    }
}
