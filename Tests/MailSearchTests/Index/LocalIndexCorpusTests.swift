import Foundation
import IMAPClient
import IMAPCore
import TestSupport
import Testing

@testable import MailSearch

/// The local index judged by Dovecot on real messages it did not write: CPython's email test
/// corpus (`libpython3.11-testsuite`: digests, delivery reports, forwarded messages, koi8-r and
/// ISO-8859 bodies, RFC 2231 parameters, broken MIME). Another client appends them with flags,
/// keywords and received dates; every query below, compiled once, gives the same UIDs from the
/// index as from Dovecot's `UID SEARCH`: after the first sync, after another client changed
/// flags, expunged and appended (a QRESYNC catch-up), and after the mailbox was deleted and
/// created again (a new UIDVALIDITY).
@Suite(
    .hangGuard,
    .enabled("Dovecot is not installed (apt-get install dovecot-imapd)") { try DovecotProcess.isAvailable() },
    .timeLimit(.minutes(3)))
struct LocalIndexCorpusTests {
    static let corpus = URL(fileURLWithPath: "/usr/lib/python3.11/test/test_email/data")
    static let now = 1_710_504_000
    static let mailbox = "Corpus"

    static let queries = [
        "barry", "from:barry", "from:warsaw", "from:\"Barry A. Warsaw\"", "from:\"y A. W\"", "from:python.org",
        "to:dingus", "to:zzz.org", "cc:python", "bcc:example", "subject:test", "subject:lyrics",
        "subject:\"dingus fish\"",
        "subject:re:", "body:python", "body:dingus", "body:fish", "body:\"the \"", "text:boundary", "text:koi8",
        "hello", "x", "ee", "e", "de", "a", "¡", "é", "ü", "xyzzy-nothing",
        "header:Content-Type=multipart/mixed", "header:Content-Type=koi8", "header:X-Mailer=Mutt",
        "header:Message-ID=python", "header:MIME-Version=1.0", "has:attachment", "larger:2k", "smaller:1k",
        "larger:10k", "sent-before:2001-06-01", "sent-after:2001-09-01", "sent-before:1990-01-01",
        "after:2023-01-20", "before:2023-02-01", "on:2023-01-10", "date:2023-01-05..2023-01-25", "is:unread",
        "is:read", "is:pinned", "is:answered", "is:draft", "-is:read from:barry", "subject:ee OR to:ppp",
        "-body:the", "(from:barry OR from:aperson) -subject:lyrics", "uid:1:10,30:*", "\"dingus lovers\"",
        "text:\"Content-Type: text/plain\"", "body:=3D",
    ]

    /// Keyword keys the query language reaches only through a keyword pin flag: sent as keys.
    static let keywordKeys: [[SearchKey]] = [
        [.keyword(Flag("$Work"))], [.unkeyword(Flag("$Work"))], [.not(.keyword(Flag("$Work"))), .seen],
    ]

    @Test func localAnswersEqualDovecotsOnCPythonsCorpus() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
            .filter { $0.hasPrefix("msg_") && $0.hasSuffix(".txt") }.sorted()
        try #require(
            files.count >= 40,
            "CPython's email test messages are missing (apt-get install libpython3.11-testsuite)")
        let messages = try files.map { try Array(Data(contentsOf: Self.corpus.appendingPathComponent($0))) }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-corpus-\(UUID())")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let dovecot = try await DovecotProcess.start(["--users", "dana:\(DovecotProcess.password)"])
        defer { Task { await dovecot.stop() } }
        let other = try await Self.login(dovecot)
        try await other.execute(.create(MailboxName(wire: Self.mailbox)))
        try await Self.append(messages, over: other)

        let index = try MessageIndex(path: work.appendingPathComponent("index.sqlite").path)
        let sync = IndexSync(index: index, window: 16, clock: { Self.now })
        let session = try await Self.login(dovecot)
        let first = try await sync.sync(Self.mailbox, over: session)
        #expect(first.messages == messages.count && first.method == .first, "\(first)")
        // Dovecot dates an undated message 1-Jan-1970 (the mock: its received date).
        #expect(try await index.mailbox(Self.mailbox)?.undatedSentDate == .epoch)
        try await expectEqualAnswers(index, session, "after the first sync")

        let again = try await sync.sync(Self.mailbox, over: session)
        #expect(again.method == .inStep, "\(again)")

        // Another client re-flags (two changes: the first message already had both flags, the
        // third was unread), expunges and appends.
        try await other.select(MailboxName(wire: Self.mailbox))
        let uids = try await other.search([.all], ordered: false).uids.sorted()
        _ = try await other.store(SequenceSet(numbers: [uids[0], uids[4]]), .add, [.seen, .flagged])
        _ = try await other.store(SequenceSet(numbers: [uids[2]]), .remove, [.seen])
        _ = try await other.store(SequenceSet(numbers: [uids[3]]), .add, [Flag("$Work")])
        _ = try await other.store(SequenceSet(numbers: [uids[1], uids[20]]), .add, [.deleted])
        try await other.execute(.uidExpunge(SequenceSet(numbers: [uids[1], uids[20]])))
        try await Self.append(Array(messages.prefix(3)), over: other)
        let changed = try await sync.sync(Self.mailbox, over: session)
        #expect(
            changed.method == .quickResync && changed.added == 3 && changed.removed == 2 && changed.changed == 2,
            "\(changed)")
        #expect(changed.messages == messages.count + 1, "\(changed)")
        try await expectEqualAnswers(index, session, "after a QRESYNC catch-up")

        // Deleted and created again: a new UIDVALIDITY, every entry indexed again.
        try await other.execute(.unselect)
        try await other.execute(.delete(MailboxName(wire: Self.mailbox)))
        try await other.execute(.create(MailboxName(wire: Self.mailbox)))
        try await Self.append(Array(messages.suffix(20)), over: other)
        await other.logout()
        try await session.execute(.unselect)
        let rebuilt = try await sync.sync(Self.mailbox, over: session)
        #expect(rebuilt.method == .first && rebuilt.added == 20 && rebuilt.messages == 20, "\(rebuilt)")
        try await expectEqualAnswers(index, session, "after a new UIDVALIDITY")
        await session.logout()
    }

    static func login(_ dovecot: DovecotProcess) async throws -> IMAPSession {
        let session = try await IMAPSession.connect(DovecotServiceTests.configuration(dovecot))
        try await session.login(.password(user: "dana", password: DovecotProcess.password))
        return session
    }

    /// Appends `messages` (line ends made CRLF) with flags, keywords and received dates that
    /// vary from one to the next.
    static func append(_ messages: [[UInt8]], over session: IMAPSession) async throws {
        for (number, bytes) in messages.enumerated() {
            var flags: [Flag] = []
            if number % 3 == 0 { flags.append(.seen) }
            if number % 5 == 0 { flags.append(.flagged) }
            if number % 7 == 0 { flags.append(Flag("$Work")) }
            if number % 11 == 0 { flags.append(.answered) }
            if number % 13 == 0 { flags.append(.draft) }
            let received = IMAPDateTime(
                date: IMAPDate(daysSinceEpoch: 19_358 + number), hour: (number * 5) % 24, minute: number % 60,
                second: 0, zoneMinutes: number % 2 == 0 ? 0 : -300)
            let message = AppendMessage(
                flags: flags, internalDate: received, data: ByteString(IndexSync.crlf(bytes)))
            try await session.execute(.append(MailboxName(wire: mailbox), message))
        }
    }

    private func expectEqualAnswers(_ index: MessageIndex, _ session: IMAPSession, _ stage: String) async throws {
        let selected = try #require(await session.selectedMailbox)
        let context = SearchContext(
            capabilities: await session.capabilities, enabledCapabilities: await session.enabled, mailbox: selected,
            today: IMAPDate(daysSinceEpoch: Self.now / 86400))
        var programs: [(String, [SearchKey])] = []
        for query in Self.queries {
            programs.append((query, try QueryCompiler.compile(query, context: context).programKeys))
        }
        programs += Self.keywordKeys.map { ("\($0)", $0) }
        var decided = 0
        var nonEmpty = 0
        for (query, keys) in programs {
            let server = try await session.search(keys, ordered: false).uids.sorted()
            let answer = try await index.search(keys, in: Self.mailbox, now: Self.now)
            if !server.isEmpty { nonEmpty += 1 }
            // A query the index cannot decide goes to the server: allowed, but counted.
            guard case .uids(let local) = answer else { continue }
            decided += 1
            let onlyLocal = Set(local).subtracting(server).sorted()
            let onlyDovecot = Set(server).subtracting(local).sorted()
            #expect(local == server, "\(stage): \(query): only local \(onlyLocal), only Dovecot \(onlyDovecot)")
        }
        #expect(decided >= programs.count - 3, "\(stage): the index decided \(decided) of \(programs.count)")
        #expect(nonEmpty >= programs.count * 2 / 3, "\(stage): \(nonEmpty) of \(programs.count) found something")
    }
}
