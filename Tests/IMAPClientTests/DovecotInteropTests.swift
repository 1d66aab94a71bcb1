import IMAPClient
import IMAPCore
import TestSupport
import Testing
import Transport

/// The client against a real Dovecot 2.3 (scripts/dovecot.sh). Skipped, with this message, only
/// where Dovecot is not installed and `MAILSEARCH_REQUIRE_DOVECOT` is not 1; CI requires it.
@Suite(
    .hangGuard,
    .enabled("Dovecot is not installed (apt-get install dovecot-imapd)") { try Dovecot.isAvailable() },
    .timeLimit(.minutes(3)))
struct DovecotInteropTests {
    @Test func implicitTLSConnectsAndLogsIn() async throws {
        let dovecot = try await Dovecot.shared()
        let session = try await IMAPSession.connect(dovecot.configuration())
        #expect(await session.capabilities.contains(.imap4rev1))
        try await session.login(.password(user: "alice", password: Dovecot.password))
        #expect(await session.isAuthenticated)
        // Capabilities are refreshed after login (Dovecot adds SORT, ESEARCH, CONDSTORE ...).
        #expect(await session.capabilities.contains(.sort))
        #expect(await session.enabled.contains(.condstore))
        let inbox = try await session.select("INBOX")
        #expect(inbox.messageCount == UInt32(Dovecot.largeMailboxSize))
        #expect(inbox.uidValidity != nil)
        #expect(inbox.uidNext == UInt32(Dovecot.largeMailboxSize) + 1)
        #expect(inbox.permanentFlags.contains(.wildcard))
        #expect(inbox.highestModificationSequence != nil)
        await session.logout()
    }

    @Test func startTLSConnectsAndLogsIn() async throws {
        let dovecot = try await Dovecot.shared()
        let tls = ClientTLSConfiguration(additionalTrustPEM: dovecot.certificatePEM)
        let session = try await IMAPSession.connect(dovecot.configuration(security: .startTLS(tls)))
        try await session.login(.password(user: "bob", password: Dovecot.password))
        let status = try await session.status("INBOX")
        #expect(status.messageCount ?? 0 >= 300)
        await session.logout()
    }

    @Test func wrongPasswordIsAnAuthenticationError() async throws {
        let dovecot = try await Dovecot.shared()
        let session = try await IMAPSession.connect(dovecot.configuration())
        do {
            try await session.login(.password(user: "alice", password: "not-the-password"))
            Issue.record("logged in with a wrong password")
        } catch {
            #expect(error.code == .authentication)
            #expect(error.responseCode == .authenticationFailed)
            #expect(!error.message.contains("not-the-password"))
        }
        await session.close()
    }

    @Test func plainTextServerOnATLSPortIsATLSError() async throws {
        let dovecot = try await Dovecot.shared()
        var configuration = dovecot.configuration()
        configuration.port = dovecot.imapPort
        do {
            _ = try await IMAPSession.connect(configuration)
            Issue.record("connected with TLS to a plain-text port")
        } catch {
            #expect(error.code == .tls)
            #expect(error.transportCode == .notTLS)
        }
    }

    @Test func credentialsAreNeverLoggedAndTheTraceIsRedacted() async throws {
        let dovecot = try await Dovecot.shared()
        let memory = MemoryLogHandler()
        let session = try await IMAPSession.connect(
            dovecot.configuration(logger: Logger(label: "test", level: .trace, handler: memory)))
        try await session.login(.password(user: "alice", password: Dovecot.password))
        await session.logout()
        let trace = memory.messages.joined(separator: "\n")
        #expect(trace.contains("AUTHENTICATE PLAIN ***") || trace.contains("LOGIN ***"))
        #expect(!trace.contains(Dovecot.password))
        #expect(!trace.contains("AGFsaWNl"))  // base64 of "\0alice", the start of the PLAIN token
    }

    struct SearchCase: Sendable, CustomTestStringConvertible {
        let keys: [SearchKey]
        let doveadm: [String]
        var testDescription: String { doveadm.joined(separator: " ") }
    }

    static let searches: [SearchCase] = [
        SearchCase(keys: [.from("grace")], doveadm: ["from", "grace"]),
        SearchCase(keys: [.subject("invoice")], doveadm: ["subject", "invoice"]),
        SearchCase(keys: [.unseen, .flagged], doveadm: ["unseen", "flagged"]),
        SearchCase(
            keys: [.or(.from("apple.com"), .to("bob"))], doveadm: ["(", "from", "apple.com", "OR", "to", "bob", ")"]),
        SearchCase(keys: [.body("quarterly"), .larger(3000)], doveadm: ["body", "quarterly", "larger", "3000"]),
        SearchCase(keys: [.from("Søren")], doveadm: ["from", "Søren"]),
        SearchCase(keys: [.subject("会议")], doveadm: ["subject", "会议"]),
        SearchCase(keys: [.from("Zoë"), .not(.seen)], doveadm: ["from", "Zoë", "not", "seen"]),
    ]

    @Test(arguments: searches) func searchEqualsDovecotsOwnAnswerOnEveryPath(search: SearchCase) async throws {
        let dovecot = try await Dovecot.shared()
        let expected = try await dovecot.doveadmSearch(search.doveadm).sorted(by: >)
        #expect(!expected.isEmpty, "the generated mailbox should match \(search.doveadm)")
        // SORT, then ESEARCH without SORT, then plain SEARCH without either.
        for ignored in [[], [Capability.sort], [.sort, .esearch]] as [[Capability]] {
            var configuration = dovecot.configuration()
            configuration.ignoredCapabilities = Set(ignored)
            let session = try await IMAPSession.connect(configuration)
            try await session.login(.password(user: "alice", password: Dovecot.password))
            try await session.select("INBOX", readOnly: true)
            let uids = try await session.search(search.keys).uids
            #expect(uids == expected, "without \(ignored)")
            await session.logout()
        }
    }

    @Test func allTwentyThousandUIDsAreSearchedAndFetchedWithoutAnOverlongLine() async throws {
        let dovecot = try await Dovecot.shared()
        let memory = MemoryLogHandler()
        let session = try await dovecot.session(logger: Logger(label: "test", level: .trace, handler: memory))
        // Every other UID: the set cannot be compressed, so the commands must be split.
        let all = try await session.search([.all]).uids
        #expect(all.count == Dovecot.largeMailboxSize)
        #expect(all.first == UInt32(Dovecot.largeMailboxSize))
        let scattered = all.filter { $0 % 2 == 0 }
        var fetched: Set<UInt32> = []
        for try await message in session.fetch(SequenceSet(numbers: scattered), items: [.uid, .flags, .envelope]) {
            if let uid = message.uid { fetched.insert(uid) }
            #expect(message.envelope != nil)
        }
        #expect(fetched == Set(scattered))
        let inSearch = try await session.search([.uid(SequenceSet(numbers: scattered)), .from("example")]).uids
        #expect(!inSearch.isEmpty)
        let commandLines = memory.messages.filter { $0.hasPrefix("C: ") }
        #expect(commandLines.count > 3)
        #expect(commandLines.allSatisfy { $0.utf8.count <= 8000 + 3 })
        await session.logout()
    }

    @Test func aStoredFlagIsSeenByASecondConnection() async throws {
        let dovecot = try await Dovecot.shared()
        let writer = try await dovecot.session(user: "bob")
        let reader = try await dovecot.session(user: "bob")
        let result = try await writer.store(SequenceSet(numbers: [11, 12]), .add, [.flagged, "$Pinned"])
        #expect(result.flags[11]?.contains("$Pinned") == true)
        var seen: [UInt32: [Flag]] = [:]
        for try await message in reader.fetch(SequenceSet(numbers: [11, 12]), items: [.flags]) {
            if let uid = message.uid { seen[uid] = message.flags }
        }
        #expect(seen[11]?.contains(.flagged) == true)
        #expect(seen[12]?.contains("$Pinned") == true)
        try await writer.store(SequenceSet(numbers: [11, 12]), .remove, ["$Pinned"], silent: true)
        seen = [:]
        for try await message in reader.fetch(SequenceSet(numbers: [11, 12]), items: [.flags]) {
            if let uid = message.uid { seen[uid] = message.flags }
        }
        #expect(seen[11]?.contains("$Pinned") == false)
        await writer.logout()
        await reader.logout()
    }

    @Test func conditionalStoreReportsTheRefusedUIDs() async throws {
        let dovecot = try await Dovecot.shared()
        let session = try await dovecot.session(user: "bob")
        try await session.store(SequenceSet(21), .add, [.answered])
        let result = try await session.store(SequenceSet(numbers: [21]), .add, [.seen], unchangedSince: 1)
        #expect(result.refused == SequenceSet(21))
        await session.logout()
    }

    @Test func idleSeesAFlagChangeAndANewMessageFromAnotherConnectionByUID() async throws {
        let dovecot = try await Dovecot.shared()
        let watcher = try await dovecot.session(user: "bob")
        let actor = try await dovecot.session(user: "bob")
        let before = try #require(await watcher.selectedMailbox?.messageCount)
        let ready = Signal()
        let collector = Task { () -> [MailboxEvent] in
            var seen: [MailboxEvent] = []
            let iterator = watcher.events().makeAsyncIterator()
            await ready.raise()
            var sawFlag = false
            var sawArrival = false
            while let event = try await iterator.next() {
                seen.append(event)
                if case .flagsChanged(40, let flags, _) = event, flags.contains(.draft) { sawFlag = true }
                if case .arrived = event { sawArrival = true }
                if sawFlag && sawArrival { break }
            }
            return seen
        }
        await ready.wait()
        try await actor.store(SequenceSet(40), .add, [.draft])
        let message = "From: Carol <carol@example.com>\r\nTo: bob@example.com\r\nSubject: IDLE test\r\n\r\nHello\r\n"
        let appended = try await actor.execute(.append("INBOX", AppendMessage(data: ByteString(message))))
        guard case .appendUID(_, let uids)? = appended.tagged.text.code else {
            Issue.record("no APPENDUID: \(appended.tagged)")
            return
        }
        // Each event arrives (or the time limit fails the test), the new message by its UID.
        let seen = try await collector.value
        #expect(seen.contains(.messageCount(before + 1)))
        #expect(seen.contains(.arrived(uids)))
        // A command while idling ends IDLE, runs, and idling resumes.
        try await watcher.noop()
        await watcher.logout()
        await actor.logout()
    }

    @Test(arguments: [true, false]) func anExpungeByAnotherConnectionArrivesByUID(qresync: Bool) async throws {
        // Each argument has a mailbox of its own: another client's expunge during the watcher's
        // UID SEARCH ALL would leave its map incomplete (an explicit .resyncNeeded instead).
        let user = qresync ? "dave" : "erin"
        let dovecot = try await Dovecot.shared()
        var configuration = dovecot.configuration(user: user)
        if !qresync { configuration.ignoredCapabilities = [.qresync] }
        let watcher = try await IMAPSession.connect(configuration)
        try await watcher.login(.password(user: user, password: Dovecot.password))
        #expect(await watcher.enabled.contains(.qresync) == qresync)
        let actor = try await dovecot.session(user: user)
        var appended: [UInt32] = []
        for index in 0..<3 {
            let message = "From: a@example.com\r\nSubject: expunge \(qresync) \(index)\r\n\r\nx\r\n"
            let outcome = try await actor.execute(.append("INBOX", AppendMessage(data: ByteString(message))))
            guard case .appendUID(_, let uids)? = outcome.tagged.text.code, let uid = uids.numbers?.first else {
                Issue.record("no APPENDUID")
                return
            }
            appended.append(uid)
        }
        try await watcher.select("INBOX")
        // The whole map, before the other connection acts (UID SEARCH ALL).
        #expect(try await watcher.search([.all]).uids.sorted() == appended)
        let ready = Signal()
        let target = appended[1]
        let collector = Task { () -> MailboxEvent? in
            let iterator = watcher.events().makeAsyncIterator()
            await ready.raise()
            while let event = try await iterator.next() {
                if case .expunged(let set) = event, set.contains(target) { return event }
                if event == .resyncNeeded { return event }  // lost track: fails below, at once
            }
            return nil
        }
        await ready.wait()
        try await actor.noop()
        try await actor.store(SequenceSet(appended[1]), .add, [.deleted], silent: true)
        try await actor.execute(.uidExpunge(SequenceSet(appended[1])))
        guard case .expunged(let set)? = try await collector.value else {
            Issue.record("no expunge by UID")
            return
        }
        #expect(set.contains(appended[1]))
        #expect(!set.contains(appended[0]) && !set.contains(appended[2]))
        await watcher.logout()
        await actor.logout()
    }
}

@Suite(
    .hangGuard,
    .enabled("Dovecot is not installed (apt-get install dovecot-imapd)") { try Dovecot.isAvailable() },
    .timeLimit(.minutes(3)))
struct DovecotSessionTests {
    @Test func listShowsTheMailboxesWithTheirAttributes() async throws {
        let dovecot = try await Dovecot.shared()
        let session = try await IMAPSession.connect(dovecot.configuration())
        try await session.login(.password(user: "carol", password: Dovecot.password))
        // Dovecot's hierarchy delimiter here is "."; the name is a non-ASCII one (modified UTF-7).
        try await session.execute(.create(MailboxName(displayName: "Projekte.Übersicht")))
        let items = try await session.list()
        #expect(items.contains { $0.name == .inbox })
        let projects = try #require(items.first { $0.name.displayName == "Projekte" })
        #expect(projects.attributes.contains { $0.lowercased() == "\\haschildren" })
        #expect(projects.delimiter == UInt8(ascii: "."))
        let child = try #require(items.first { $0.name.displayName == "Projekte.Übersicht" })
        #expect(child.name.bytes == "Projekte.&ANw-bersicht")
        #expect(child.attributes.contains { $0.lowercased() == "\\hasnochildren" })
        await session.logout()
    }

    @Test func pipelinedCommandsFromManyTasksEachGetTheirOwnAnswers() async throws {
        let dovecot = try await Dovecot.shared()
        let session = try await dovecot.session()
        let expected = try await session.search([.from("grace")])
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for round in 0..<8 {
                group.addTask {
                    if round % 2 == 0 {
                        return try await session.search([.from("grace")]) == expected
                    }
                    let uids = Array(expected.uids.prefix(50))
                    var seen: Set<UInt32> = []
                    for try await message in session.fetch(SequenceSet(numbers: uids), items: [.envelope]) {
                        if let uid = message.uid { seen.insert(uid) }
                    }
                    return seen == Set(uids)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 8 && results.allSatisfy { $0 })
        await session.logout()
    }

    @Test(arguments: [false, true]) func summariesCarryPreviewsFromPreviewOrFromTheTextPart(
        serverPreview: Bool
    ) async throws {
        let dovecot = try await Dovecot.shared()
        var configuration = dovecot.configuration()
        if !serverPreview { configuration.ignoredCapabilities = [.preview] }
        let session = try await IMAPSession.connect(configuration)
        try await session.login(.password(user: "alice", password: Dovecot.password))
        try await session.select("INBOX", readOnly: true)
        let uids: [UInt32] = Array(1...40)
        var summaries: [UInt32: MessageSummary] = [:]
        for try await summary in session.fetchSummaries(SequenceSet(numbers: uids)) { summaries[summary.uid] = summary }
        #expect(summaries.count == 40)
        let withPreview = summaries.values.filter { !($0.preview ?? "").isEmpty }
        #expect(withPreview.count >= 35, "previews: \(withPreview.count) of 40")
        for summary in withPreview {
            #expect(summary.preview!.count <= 200)
            #expect(!summary.preview!.contains("\n") && !summary.preview!.contains("  "))
            #expect(!summary.preview!.contains("<"))
        }
        // Fetching summaries never marks mail read.
        let unseenBefore = summaries.values.filter { !$0.flags.contains(.seen) }.map(\.uid)
        var after: [UInt32: [Flag]] = [:]
        for try await message in session.fetch(SequenceSet(numbers: unseenBefore), items: [.flags]) {
            if let uid = message.uid { after[uid] = message.flags }
        }
        #expect(after.values.allSatisfy { !$0.contains(.seen) })
        await session.logout()
    }
}
