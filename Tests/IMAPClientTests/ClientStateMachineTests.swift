import IMAPCore
import TestSupport
import Testing

@testable import IMAPClient

/// The client's protocol state machine, driven event by event without sockets.
@Suite(.hangGuard) struct ClientStateMachineTests {
    typealias Action = ClientStateMachine.Action
    static let now = ContinuousClock.now

    static func machine(
        _ capabilities: Set<Capability> = [.imap4rev1, .idle, .condstore], events: Int = 5000
    )
        -> ClientStateMachine
    {
        ClientStateMachine(capabilities: capabilities, isAuthenticated: true, eventCapacity: events)
    }

    static func parse(_ text: String) -> Response {
        var parser = ResponseParser()
        parser.append(Array(text.utf8))
        do {
            guard let response = try parser.next() else { fatalError("incomplete test response \(text)") }
            return response
        } catch {
            fatalError("bad test response \(text): \(error)")
        }
    }

    static func writes(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .write(let bytes, _) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil } }
    }

    static func succeeded(_ actions: [Action]) -> [CommandID] {
        actions.compactMap { if case .succeed(let id, _) = $0 { id } else { nil } }
    }

    static func failed(_ actions: [Action]) -> [(CommandID, IMAPError.Code)] {
        actions.compactMap { if case .fail(let id, let error) = $0 { (id, error.code) } else { nil } }
    }

    static func feed(_ machine: inout ClientStateMachine, _ lines: String...) -> [Action] {
        lines.flatMap { machine.received(parse($0 + "\r\n"), now: now) }
    }

    @Test func aCommandIsWrittenWithATagAndSucceedsOnItsOK() {
        var machine = Self.machine()
        #expect(Self.writes(machine.enqueue(1, CommandRequest(command: .noop), now: Self.now)) == ["M1 NOOP\r\n"])
        let actions = Self.feed(&machine, "M1 OK done")
        #expect(Self.succeeded(actions) == [1])
    }

    /// Every chunk of a command that carries credentials says what a trace shows in its place,
    /// decided from the command: the LOGIN line and each literal after it, and SASL answers.
    @Test func everyChunkOfALoginAndEverySASLAnswerIsHiddenFromTheTrace() {
        var machine = ClientStateMachine(capabilities: [.imap4rev1], isAuthenticated: false)
        let login = Command.login(username: ByteString("ålice"), password: ByteString("pässwörd"))
        var actions = machine.enqueue(1, CommandRequest(command: login), now: Self.now)
        actions += Self.feed(&machine, "+ go on")
        actions += Self.feed(&machine, "+ go on")
        let writes = actions.compactMap { action -> (String, String?)? in
            if case .write(let bytes, let shown) = action {
                (String(decoding: bytes, as: UTF8.self), shown)
            } else {
                nil
            }
        }
        #expect(writes.map(\.0) == ["M1 LOGIN {6}\r\n", "ålice {10}\r\n", "pässwörd\r\n"])
        #expect(writes.map(\.1) == ["M1 LOGIN ***", "*** (literal)", "*** (literal)"])

        _ = Self.feed(&machine, "M1 OK in")
        let authenticate = CommandRequest(command: .authenticate(mechanism: "PLAIN"), answersChallenges: true)
        _ = machine.enqueue(2, authenticate, now: Self.now)
        let answer = machine.challengeAnswered(2, Array("AGFsaWNlAHNlY3JldA==\r\n".utf8))
        guard case .write(_, let shown)? = answer.first else {
            Issue.record("no write for the SASL answer: \(answer)")
            return
        }
        #expect(shown == "*** (SASL answer)")
        let noop = machine.enqueue(3, CommandRequest(command: .noop), now: Self.now)
        #expect(noop.allSatisfy { if case .write(_, let shown) = $0 { shown == nil } else { true } })
    }

    @Test func noAndBadBecomeErrors() {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .noop), now: Self.now)
        _ = machine.enqueue(2, CommandRequest(command: .capability, claim: .capability), now: Self.now)
        let actions = Self.feed(&machine, "M1 NO [ALERT] nope", "M2 BAD what")
        #expect(Self.failed(actions).map(\.0) == [1, 2])
        #expect(Self.failed(actions).map(\.1) == [.no, .bad])
    }

    @Test func commandsOfOneResponseClassNeverOverlapButOthersDo() {
        var machine = Self.machine()
        let first = machine.enqueue(1, CommandRequest(command: .uidSearch(keys: [.all]), claim: .search), now: Self.now)
        let second = machine.enqueue(
            2, CommandRequest(command: .uidSearch(keys: [.seen]), claim: .search), now: Self.now)
        let third = machine.enqueue(
            3, CommandRequest(command: .list(reference: "", patterns: ["*"]), claim: .mailboxList), now: Self.now)
        #expect(Self.writes(first) == ["M1 UID SEARCH ALL\r\n"])
        #expect(Self.writes(second).isEmpty)
        // LIST may pass the waiting SEARCH: their answers cannot be confused.
        #expect(Self.writes(third) == ["M2 LIST \"\" *\r\n"])
        let done = Self.feed(&machine, "* SEARCH 1 2", "M1 OK done")
        #expect(Self.writes(done) == ["M3 UID SEARCH SEEN\r\n"])
        guard case .succeed(1, let outcome)? = done.first(where: { if case .succeed = $0 { true } else { false } })
        else {
            Issue.record("no success for the first search")
            return
        }
        #expect(outcome.untagged == [.search([1, 2], modificationSequence: nil)])
    }

    @Test func anExclusiveCommandWaitsForEverythingAndHoldsBackWhatComesAfter() {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .uidSearch(keys: [.all]), claim: .search), now: Self.now)
        #expect(Self.writes(machine.enqueue(2, CommandRequest(command: .select("Archive")), now: Self.now)).isEmpty)
        #expect(Self.writes(machine.enqueue(3, CommandRequest(command: .noop), now: Self.now)).isEmpty)
        #expect(Self.writes(Self.feed(&machine, "M1 OK done")) == ["M2 SELECT Archive\r\n"])
        #expect(Self.writes(Self.feed(&machine, "* 3 EXISTS", "M2 OK [READ-WRITE] done")) == ["M3 NOOP\r\n"])
        #expect(machine.tracker?.mailbox.messageCount == 3)
    }

    @Test func idDoesNotHoldBackTheExclusiveCommandsBehindIt() {
        var machine = Self.machine([.imap4rev1, .id, .enable, .condstore, .qresync])
        let identity = [IDParameter(key: "name", value: "test")]
        #expect(
            Self.writes(machine.enqueue(1, CommandRequest(command: .id(identity), claim: .identity), now: Self.now))
                == ["M1 ID (\"name\" \"test\")\r\n"])
        // ENABLE and SELECT go alone, but ID's answer changes nothing they depend on, and
        // ENABLE's answer nothing a SELECT of INBOX without parameters is written with: all
        // three go out in one flight.
        #expect(
            Self.writes(
                machine.enqueue(2, CommandRequest(command: .enable([.qresync]), claim: .enabled), now: Self.now))
                == ["M2 ENABLE QRESYNC\r\n"])
        #expect(
            Self.writes(machine.enqueue(3, CommandRequest(command: .select("INBOX")), now: Self.now))
                == ["M3 SELECT INBOX\r\n"])
        let enabled = Self.feed(&machine, "* ENABLED QRESYNC", "M2 OK enabled")
        #expect(Self.writes(enabled).isEmpty)
        #expect(machine.enabled == [.qresync])
        let answered = Self.feed(&machine, "* ID (\"name\" \"Dovecot\")", "M1 OK done", "* 2 EXISTS", "M3 OK done")
        #expect(Self.succeeded(enabled + answered) == [2, 1, 3])
        #expect(machine.tracker?.mailbox.messageCount == 2)
        // Any other command in flight still holds an exclusive one back.
        _ = machine.enqueue(4, CommandRequest(command: .noop), now: Self.now)
        #expect(Self.writes(machine.enqueue(5, CommandRequest(command: .select("Archive")), now: Self.now)).isEmpty)
    }

    /// A SELECT follows an unanswered ENABLE only when ENABLE's answer cannot change its bytes:
    /// a QRESYNC parameter (allowed only after ENABLED QRESYNC) or a name that is not ASCII
    /// (UTF8=ACCEPT changes how names are written) waits, as does every other command.
    @Test func enableHoldsBackWhatDependsOnItsAnswer() {
        let qresync = SelectParameter.other(name: "QRESYNC", value: "(67890007 20)")
        let cases: [(Command, Bool)] = [
            (.select("INBOX"), true),
            (.examine("Archive"), true),
            (.select("INBOX", parameters: [.condStore]), true),
            (.select("INBOX", parameters: [qresync]), false),
            (.select(MailboxName(ByteString(Array("Entw\u{fc}rfe".utf8)))), false),
            (.noop, false),
            (.uidSearch(keys: [.all]), false),
        ]
        for (command, goes) in cases {
            var machine = Self.machine([.imap4rev1, .enable, .condstore, .qresync, .utf8Accept])
            let enable = CommandRequest(command: .enable([.qresync, .utf8Accept]), claim: .enabled)
            _ = machine.enqueue(1, enable, now: Self.now)
            let written = Self.writes(machine.enqueue(2, CommandRequest(command: command), now: Self.now))
            #expect(written.count == (goes ? 1 : 0), "\(command)")
            // Held back, it goes once ENABLE is answered.
            let after = Self.writes(Self.feed(&machine, "* ENABLED QRESYNC UTF8=ACCEPT", "M1 OK enabled"))
            #expect(after.count == (goes ? 0 : 1), "\(command)")
        }
    }

    /// The ENABLED answer to an ENABLE sent just before a SELECT is ENABLE's, not the mailbox's.
    @Test func enabledWhileASelectIsInFlightIsEnablesAnswer() {
        var machine = Self.machine([.imap4rev1, .enable, .condstore, .qresync])
        _ = machine.enqueue(1, CommandRequest(command: .enable([.qresync]), claim: .enabled), now: Self.now)
        _ = machine.enqueue(2, CommandRequest(command: .select("INBOX")), now: Self.now)
        let actions = Self.feed(
            &machine, "* ENABLED QRESYNC", "M1 OK enabled", "* 3 EXISTS", "* OK [UIDVALIDITY 7] v", "M2 OK done")
        let outcomes = actions.compactMap { if case .succeed(let id, let outcome) = $0 { (id, outcome) } else { nil } }
        #expect(outcomes.map(\.0) == [1, 2])
        #expect(outcomes.first?.1.untagged == [.enabled([.qresync])])
        #expect(outcomes.last?.1.untagged.contains(.enabled([.qresync])) == false)
        #expect(machine.enabled == [.qresync])
        #expect(machine.tracker?.mailbox.messageCount == 3)
    }

    @Test func aSynchronizingLiteralWaitsForPlusAndNothingElseIsWrittenMeanwhile() {
        var machine = Self.machine()
        let search = Command.uidSearch(charset: "UTF-8", keys: [.from("Müller")])
        #expect(
            Self.writes(machine.enqueue(1, CommandRequest(command: search, claim: .search), now: Self.now)) == [
                "M1 UID SEARCH CHARSET UTF-8 FROM {7}\r\n"
            ])
        #expect(Self.writes(machine.enqueue(2, CommandRequest(command: .noop), now: Self.now)).isEmpty)
        #expect(Self.writes(Self.feed(&machine, "+ go on")) == ["Müller\r\n", "M2 NOOP\r\n"])
    }

    @Test func aLiteralRefusedWithNOFailsItsCommandAndFreesTheConnection() {
        var machine = Self.machine()
        let search = Command.uidSearch(charset: "UTF-8", keys: [.from("Müller")])
        _ = machine.enqueue(1, CommandRequest(command: search, claim: .search), now: Self.now)
        _ = machine.enqueue(2, CommandRequest(command: .noop), now: Self.now)
        let actions = Self.feed(&machine, "M1 NO [BADCHARSET (US-ASCII)] no")
        #expect(Self.failed(actions).map(\.0) == [1])
        #expect(Self.writes(actions) == ["M2 NOOP\r\n"])
    }

    @Test func idleStartsWhenNothingRunsAndACommandEndsItWithDone() {
        var machine = Self.machine()
        #expect(Self.writes(machine.setIdleWanted(true, now: Self.now)) == ["M1 IDLE\r\n"])
        #expect(Self.writes(Self.feed(&machine, "+ idling")).isEmpty)
        #expect(machine.idle == .idling(tag: "M1"))
        #expect(Self.writes(machine.enqueue(7, CommandRequest(command: .noop), now: Self.now)) == ["DONE\r\n"])
        #expect(Self.writes(Self.feed(&machine, "M1 OK idle done")) == ["M2 NOOP\r\n"])
        // The command done, IDLE resumes by itself.
        #expect(Self.writes(Self.feed(&machine, "M2 OK done")) == ["M3 IDLE\r\n"])
    }

    @Test func aCommandQueuedWhileIdleStartsEndsItAsSoonAsItIsAccepted() {
        var machine = Self.machine()
        _ = machine.setIdleWanted(true, now: Self.now)
        #expect(Self.writes(machine.enqueue(1, CommandRequest(command: .noop), now: Self.now)).isEmpty)
        #expect(Self.writes(Self.feed(&machine, "+ idling")) == ["DONE\r\n"])
        #expect(machine.idle == .ending(tag: "M1"))
    }

    @Test func renewalAndStoppingEndIdleWithDone() {
        var machine = Self.machine()
        _ = machine.setIdleWanted(true, now: Self.now)
        _ = Self.feed(&machine, "+ idling")
        #expect(Self.writes(machine.renewIdle()) == ["DONE\r\n"])
        #expect(Self.writes(Self.feed(&machine, "M1 OK done")) == ["M2 IDLE\r\n"])
        _ = Self.feed(&machine, "+ idling")
        #expect(Self.writes(machine.setIdleWanted(false, now: Self.now)) == ["DONE\r\n"])
        #expect(Self.writes(Self.feed(&machine, "M2 OK done")).isEmpty)
        #expect(machine.idle == .off)
    }

    /// IDLE belongs to the authenticated phase: a listener's wish before the login waits for it,
    /// and an ended session keeps what it had selected (a reconnect takes its UID map) but
    /// accepts nothing.
    @Test func idleWantedBeforeTheLoginStartsWithTheAuthenticatedPhase() {
        var machine = ClientStateMachine(capabilities: [.imap4rev1, .idle], isAuthenticated: false)
        #expect(Self.writes(machine.setIdleWanted(true, now: Self.now)).isEmpty)
        #expect(!machine.canIdle)
        let login = Command.login(username: ByteString("alice"), password: ByteString("secret"))
        #expect(Self.writes(machine.enqueue(1, CommandRequest(command: login), now: Self.now)).count == 1)
        #expect(Self.writes(Self.feed(&machine, "M1 OK logged in")) == ["M2 IDLE\r\n"])
        #expect(machine.isAuthenticated)
        #expect(machine.idle == .starting(tag: "M2"))
        _ = Self.feed(&machine, "+ idling")
        let ended = machine.end(with: IMAPError(.connection, "gone"))
        #expect(Self.writes(ended).isEmpty)
        #expect(machine.idle == .off)
        #expect(machine.isAuthenticated)
        #expect(Self.failed(machine.enqueue(3, CommandRequest(command: .noop), now: Self.now)).map(\.0) == [3])
    }

    @Test func aServerThatRefusesIdleIsPolledInstead() {
        var machine = Self.machine()
        _ = machine.setIdleWanted(true, now: Self.now)
        #expect(Self.writes(Self.feed(&machine, "M1 BAD unknown command")).isEmpty)
        #expect(!machine.canIdle)
    }

    @Test func aStreamingFetchGetsItsMessagesAndOthersBecomeEventsByUID() {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .select("INBOX")), now: Self.now)
        _ = Self.feed(&machine, "* 3 EXISTS", "* OK [UIDVALIDITY 9] ok", "M1 OK [READ-WRITE] done")
        let set = SequenceSet(numbers: [10, 11])
        _ = machine.enqueue(
            2,
            CommandRequest(
                command: .uidFetch(set, [.uid, .envelope]), claim: .fetch(set, kinds: [.envelope]), streams: true),
            now: Self.now)
        let actions = Self.feed(
            &machine, "* 1 FETCH (UID 10 ENVELOPE (NIL \"a\" NIL NIL NIL NIL NIL NIL NIL NIL))",
            "* 2 FETCH (UID 11 ENVELOPE (NIL \"b\" NIL NIL NIL NIL NIL NIL NIL NIL))", "* 3 FETCH (FLAGS (\\Seen))",
            "* 2 FETCH (FLAGS (\\Flagged))", "M2 OK done")
        let yielded = actions.compactMap { if case .yield(2, let fetch) = $0 { fetch.uid } else { nil } }
        #expect(yielded == [10, 11])
        // Sequence 3's UID is unknown (a resync is needed); sequence 2 is UID 11.
        #expect(
            machine.takeEvents() == [
                .resyncNeeded, .flagsChanged(uid: 11, flags: [.flagged], modificationSequence: nil),
            ])
    }

    @Test func expungesAreReportedByUIDFromTheMap() {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .select("INBOX")), now: Self.now)
        _ = Self.feed(&machine, "* 4 EXISTS", "M1 OK done")
        let search = CommandRequest(command: .uidSearch(keys: [.all]), claim: .search, mapsAllUIDs: true)
        _ = machine.enqueue(2, search, now: Self.now)
        _ = Self.feed(&machine, "* SEARCH 3 5 8 13", "M2 OK done")
        #expect(machine.tracker?.isMapComplete == true)
        _ = Self.feed(&machine, "* 2 EXPUNGE", "* 2 EXPUNGE", "* VANISHED 13", "* 5 EXISTS")
        #expect(
            machine.takeEvents() == [
                .expunged(SequenceSet(5)), .expunged(SequenceSet(8)), .expunged(SequenceSet(13)), .messageCount(5),
            ])
        #expect(machine.tracker?.uids == [3, 0, 0, 0, 0])
    }

    /// A machine with INBOX (3 messages) selected and `M2 UID SEARCH ALL` in flight, its answer
    /// to become the map (`mapsAllUIDs`).
    static func searchingEveryMessage() -> ClientStateMachine {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .select("INBOX")), now: Self.now)
        _ = Self.feed(&machine, "* 3 EXISTS", "M1 OK done")
        let search = CommandRequest(command: .uidSearch(keys: [.all]), claim: .search, mapsAllUIDs: true)
        _ = machine.enqueue(2, search, now: Self.now)
        return machine
    }

    @Test func aSearchOfEveryMessageBecomesTheMapWhenItEndsBeforeLaterResponses() {
        var machine = Self.searchingEveryMessage()
        // The answer and its end, then (in the same read) another client's expunge and new mail.
        _ = Self.feed(&machine, "* SEARCH 10 11 12", "M2 OK done", "* 2 EXPUNGE", "* 3 EXISTS")
        #expect(machine.tracker?.uids == [10, 12, 0])
        #expect(machine.takeEvents() == [.expunged(SequenceSet(11)), .messageCount(3)])
    }

    @Test func aSearchAnswerOvertakenByAnExpungeIsNotTheMap() {
        var machine = Self.searchingEveryMessage()
        // The answer lists UID 11, which goes before the command ends (EXPUNGE is allowed during
        // a UID command): the list is out of date, and the count alone would not show it.
        _ = Self.feed(&machine, "* SEARCH 10 11 12", "* 2 EXPUNGE", "* 3 EXISTS", "M2 OK done")
        #expect(machine.tracker?.uids == [0, 0, 0])
        #expect(machine.tracker?.isMapComplete == false)
    }

    @Test func eventsPastTheBufferBecomeOneResyncNeeded() {
        var machine = Self.machine(events: 3)
        _ = machine.enqueue(1, CommandRequest(command: .select("INBOX")), now: Self.now)
        _ = Self.feed(&machine, "M1 OK done")
        for count in 1...10 { _ = Self.feed(&machine, "* \(count) EXISTS") }
        let events = machine.takeEvents()
        #expect(events.first == .resyncNeeded)
        #expect(events.count <= 3)
        #expect(events.last == .messageCount(10))
    }

    @Test func reselectingWithAnotherUIDValidityIsAnEventAndAFailedSelectLeavesNoMailbox() {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .select("INBOX")), now: Self.now)
        _ = Self.feed(&machine, "* OK [UIDVALIDITY 5] ok", "M1 OK done")
        _ = machine.enqueue(2, CommandRequest(command: .select("INBOX")), now: Self.now)
        _ = Self.feed(&machine, "* OK [UIDVALIDITY 6] ok", "M2 OK done")
        #expect(machine.takeEvents() == [.uidValidityChanged(mailbox: "INBOX", old: 5, new: 6)])
        _ = machine.enqueue(3, CommandRequest(command: .select("Nope")), now: Self.now)
        _ = Self.feed(&machine, "M3 NO no such mailbox")
        #expect(machine.tracker == nil)
    }

    @Test func aCommandForAMailboxNoLongerSelectedFailsInsteadOfRunning() {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .select("INBOX")), now: Self.now)
        _ = Self.feed(&machine, "* OK [UIDVALIDITY 5] ok", "M1 OK done")
        _ = machine.enqueue(2, CommandRequest(command: .select("Archive")), now: Self.now)
        let store = CommandRequest(
            command: .uidStore(SequenceSet(4), StoreFlags(.add, silent: true, flags: [.seen])),
            claim: .store(SequenceSet(4)),
            expectedMailbox: MailboxExpectation(name: "INBOX", uidValidity: 5))
        #expect(Self.writes(machine.enqueue(3, store, now: Self.now)).isEmpty)
        let actions = Self.feed(&machine, "M2 OK done")
        #expect(Self.writes(actions).isEmpty)
        #expect(Self.failed(actions).map(\.1) == [.mailboxChanged])
    }

    @Test func cancellingAQueuedCommandDropsItAndASentOneIsAbandoned() {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .uidSearch(keys: [.all]), claim: .search), now: Self.now)
        _ = machine.enqueue(2, CommandRequest(command: .uidSearch(keys: [.seen]), claim: .search), now: Self.now)
        #expect(Self.failed(machine.cancel(2, now: Self.now)).map(\.1) == [.cancelled])
        #expect(Self.failed(machine.cancel(1, now: Self.now)).map(\.1) == [.cancelled])
        // The abandoned command's answer is read and dropped; nothing else is sent.
        let actions = Self.feed(&machine, "* SEARCH 4", "M1 OK done")
        #expect(actions.isEmpty)
        #expect(machine.takeEvents().isEmpty)
    }

    @Test func aBrokenConnectionFailsEverythingWithTheServersByeText() {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .noop), now: Self.now)
        _ = machine.enqueue(2, CommandRequest(command: .select("INBOX")), now: Self.now)
        _ = Self.feed(&machine, "* BYE shutting down")
        let closed = IMAPError(.connection, "closed", transportCode: .connectionClosed)
        let actions = machine.connectionFailed(closed)
        #expect(Self.failed(actions).map(\.0) == [1, 2])
        #expect(Self.failed(actions).allSatisfy { $0.1 == .bye })
        #expect(machine.failure?.message.contains("shutting down") == true)
        #expect(Self.failed(machine.enqueue(3, CommandRequest(command: .noop), now: Self.now)).map(\.1) == [.bye])
    }

    @Test func aSilentServerTimesOutButAnIdlingOneDoesNot() {
        var machine = Self.machine()
        _ = machine.enqueue(1, CommandRequest(command: .noop), now: Self.now)
        #expect(machine.tick(now: Self.now + .seconds(5), inactivityLimit: .seconds(10)).isEmpty)
        let actions = machine.tick(now: Self.now + .seconds(11), inactivityLimit: .seconds(10))
        #expect(Self.failed(actions).map(\.1) == [.timeout])
        var idling = Self.machine()
        _ = idling.setIdleWanted(true, now: Self.now)
        _ = idling.received(Self.parse("+ idling\r\n"), now: Self.now)
        #expect(idling.tick(now: Self.now + .seconds(3600), inactivityLimit: .seconds(10)).isEmpty)
    }

    @Test func saslChallengesGoToTheDriver() {
        var machine = Self.machine()
        _ = machine.enqueue(
            1, CommandRequest(command: .authenticate(mechanism: "PLAIN"), answersChallenges: true), now: Self.now)
        let actions = Self.feed(&machine, "+ ")
        guard case .challenge(1, _)? = actions.first else {
            Issue.record("no challenge: \(actions)")
            return
        }
        #expect(Self.writes(machine.challengeAnswered(1, Array("AGEAYg==\r\n".utf8))) == ["AGEAYg==\r\n"])
    }

    @Test func anESEARCHWithAnotherCommandsTagIsNotClaimed() throws {
        let claim = CommandClaim.search
        var parser = ResponseParser()
        parser.append(Array("* ESEARCH (TAG \"M9\") UID COUNT 3\r\n".utf8))
        guard case .untagged(let response)? = try parser.next() else {
            Issue.record("did not parse")
            return
        }
        #expect(!claim.claims(response, tag: "M1"))
        #expect(claim.claims(response, tag: "M9"))
    }

    /// Every state the machine can be in, reached by events.
    enum Situation: String, CaseIterable {
        case notAuthenticated, loggingIn, selectingBeforeLogin, fresh, commandInFlight, literalPending, selecting,
            selected, idleStarting, idling,
            idleEnding, ended
    }

    /// Every event the machine takes.
    enum Event: String, CaseIterable {
        case enqueue, cancel, plus, taggedOK, untaggedExists, untaggedFetch, bye, connectionFailed, tick, wantIdle,
            stopIdle, renew, challengeAnswer
    }

    static func machine(in situation: Situation) -> ClientStateMachine {
        var machine = Self.machine()
        switch situation {
        case .notAuthenticated:
            machine = ClientStateMachine(
                capabilities: [.imap4rev1, .idle], isAuthenticated: false, eventCapacity: 5000)
        case .loggingIn:
            machine = ClientStateMachine(
                capabilities: [.imap4rev1, .idle], isAuthenticated: false, eventCapacity: 5000)
            let login = Command.login(username: ByteString("alice"), password: ByteString("secret"))
            _ = machine.enqueue(1, CommandRequest(command: login), now: now)
        case .selectingBeforeLogin:
            // After PREAUTH or a login this machine did not see: the SELECT's OK proves it.
            machine = ClientStateMachine(
                capabilities: [.imap4rev1, .idle], isAuthenticated: false, eventCapacity: 5000)
            _ = machine.enqueue(1, CommandRequest(command: .select("INBOX")), now: now)
        case .fresh: break
        case .selected:
            _ = machine.enqueue(1, CommandRequest(command: .select("INBOX")), now: now)
            _ = machine.received(parse("* 3 EXISTS\r\n"), now: now)
            _ = machine.received(parse("* OK [UIDVALIDITY 7] ok\r\n"), now: now)
            _ = machine.received(parse("M1 OK [READ-WRITE] done\r\n"), now: now)
        case .commandInFlight: _ = machine.enqueue(1, CommandRequest(command: .noop), now: now)
        case .literalPending:
            _ = machine.enqueue(
                1, CommandRequest(command: .uidSearch(charset: "UTF-8", keys: [.from("Müller")]), claim: .search),
                now: now)
        case .selecting: _ = machine.enqueue(1, CommandRequest(command: .select("INBOX")), now: now)
        case .idleStarting: _ = machine.setIdleWanted(true, now: now)
        case .idling:
            _ = machine.setIdleWanted(true, now: now)
            _ = machine.received(parse("+ idling\r\n"), now: now)
        case .idleEnding:
            _ = machine.setIdleWanted(true, now: now)
            _ = machine.received(parse("+ idling\r\n"), now: now)
            _ = machine.renewIdle()
        case .ended: _ = machine.end(with: IMAPError(.cancelled, "closed"))
        }
        return machine
    }

    /// What one event does in one state, written out: the actions in order, then the phase,
    /// where IDLE is, how many commands are active, whether a mailbox is selected and whether the
    /// session has ended.
    static func outcome(_ situation: Situation, _ event: Event) -> String {
        var machine = Self.machine(in: situation)
        let actions = Self.apply(event, to: &machine)
        let described = actions.map { action -> String in
            switch action {
            case .write(let bytes, _): return "write \(String(decoding: bytes, as: UTF8.self).debugDescription)"
            case .succeed(let id, _): return "ok \(id)"
            case .fail(let id, let error): return "fail \(id) \(error.code)"
            case .yield(let id, _): return "yield \(id)"
            case .challenge(let id, _): return "challenge \(id)"
            case .eventsAvailable: return "events \(machine.takeEvents().count)"
            case .closeConnection(let error): return "close \(error.code)"
            }
        }
        let phase: String
        switch machine.phase {
        case .notAuthenticated: phase = "notAuthenticated"
        case .authenticated: phase = "authenticated"
        case .ended: phase = "ended"
        }
        let idle: String
        switch machine.idle {
        case .off: idle = "off"
        case .starting(let tag): idle = "starting \(tag)"
        case .idling(let tag): idle = "idling \(tag)"
        case .ending(let tag): idle = "ending \(tag)"
        }
        let state =
            "\(phase), idle \(idle), active \(machine.activeCommandCount), selected \(machine.tracker != nil), "
            + "ended \(machine.failure != nil)"
        return (described + [state]).joined(separator: "; ")
    }

    static func apply(_ event: Event, to machine: inout ClientStateMachine) -> [Action] {
        switch event {
        case .enqueue: return machine.enqueue(9, CommandRequest(command: .noop), now: Self.now)
        case .cancel: return machine.cancel(1, now: Self.now)
        case .plus: return machine.received(Self.parse("+ go\r\n"), now: Self.now)
        case .taggedOK: return machine.received(Self.parse("M1 OK done\r\n"), now: Self.now)
        case .untaggedExists: return machine.received(Self.parse("* 4 EXISTS\r\n"), now: Self.now)
        case .untaggedFetch:
            return machine.received(Self.parse("* 1 FETCH (UID 4 FLAGS (\\Seen))\r\n"), now: Self.now)
        case .bye: return machine.received(Self.parse("* BYE bye\r\n"), now: Self.now)
        case .connectionFailed: return machine.connectionFailed(IMAPError(.connection, "gone"))
        case .tick: return machine.tick(now: Self.now + .seconds(120), inactivityLimit: .seconds(60))
        case .wantIdle: return machine.setIdleWanted(true, now: Self.now)
        case .stopIdle: return machine.setIdleWanted(false, now: Self.now)
        case .renew: return machine.renewIdle()
        case .challengeAnswer: return machine.challengeAnswered(1, Array("x\r\n".utf8))
        }
    }

    @Test(arguments: Situation.allCases, Event.allCases)
    func everyStateAndEventHasItsWrittenOutcome(situation: Situation, event: Event) {
        let key = "\(situation.rawValue) + \(event.rawValue)"
        let outcome = Self.outcome(situation, event)
        #expect(Self.expectedOutcomes[key] == outcome, "\(key)")
    }

    @Test(arguments: Situation.allCases, Event.allCases)
    func everyStateTakesEveryEvent(situation: Situation, event: Event) {
        var machine = Self.machine(in: situation)
        let actions = Self.apply(event, to: &machine)
        // Invariants: every write is whole lines or a literal's bytes; an ended machine writes
        // nothing and fails new commands at once; a closed connection is announced once.
        let writes = Self.writes(actions)
        if situation == .ended {
            #expect(writes.isEmpty)
            if event == .enqueue { #expect(Self.failed(actions).map(\.0) == [9]) }
        }
        for write in writes where situation != .literalPending || event != .plus { #expect(write.hasSuffix("\r\n")) }
        let closes = actions.filter { if case .closeConnection = $0 { true } else { false } }.count
        #expect(closes <= 1)
        if event == .connectionFailed && situation != .ended {
            #expect(closes == 1)
            #expect(machine.failure != nil)
        }
        // IDLE never runs beside a command.
        if case .idling = machine.idle { #expect(machine.activeCommandCount == 0 || writes.contains("DONE\r\n")) }
        // What each state must do with the event.
        switch (situation, event) {
        case (.idling, .enqueue): #expect(writes == ["DONE\r\n"])
        case (.idleStarting, .plus): #expect(machine.idle == .idling(tag: "M1"))
        case (.literalPending, .plus): #expect(writes == ["Müller\r\n"])
        case (.commandInFlight, .taggedOK): #expect(Self.succeeded(actions) == [1])
        case (.commandInFlight, .tick): #expect(Self.failed(actions).map(\.1) == [.timeout])
        case (.idling, .tick): #expect(actions.isEmpty)
        case (.idling, .renew), (.idling, .stopIdle): #expect(writes == ["DONE\r\n"])
        case (.fresh, .wantIdle): #expect(writes == ["M1 IDLE\r\n"])
        case (.selecting, .untaggedExists): #expect(machine.tracker == nil)
        default: break
        }
    }

    /// Every state's answer to every event, written out, with the connection's phase it leaves
    /// (each row was read and checked against RFC 3501/2177 and the session's rules: e.g. nothing
    /// is sent beside a pending literal or a SELECT, IDLE only when authenticated and idle, an
    /// answer to a challenge only for a command that takes challenges, a wait for IDLE's `+` that
    /// times out like any command, only a LOGIN's or a SELECT's OK leaves `notAuthenticated`).
    static let expectedOutcomes: [String: String] = [
        "notAuthenticated + enqueue":
            "write \"M1 NOOP\\r\\n\"; notAuthenticated, idle off, active 1, selected false, ended false",
        "notAuthenticated + cancel": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + plus": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + taggedOK": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + untaggedExists": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + untaggedFetch": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + bye": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + connectionFailed":
            "events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "notAuthenticated + tick": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + wantIdle": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + stopIdle": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + renew": "notAuthenticated, idle off, active 0, selected false, ended false",
        "notAuthenticated + challengeAnswer": "notAuthenticated, idle off, active 0, selected false, ended false",
        "loggingIn + enqueue": "notAuthenticated, idle off, active 2, selected false, ended false",
        "loggingIn + cancel": "fail 1 cancelled; notAuthenticated, idle off, active 1, selected false, ended false",
        "loggingIn + plus": "notAuthenticated, idle off, active 1, selected false, ended false",
        "loggingIn + taggedOK": "ok 1; authenticated, idle off, active 0, selected false, ended false",
        "loggingIn + untaggedExists": "notAuthenticated, idle off, active 1, selected false, ended false",
        "loggingIn + untaggedFetch": "notAuthenticated, idle off, active 1, selected false, ended false",
        "loggingIn + bye": "notAuthenticated, idle off, active 1, selected false, ended false",
        "loggingIn + connectionFailed":
            "fail 1 connection; events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "loggingIn + tick":
            "fail 1 timeout; events 0; close timeout; ended, idle off, active 0, selected false, ended true",
        "loggingIn + wantIdle": "notAuthenticated, idle off, active 1, selected false, ended false",
        "loggingIn + stopIdle": "notAuthenticated, idle off, active 1, selected false, ended false",
        "loggingIn + renew": "notAuthenticated, idle off, active 1, selected false, ended false",
        "loggingIn + challengeAnswer": "notAuthenticated, idle off, active 1, selected false, ended false",
        "selectingBeforeLogin + enqueue": "notAuthenticated, idle off, active 2, selected false, ended false",
        "selectingBeforeLogin + cancel":
            "fail 1 cancelled; notAuthenticated, idle off, active 1, selected false, ended false",
        "selectingBeforeLogin + plus": "notAuthenticated, idle off, active 1, selected false, ended false",
        "selectingBeforeLogin + taggedOK": "ok 1; authenticated, idle off, active 0, selected true, ended false",
        "selectingBeforeLogin + untaggedExists": "notAuthenticated, idle off, active 1, selected false, ended false",
        "selectingBeforeLogin + untaggedFetch": "notAuthenticated, idle off, active 1, selected false, ended false",
        "selectingBeforeLogin + bye": "notAuthenticated, idle off, active 1, selected false, ended false",
        "selectingBeforeLogin + connectionFailed":
            "fail 1 connection; events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "selectingBeforeLogin + tick":
            "fail 1 timeout; events 0; close timeout; ended, idle off, active 0, selected false, ended true",
        "selectingBeforeLogin + wantIdle": "notAuthenticated, idle off, active 1, selected false, ended false",
        "selectingBeforeLogin + stopIdle": "notAuthenticated, idle off, active 1, selected false, ended false",
        "selectingBeforeLogin + renew": "notAuthenticated, idle off, active 1, selected false, ended false",
        "selectingBeforeLogin + challengeAnswer": "notAuthenticated, idle off, active 1, selected false, ended false",
        "fresh + enqueue": "write \"M1 NOOP\\r\\n\"; authenticated, idle off, active 1, selected false, ended false",
        "fresh + cancel": "authenticated, idle off, active 0, selected false, ended false",
        "fresh + plus": "authenticated, idle off, active 0, selected false, ended false",
        "fresh + taggedOK": "authenticated, idle off, active 0, selected false, ended false",
        "fresh + untaggedExists": "authenticated, idle off, active 0, selected false, ended false",
        "fresh + untaggedFetch": "authenticated, idle off, active 0, selected false, ended false",
        "fresh + bye": "authenticated, idle off, active 0, selected false, ended false",
        "fresh + connectionFailed": "events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "fresh + tick": "authenticated, idle off, active 0, selected false, ended false",
        "fresh + wantIdle":
            "write \"M1 IDLE\\r\\n\"; authenticated, idle starting M1, active 0, selected false, ended false",
        "fresh + stopIdle": "authenticated, idle off, active 0, selected false, ended false",
        "fresh + renew": "authenticated, idle off, active 0, selected false, ended false",
        "fresh + challengeAnswer": "authenticated, idle off, active 0, selected false, ended false",
        "commandInFlight + enqueue":
            "write \"M2 NOOP\\r\\n\"; authenticated, idle off, active 2, selected false, ended false",
        "commandInFlight + cancel": "fail 1 cancelled; authenticated, idle off, active 1, selected false, ended false",
        "commandInFlight + plus": "authenticated, idle off, active 1, selected false, ended false",
        "commandInFlight + taggedOK": "ok 1; authenticated, idle off, active 0, selected false, ended false",
        "commandInFlight + untaggedExists": "authenticated, idle off, active 1, selected false, ended false",
        "commandInFlight + untaggedFetch": "authenticated, idle off, active 1, selected false, ended false",
        "commandInFlight + bye": "authenticated, idle off, active 1, selected false, ended false",
        "commandInFlight + connectionFailed":
            "fail 1 connection; events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "commandInFlight + tick":
            "fail 1 timeout; events 0; close timeout; ended, idle off, active 0, selected false, ended true",
        "commandInFlight + wantIdle": "authenticated, idle off, active 1, selected false, ended false",
        "commandInFlight + stopIdle": "authenticated, idle off, active 1, selected false, ended false",
        "commandInFlight + renew": "authenticated, idle off, active 1, selected false, ended false",
        "commandInFlight + challengeAnswer": "authenticated, idle off, active 1, selected false, ended false",
        "literalPending + enqueue": "authenticated, idle off, active 2, selected false, ended false",
        "literalPending + cancel": "fail 1 cancelled; authenticated, idle off, active 1, selected false, ended false",
        "literalPending + plus":
            "write \"Müller\\r\\n\"; authenticated, idle off, active 1, selected false, ended false",
        "literalPending + taggedOK": "ok 1; authenticated, idle off, active 0, selected false, ended false",
        "literalPending + untaggedExists": "authenticated, idle off, active 1, selected false, ended false",
        "literalPending + untaggedFetch": "authenticated, idle off, active 1, selected false, ended false",
        "literalPending + bye": "authenticated, idle off, active 1, selected false, ended false",
        "literalPending + connectionFailed":
            "fail 1 connection; events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "literalPending + tick":
            "fail 1 timeout; events 0; close timeout; ended, idle off, active 0, selected false, ended true",
        "literalPending + wantIdle": "authenticated, idle off, active 1, selected false, ended false",
        "literalPending + stopIdle": "authenticated, idle off, active 1, selected false, ended false",
        "literalPending + renew": "authenticated, idle off, active 1, selected false, ended false",
        "literalPending + challengeAnswer": "authenticated, idle off, active 1, selected false, ended false",
        "selecting + enqueue": "authenticated, idle off, active 2, selected false, ended false",
        "selecting + cancel": "fail 1 cancelled; authenticated, idle off, active 1, selected false, ended false",
        "selecting + plus": "authenticated, idle off, active 1, selected false, ended false",
        "selecting + taggedOK": "ok 1; authenticated, idle off, active 0, selected true, ended false",
        "selecting + untaggedExists": "authenticated, idle off, active 1, selected false, ended false",
        "selecting + untaggedFetch": "authenticated, idle off, active 1, selected false, ended false",
        "selecting + bye": "authenticated, idle off, active 1, selected false, ended false",
        "selecting + connectionFailed":
            "fail 1 connection; events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "selecting + tick":
            "fail 1 timeout; events 0; close timeout; ended, idle off, active 0, selected false, ended true",
        "selecting + wantIdle": "authenticated, idle off, active 1, selected false, ended false",
        "selecting + stopIdle": "authenticated, idle off, active 1, selected false, ended false",
        "selecting + renew": "authenticated, idle off, active 1, selected false, ended false",
        "selecting + challengeAnswer": "authenticated, idle off, active 1, selected false, ended false",
        "selected + enqueue": "write \"M2 NOOP\\r\\n\"; authenticated, idle off, active 1, selected true, ended false",
        "selected + cancel": "authenticated, idle off, active 0, selected true, ended false",
        "selected + plus": "authenticated, idle off, active 0, selected true, ended false",
        "selected + taggedOK": "authenticated, idle off, active 0, selected true, ended false",
        "selected + untaggedExists": "events 1; authenticated, idle off, active 0, selected true, ended false",
        "selected + untaggedFetch": "events 1; authenticated, idle off, active 0, selected true, ended false",
        "selected + bye": "authenticated, idle off, active 0, selected true, ended false",
        "selected + connectionFailed":
            "events 0; close connection; ended, idle off, active 0, selected true, ended true",
        "selected + tick": "authenticated, idle off, active 0, selected true, ended false",
        "selected + wantIdle":
            "write \"M2 IDLE\\r\\n\"; authenticated, idle starting M2, active 0, selected true, ended false",
        "selected + stopIdle": "authenticated, idle off, active 0, selected true, ended false",
        "selected + renew": "authenticated, idle off, active 0, selected true, ended false",
        "selected + challengeAnswer": "authenticated, idle off, active 0, selected true, ended false",
        "idleStarting + enqueue": "authenticated, idle starting M1, active 1, selected false, ended false",
        "idleStarting + cancel": "authenticated, idle starting M1, active 0, selected false, ended false",
        "idleStarting + plus": "authenticated, idle idling M1, active 0, selected false, ended false",
        "idleStarting + taggedOK":
            "write \"M2 IDLE\\r\\n\"; authenticated, idle starting M2, active 0, selected false, ended false",
        "idleStarting + untaggedExists": "authenticated, idle starting M1, active 0, selected false, ended false",
        "idleStarting + untaggedFetch": "authenticated, idle starting M1, active 0, selected false, ended false",
        "idleStarting + bye": "authenticated, idle starting M1, active 0, selected false, ended false",
        "idleStarting + connectionFailed":
            "events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "idleStarting + tick": "events 0; close timeout; ended, idle off, active 0, selected false, ended true",
        "idleStarting + wantIdle": "authenticated, idle starting M1, active 0, selected false, ended false",
        "idleStarting + stopIdle": "authenticated, idle starting M1, active 0, selected false, ended false",
        "idleStarting + renew": "authenticated, idle starting M1, active 0, selected false, ended false",
        "idleStarting + challengeAnswer": "authenticated, idle starting M1, active 0, selected false, ended false",
        "idling + enqueue":
            "write \"DONE\\r\\n\"; authenticated, idle ending M1, active 1, selected false, ended false",
        "idling + cancel": "authenticated, idle idling M1, active 0, selected false, ended false",
        "idling + plus": "authenticated, idle idling M1, active 0, selected false, ended false",
        "idling + taggedOK":
            "write \"M2 IDLE\\r\\n\"; authenticated, idle starting M2, active 0, selected false, ended false",
        "idling + untaggedExists": "authenticated, idle idling M1, active 0, selected false, ended false",
        "idling + untaggedFetch": "authenticated, idle idling M1, active 0, selected false, ended false",
        "idling + bye": "authenticated, idle idling M1, active 0, selected false, ended false",
        "idling + connectionFailed":
            "events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "idling + tick": "authenticated, idle idling M1, active 0, selected false, ended false",
        "idling + wantIdle": "authenticated, idle idling M1, active 0, selected false, ended false",
        "idling + stopIdle":
            "write \"DONE\\r\\n\"; authenticated, idle ending M1, active 0, selected false, ended false",
        "idling + renew": "write \"DONE\\r\\n\"; authenticated, idle ending M1, active 0, selected false, ended false",
        "idling + challengeAnswer": "authenticated, idle idling M1, active 0, selected false, ended false",
        "idleEnding + enqueue": "authenticated, idle ending M1, active 1, selected false, ended false",
        "idleEnding + cancel": "authenticated, idle ending M1, active 0, selected false, ended false",
        "idleEnding + plus": "authenticated, idle ending M1, active 0, selected false, ended false",
        "idleEnding + taggedOK":
            "write \"M2 IDLE\\r\\n\"; authenticated, idle starting M2, active 0, selected false, ended false",
        "idleEnding + untaggedExists": "authenticated, idle ending M1, active 0, selected false, ended false",
        "idleEnding + untaggedFetch": "authenticated, idle ending M1, active 0, selected false, ended false",
        "idleEnding + bye": "authenticated, idle ending M1, active 0, selected false, ended false",
        "idleEnding + connectionFailed":
            "events 0; close connection; ended, idle off, active 0, selected false, ended true",
        "idleEnding + tick": "events 0; close timeout; ended, idle off, active 0, selected false, ended true",
        "idleEnding + wantIdle": "authenticated, idle ending M1, active 0, selected false, ended false",
        "idleEnding + stopIdle": "authenticated, idle ending M1, active 0, selected false, ended false",
        "idleEnding + renew": "authenticated, idle ending M1, active 0, selected false, ended false",
        "idleEnding + challengeAnswer": "authenticated, idle ending M1, active 0, selected false, ended false",
        "ended + enqueue": "fail 9 cancelled; ended, idle off, active 0, selected false, ended true",
        "ended + cancel": "ended, idle off, active 0, selected false, ended true",
        "ended + plus": "ended, idle off, active 0, selected false, ended true",
        "ended + taggedOK": "ended, idle off, active 0, selected false, ended true",
        "ended + untaggedExists": "ended, idle off, active 0, selected false, ended true",
        "ended + untaggedFetch": "ended, idle off, active 0, selected false, ended true",
        "ended + bye": "ended, idle off, active 0, selected false, ended true",
        "ended + connectionFailed": "ended, idle off, active 0, selected false, ended true",
        "ended + tick": "ended, idle off, active 0, selected false, ended true",
        "ended + wantIdle": "ended, idle off, active 0, selected false, ended true",
        "ended + stopIdle": "ended, idle off, active 0, selected false, ended true",
        "ended + renew": "ended, idle off, active 0, selected false, ended true",
        "ended + challengeAnswer": "ended, idle off, active 0, selected false, ended true",
    ]
}
