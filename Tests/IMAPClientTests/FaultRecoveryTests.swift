import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// Every fault of the mock server's spec, injected under the client: what the user sees is a
/// clear error or a transparent recovery, never a hang or a crash, and no flag change is lost or
/// applied twice (checked against the server's own store, which is another view than the
/// client's connection).
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct FaultRecoveryTests {
    /// The inactivity limit of the tests whose server delays (30 s) or stalls a command: short,
    /// and still long enough for the login before it on a loaded machine (with 3 s, the mock
    /// server in this busy test process once answered ENABLE too late).
    static let shortInactivity: Duration = .seconds(10)

    static func server(messages: Int = 30) async throws -> MockIMAPServer {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: messages)
        return server
    }

    /// A reconnecting connection to alice's INBOX with quick retries.
    static func connection(_ server: MockIMAPServer, inactivity: Duration = .seconds(60)) -> MailboxConnection {
        var configuration = server.clientConfiguration()
        configuration.timeouts.commandInactivity = inactivity
        return MailboxConnection(
            configuration: configuration, credentials: .password(user: "alice", password: "secret"),
            policy: .init(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), jitterSeed: 1))
    }

    /// The flags of `uid` read back over another connection (EXAMINE, so reading changes
    /// nothing), checked against the server's own store. The fault rules are removed first: the
    /// reading connection is a witness, not under test.
    static func flags(
        _ server: MockIMAPServer, _ uid: UInt32, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Set<Flag> {
        server.faults.removeAll()
        let reader = try await IMAPSession.connect(server.clientConfiguration())
        try await reader.login(.password(user: "alice", password: "secret"))
        _ = try await reader.select("INBOX", readOnly: true)
        var flags: Set<Flag> = []
        for try await message in reader.fetch(SequenceSet(uid), items: [.uid, .flags]) {
            flags = Set(message.flags ?? []).subtracting([.recent])
        }
        await reader.logout()
        let stored = (server.store.flags(user: "alice", mailbox: "INBOX", uid: uid) ?? []).subtracting([.recent])
        #expect(flags == stored, "UID \(uid): the connection and the store disagree", sourceLocation: sourceLocation)
        return flags
    }

    /// The mailbox's HIGHESTMODSEQ: every applied change moves it on by one.
    static func highestModseq(_ server: MockIMAPServer) -> UInt64 {
        server.store.highestModificationSequence(user: "alice", mailbox: "INBOX") ?? 0
    }

    // MARK: - Delays

    @Test func delayedResponsesAreWaitedFor() async throws {
        let server = try await Self.server()
        _ = server.faults.add(.everyCommand, .delay(.milliseconds(150)))
        let session = try await server.loggedInSession()
        #expect(try await session.search([.subject("message 12")]).uids == [12])
        await session.logout()
        await server.stop()
    }

    @Test func aResponseSlowerThanTheInactivityLimitIsATimeoutAndTheConnectionRecovers() async throws {
        let server = try await Self.server()
        let session = try await server.loggedInSession { $0.timeouts.commandInactivity = Self.shortInactivity }
        _ = server.faults.add(.command(MockServerFixture.searchCommand, occurrence: 1), .delay(.seconds(30)))
        await #expect(throws: IMAPError.self) { _ = try await session.search([.subject("message 12")]) }
        #expect(await session.failure?.code == .timeout)
        #expect(await session.failure?.message.contains("did not answer \(MockServerFixture.searchCommand)") == true)
        // The long-lived connection retries once on a new connection: the user sees the answer.
        _ = server.faults.add(.command(MockServerFixture.searchCommand, occurrence: 1), .delay(.seconds(30)))
        let connection = Self.connection(server, inactivity: Self.shortInactivity)
        try await connection.open()
        #expect(try await connection.search([.subject("message 12")]).uids == [12])
        #expect(await connection.reconnectCount == 1)
        await connection.close()
        await server.stop()
    }

    @Test func aStalledCommandTimesOutAndIsRetriedOnANewConnection() async throws {
        let server = try await Self.server()
        let connection = Self.connection(server, inactivity: Self.shortInactivity)
        try await connection.open()
        _ = server.faults.add(.command(MockServerFixture.searchCommand, occurrence: 1), .stall)
        #expect(try await connection.search([.subject("message 7")]).uids == [7])
        #expect(await connection.reconnectCount == 1)
        await connection.close()
        await server.stop()
    }

    // MARK: - NO, BAD, BYE

    @Test func aRefusedStoreIsAClearErrorAndChangesNothing() async throws {
        let server = try await Self.server()
        let session = try await server.loggedInSession()
        _ = server.faults.add(
            .command("UID STORE", occurrence: 2), .respond(.no, code: "OVERQUOTA", text: "quota exceeded"))
        try await session.store(SequenceSet(3), .add, [.flagged], silent: true)
        do {
            try await session.store(SequenceSet(4), .add, [.flagged], silent: true)
            Issue.record("the second store succeeded")
        } catch {
            #expect(error.code == .no)
            #expect(error.serverText == "quota exceeded")
            #expect(error.message == "the server refused UID STORE: quota exceeded")
        }
        #expect((try await Self.flags(server, 3)).contains(.flagged))
        #expect(!(try await Self.flags(server, 4)).contains(.flagged))
        // The session goes on.
        try await session.store(SequenceSet(4), .add, [.flagged], silent: true)
        #expect((try await Self.flags(server, 4)).contains(.flagged))
        await session.logout()
        await server.stop()
    }

    @Test func badIsAClearError() async throws {
        let server = try await Self.server()
        let session = try await server.loggedInSession()
        _ = server.faults.add(
            .command(MockServerFixture.searchCommand, occurrence: 1), .respond(.bad, code: "LIMIT", text: "too many"))
        do {
            _ = try await session.search([.all])
            Issue.record("searched")
        } catch {
            #expect(error.code == .bad)
            #expect(error.message == "the server did not accept \(MockServerFixture.searchCommand): too many")
        }
        #expect(try await session.search([.subject("message 8")]).uids == [8])
        await session.logout()
        await server.stop()
    }

    @Test func unavailableIsRetriedOnceByTheLongLivedConnection() async throws {
        let server = try await Self.server()
        let connection = Self.connection(server)
        try await connection.open()
        _ = server.faults.add(
            .command(MockServerFixture.searchCommand, occurrence: 1), .respond(.no, code: "UNAVAILABLE", text: "busy"))
        #expect(try await connection.search([.subject("message 5")]).uids == [5])
        #expect(await connection.reconnectCount == 0)
        await connection.close()
        await server.stop()
    }

    @Test func byeEndsTheSessionWithTheServersWordsAndTheConnectionComesBack() async throws {
        let server = try await Self.server()
        let session = try await server.loggedInSession()
        _ = server.faults.add(.command("NOOP", occurrence: 1), .respond(.bye, code: "UNAVAILABLE", text: "maintenance"))
        do {
            try await session.noop()
            Issue.record("noop succeeded")
        } catch {
            #expect(error.code == .bye)
            #expect(error.message.contains("maintenance"))
        }
        _ = server.faults.add(.command("NOOP", occurrence: 1), .respond(.bye, code: "UNAVAILABLE", text: "maintenance"))
        let connection = Self.connection(server)
        try await connection.open()
        let changes = await connection.changes()
        try await connection.noop()
        #expect(await connection.reconnectCount == 1)
        var iterator = changes.makeAsyncIterator()
        var seen: [MailboxConnection.Change] = []
        while let change = await iterator.next() {
            seen.append(change)
            if case .reconnected = change { break }
        }
        #expect(seen.contains { if case .reconnecting(1, let reason) = $0 { reason.code == .bye } else { false } })
        await connection.close()
        await server.stop()
    }

    /// The listener of a watched connection and a command see the same loss at once: they share
    /// one reconnect. (Reconnecting once awaited the old session between its check and its
    /// registration, so both callers could start one: two new sessions, a count of 2, in 13 of
    /// 30 runs of the test above. Ten rounds here make a recurrence all but certain to show.)
    @Test func aLossSeenByTheListenerAndACommandAtOnceIsOneReconnect() async throws {
        let server = try await Self.server()
        for round in 1...10 {
            let before = server.sessions.count
            let connection = Self.connection(server)
            try await connection.open()
            let changes = await connection.changes()
            _ = server.faults.add(.command("NOOP", occurrence: 1), .respond(.bye, code: "UNAVAILABLE", text: "restart"))
            try await connection.noop()
            var iterator = changes.makeAsyncIterator()
            while let change = await iterator.next() {
                if case .reconnected = change { break }
            }
            #expect(await connection.reconnectCount == 1, "round \(round)")
            await connection.close()
            server.faults.removeAll()
            #expect(server.sessions.count - before == 2, "round \(round): one session, then one reconnect")
        }
        await server.stop()
    }

    /// A command made while a reconnect waits out its delay waits for that reconnect instead of
    /// opening a session of its own beside it.
    @Test func aCommandDuringAReconnectWaitsForIt() async throws {
        let server = try await Self.server()
        let before = server.sessions.count
        let connection = MailboxConnection(
            configuration: server.clientConfiguration(), credentials: .password(user: "alice", password: "secret"),
            policy: .init(initialDelay: .milliseconds(500), maximumDelay: .milliseconds(500), jitterSeed: 1))
        try await connection.open()
        let changes = await connection.changes()
        _ = server.faults.add(.command("NOOP", occurrence: 1), .respond(.bye, code: "UNAVAILABLE", text: "restart"))
        let noop = Task { try await connection.noop() }
        var iterator = changes.makeAsyncIterator()
        while let change = await iterator.next() {
            if case .reconnecting = change { break }
        }
        #expect(try await connection.search([.subject("message 7")]).uids == [7])
        try await noop.value
        #expect(await connection.reconnectCount == 1)
        #expect(server.sessions.count - before == 2, "one session, then one reconnect")
        await connection.close()
        await server.stop()
    }

    /// Calls made together on a new connection share its first session (each used to connect
    /// its own: two sessions, the later one replacing the earlier).
    @Test func callsMadeTogetherOnANewConnectionShareOneSession() async throws {
        let server = try await Self.server()
        let before = server.sessions.count
        let connection = Self.connection(server)
        async let opened = connection.open()
        async let found = connection.search([.subject("message 7")])
        async let counted = connection.search([.subject("message 8")])
        _ = try await opened
        #expect(try await found.uids == [7])
        #expect(try await counted.uids == [8])
        #expect(server.sessions.count - before == 1)
        await connection.close()
        await server.stop()
    }

    /// After a reconnect gave up, the next call connects afresh and the watchers hear that
    /// session's events (the listener of the lost session had ended, and a listener was only
    /// started when there was none, so events stopped for good).
    @Test func eventsComeBackAfterAReconnectThatGaveUp() async throws {
        let server = try await Self.server()
        let connection = MailboxConnection(
            configuration: server.clientConfiguration(), credentials: .password(user: "alice", password: "secret"),
            policy: .init(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(100), maximumAttempts: 1))
        let changes = await connection.changes()
        var iterator = changes.makeAsyncIterator()
        try await connection.open()
        // The connection drops and every login is refused: the reconnect (the listener's and
        // the call's, shared) gives up.
        for command in ["LOGIN", "AUTHENTICATE"] {
            _ = server.faults.add(.command(command), .respond(.no, text: "not now"))
        }
        _ = server.faults.add(.command("NOOP", occurrence: 1), .closeAfter(bytes: 0))
        await #expect(throws: IMAPError.self) { try await connection.noop() }
        while let change = await iterator.next() {
            if case .failed = change { break }
        }
        server.faults.removeAll()
        try await connection.noop()
        let other = try await server.loggedInSession()
        try await other.store(SequenceSet(4), .add, [.flagged])
        var heard = false
        while let change = await iterator.next() {
            if case .mailbox(.flagsChanged(uid: 4, let flags, _)) = change, flags.contains(.flagged) {
                heard = true
                break
            }
        }
        #expect(heard)
        await other.logout()
        await connection.close()
        await server.stop()
    }

    /// A policy's total wait bounds a reconnect however many attempts it allows: with 1,000
    /// attempts 50 ms apart and 0.5 s in all, a server that went away is given up on after a
    /// handful, with an error that says so (without the bound: all 1,000, about 40 s).
    @Test func theTotalWaitBoundsAReconnectBeforeItsAttemptsRunOut() async throws {
        let server = try await Self.server()
        let connection = MailboxConnection(
            configuration: server.clientConfiguration(), credentials: .password(user: "alice", password: "secret"),
            policy: .init(
                initialDelay: .milliseconds(50), maximumDelay: .milliseconds(50), maximumAttempts: 1000,
                maximumTotalWait: .milliseconds(500)))
        let changes = await connection.changes()
        try await connection.open()
        // The server goes away: every attempt's connect is refused.
        await server.stop()
        let error = await #expect(throws: IMAPError.self) { try await connection.noop() }
        #expect(error?.message.contains("within 0.5 s") == true, "\(String(describing: error))")
        var attempts = 0
        for await change in changes {
            if case .reconnecting = change { attempts += 1 }
            if case .failed = change { break }
        }
        #expect(attempts > 1 && attempts < 1000, "\(attempts) attempts")
        await connection.close()
    }

    /// Two iterators of one session's events wait side by side without waking each other (each
    /// new waiter used to wake the one before, and two woke each other without end), and an
    /// event reaches one of them.
    @Test func twoListenersOfOneSessionWaitQuietlyAndShareItsEvents() async throws {
        let server = try await Self.server()
        let session = try await server.loggedInSession()
        let (reports, report) = AsyncStream.makeStream(of: MailboxEvent.self)
        let listeners = (0..<2).map { _ in
            Task { () throws(IMAPError) -> MailboxEvent? in
                let iterator = session.events().makeAsyncIterator()
                let event = try await iterator.next()
                if let event { report.yield(event) }
                return event
            }
        }
        while await session.waitingListenerCount < 2 { await Task.yield() }
        let waitsBefore = await session.eventWaits
        // A round trip of the session while both wait: a quiet mailbox wakes nobody.
        try await session.noop()
        #expect(await session.eventWaits - waitsBefore <= 4)
        let other = try await server.loggedInSession()
        try await other.store(SequenceSet(4), .add, [.flagged])
        var reported = reports.makeAsyncIterator()
        _ = await reported.next()
        // The other listener waits until cancelled; the change reached one of them, once.
        for listener in listeners { listener.cancel() }
        var heard: [MailboxEvent] = []
        for listener in listeners {
            if let event = try await listener.value { heard.append(event) }
        }
        let changes = heard.filter {
            if case .flagsChanged(uid: 4, let flags, _) = $0 { flags.contains(.flagged) } else { false }
        }
        #expect(changes.count == 1, "\(heard)")
        await other.logout()
        await session.logout()
        await server.stop()
    }

    @Test func aLoginRefusedAsUnavailableIsRetriedButAWrongPasswordIsNot() async throws {
        let server = try await Self.server()
        _ = server.faults.add(.command("LOGIN", occurrence: 1), .respond(.no, code: "UNAVAILABLE", text: "try later"))
        _ = server.faults.add(
            .command("AUTHENTICATE", occurrence: 1), .respond(.no, code: "UNAVAILABLE", text: "try later"))
        let connection = Self.connection(server)
        // The first attempt is refused as unavailable; open() does not retry, a call does.
        await #expect(throws: IMAPError.self) { try await connection.open() }
        #expect(try await connection.search([.subject("message 6")]).uids == [6])
        let wrong = MailboxConnection(
            configuration: server.clientConfiguration(), credentials: .password(user: "alice", password: "nope"),
            policy: .init(initialDelay: .milliseconds(10), jitterSeed: 2))
        do {
            _ = try await wrong.search([.all])
            Issue.record("searched with a wrong password")
        } catch {
            #expect(error.code == .authentication)
        }
        await connection.close()
        await server.stop()
    }

    // MARK: - Closed connections

    @Test func aConnectionClosedInTheMiddleOfAFetchIsAnErrorThenARetriedFetch() async throws {
        let server = try await Self.server()
        let session = try await server.loggedInSession()
        _ = server.faults.add(.command("UID FETCH", occurrence: 1), .closeAfter(bytes: 100))
        await #expect(throws: IMAPError.self) {
            for try await _ in session.fetch(SequenceSet(1...30), items: [.uid, .envelope]) {}
        }
        #expect(await session.failure?.code == .connection)
        _ = server.faults.add(.command("UID FETCH", occurrence: 1), .closeAfter(bytes: 100))
        let connection = Self.connection(server)
        try await connection.open()
        let messages = try await connection.fetch(SequenceSet(1...30), items: [.uid, .envelope])
        #expect(messages.compactMap { $0.uid } == (1...30).map { UInt32($0) })
        await connection.close()
        await server.stop()
    }

    @Test func aConnectionClosedInsideALiteralIsAnErrorThenARetriedFetch() async throws {
        let server = try await Self.server()
        let session = try await server.loggedInSession()
        _ = server.faults.add(.command("UID FETCH", occurrence: 1), .closeInLiteral)
        let body = FetchAttribute.bodySection(peek: true, section: .complete, partial: nil)
        await #expect(throws: IMAPError.self) { for try await _ in session.fetch(SequenceSet(2), items: [body]) {} }
        _ = server.faults.add(.command("UID FETCH", occurrence: 1), .closeInLiteral)
        let connection = Self.connection(server)
        try await connection.open()
        let messages = try await connection.fetch(SequenceSet(2), items: [body])
        #expect(messages.first?.bodySection(.complete)?.string.contains("Body of message 2.") == true)
        await connection.close()
        await server.stop()
    }

    /// The STORE ran but its answer never came: after reconnecting the flags are read back and
    /// the change is not sent again (one MODSEQ step, not two).
    @Test func aStoreWhoseAnswerWasLostIsNotAppliedTwice() async throws {
        let server = try await Self.server()
        let connection = Self.connection(server)
        try await connection.open()
        let before = Self.highestModseq(server)
        _ = server.faults.add(.command("UID STORE", occurrence: 1), .closeAfter(bytes: 0))
        try await connection.store(SequenceSet(9), .add, [.seen])
        #expect((try await Self.flags(server, 9)).contains(.seen))
        #expect(Self.highestModseq(server) == before + 1)
        let stores = server.sessions.flatMap(\.transcript).filter {
            $0.direction == .client && $0.text.contains("UID STORE")
        }
        #expect(stores.count == 1)
        await connection.close()
        await server.stop()
    }

    /// The STORE ran, its answer was lost, and the first read-back was refused as unavailable:
    /// the outcome is still unknown then, so the flags are read again (not reported as "not
    /// applied", which the soak test caught) and the change is neither lost nor sent twice.
    @Test func aStoreWhoseReadBackIsRefusedOnceIsReadAgainAndNotAppliedTwice() async throws {
        let server = try await Self.server()
        let connection = Self.connection(server)
        try await connection.open()
        let before = Self.highestModseq(server)
        _ = server.faults.add(.command("UID STORE", occurrence: 1), .closeAfter(bytes: 0))
        let readBack = MockServerFixture.announces(.condstore) && !MockServerFixture.announces(.qresync) ? 2 : 1
        _ = server.faults.add(
            .command("UID FETCH", occurrence: readBack), .respond(.no, code: "UNAVAILABLE", text: "busy"))
        try await connection.store(SequenceSet(7), .add, [.flagged])
        let transcript = server.sessions.flatMap(\.transcript).filter { $0.direction == .client }
        let fired = server.faults.fired.count
        #expect((try await Self.flags(server, 7)).contains(.flagged))
        #expect(Self.highestModseq(server) == before + 1)
        #expect(transcript.filter { $0.text.contains("UID STORE") }.count == 1)
        // With CONDSTORE (and no QRESYNC) the reconnect's resynchronisation is the first UID
        // FETCH; the read-back of UID 7 the next (refused) and the one after.
        #expect(fired == 2, "the lost answer and the refused read-back")
        #expect(transcript.filter { $0.text.contains("UID FETCH 7 (UID FLAGS)") }.count == 2)
        await connection.close()
        await server.stop()
    }

    /// The STORE ran, its answer was lost, and every read-back is refused: the caller hears
    /// that the outcome is unknown (never "refused", which would make it roll back a change the
    /// server made), and the change was applied once.
    @Test func aStoreWhoseFlagsCannotBeReadBackIsOfUnknownOutcome() async throws {
        let server = try await Self.server()
        let connection = Self.connection(server)
        try await connection.open()
        let before = Self.highestModseq(server)
        _ = server.faults.add(.command("UID STORE", occurrence: 1), .closeAfter(bytes: 0))
        _ = server.faults.add(.command("UID FETCH"), .respond(.no, code: "UNAVAILABLE", text: "busy"))
        let error = await #expect(throws: IMAPError.self) {
            try await connection.store(SequenceSet(8), .add, [.seen])
        }
        #expect(error?.code == .outcomeUnknown)
        #expect(error?.message.contains("may or may not have been made") == true)
        #expect((try await Self.flags(server, 8)).contains(.seen))
        #expect(Self.highestModseq(server) == before + 1)
        let stores = server.sessions.flatMap(\.transcript).filter {
            $0.direction == .client && $0.text.contains("UID STORE")
        }
        #expect(stores.count == 1)
        await connection.close()
        await server.stop()
    }

    /// The STORE never ran (the server stalled): after reconnecting it is applied, once.
    @Test func aStoreThatNeverRanIsAppliedAfterTheReconnect() async throws {
        let server = try await Self.server()
        let connection = Self.connection(server, inactivity: Self.shortInactivity)
        try await connection.open()
        let before = Self.highestModseq(server)
        _ = server.faults.add(.command("UID STORE", occurrence: 1), .stall)
        try await connection.store(SequenceSet(11), .add, [.flagged])
        #expect((try await Self.flags(server, 11)).contains(.flagged))
        #expect(Self.highestModseq(server) == before + 1)
        await connection.close()
        await server.stop()
    }

    // MARK: - Fragmentation and unsolicited responses

    @Test func responsesWrittenOneByteAtATimeParseTheSame() async throws {
        let server = try await Self.server(messages: 5)
        let plain = try await server.loggedInSession()
        var expected: [FetchResponse] = []
        // (No FLAGS: the first session to see a message gets \\Recent, the second does not.)
        let items: [FetchAttribute] = [.uid, .envelope, .bodyStructure(extensions: true)]
        for try await message in plain.fetch(SequenceSet(1...5), items: items) { expected.append(message) }
        _ = server.faults.add(.everyCommand, .fragment)
        let fragmented = try await server.loggedInSession()
        var received: [FetchResponse] = []
        for try await message in fragmented.fetch(SequenceSet(1...5), items: items) { received.append(message) }
        #expect(received == expected)
        #expect(try await fragmented.search([.subject("message 4")]).uids == [4])
        await plain.logout()
        await fragmented.logout()
        await server.stop()
    }

    @Test func unsolicitedResponsesBeforeATaggedOneBecomeEventsAndLeaveTheAnswerAlone() async throws {
        let server = try await Self.server(messages: 6)
        let session = try await server.loggedInSession()
        for try await _ in session.fetch(SequenceSet(1...6), items: [.uid]) {}  // the map: seq n = UID n
        _ = server.faults.add(
            .command(MockServerFixture.searchCommand, occurrence: 1),
            .inject([.fetchFlags(2, ["\\Seen"]), .expunge(3), .exists(6), .bye("going away soon")]))
        #expect(try await session.search([.subject("message 5")]).uids == [5])
        let events = session.events().makeAsyncIterator()
        #expect(try await events.next() == .flagsChanged(uid: 2, flags: [.seen], modificationSequence: nil))
        #expect(try await events.next() == .expunged(SequenceSet(3)))
        #expect(await session.selectedMailbox?.messageCount == 6)
        await session.logout()
        await server.stop()
    }

    // MARK: - UIDVALIDITY

    @Test func aUIDValidityChangedBetweenConnectionsVoidsTheCachedUIDs() async throws {
        let server = try await Self.server()
        let first = Self.connection(server)
        let selected = try await first.open()
        let old = try #require(selected.uidValidity)
        await first.close()
        let fresh = try server.store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        var configuration = server.clientConfiguration()
        configuration.timeouts.commandInactivity = .seconds(60)
        let second = MailboxConnection(
            configuration: configuration, credentials: .password(user: "alice", password: "secret"),
            known: KnownMailboxState(
                uidValidity: old, highestModificationSequence: selected.highestModificationSequence))
        let changes = await second.changes()
        try await second.open()
        var report: MailboxConnection.Resynchronization?
        for await change in changes {
            if case .reconnected(let resynchronization) = change {
                report = resynchronization
                break
            }
        }
        let resynchronization = try #require(report)
        #expect(resynchronization.uidValidityChanged)
        #expect(resynchronization.needsReload)
        #expect(resynchronization.mailbox.uidValidity == fresh)
        await second.close()
        await server.stop()
    }

    /// The mailbox is re-created while a call is on its way (the server ends the session at its
    /// next command): the retry after the reconnect expects the mailbox the caller's UIDs belong
    /// to, so it fails instead of reading, or changing, the new mailbox's messages of the same
    /// numbers (the retries took the reconnected mailbox as expected, and pinned the new 4).
    @Test func aRetryAfterTheMailboxWasReCreatedFailsInsteadOfActingOnOtherMessages() async throws {
        let server = try await Self.server()
        let connection = Self.connection(server)
        try await connection.open()
        try server.store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        do {
            _ = try await connection.fetch(SequenceSet(4), items: [.uid, .flags])
            Issue.record("fetched from the re-created mailbox")
        } catch {
            #expect(error.code == .mailboxChanged)
        }
        try server.store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        do {
            try await connection.summaries(inOrder: [4, 3], previews: false) { _ in }
            Issue.record("fetched summaries from the re-created mailbox")
        } catch {
            #expect(error.code == .mailboxChanged)
        }
        try server.store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        do {
            try await connection.store(SequenceSet(4), .add, [.flagged])
            Issue.record("stored into the re-created mailbox")
        } catch {
            #expect(error.code == .outcomeUnknown || error.code == .mailboxChanged)
        }
        #expect(!(try await Self.flags(server, 4)).contains(.flagged))
        // A call made once the connection knows the new mailbox acts on it.
        #expect(try await connection.search([.subject("message 7")]).uids == [7])
        await connection.close()
        await server.stop()
    }

    @Test func aStoreForAReCreatedMailboxFailsInsteadOfTouchingAnotherMessage() async throws {
        let server = try await Self.server()
        let before = try await server.loggedInSession()
        let old = try #require(await before.selectedMailbox?.uidValidity)
        await before.logout()
        _ = try server.store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        // UIDs cached under the old UIDVALIDITY name other messages now.
        let session = try await server.loggedInSession()
        do {
            try await session.store(
                SequenceSet(4), .add, [.deleted], in: MailboxExpectation(name: "INBOX", uidValidity: old))
            Issue.record("stored into a re-created mailbox")
        } catch {
            #expect(error.code == .mailboxChanged)
        }
        #expect(!(try await Self.flags(server, 4)).contains(.deleted))
        await session.logout()
        await server.stop()
    }
}
