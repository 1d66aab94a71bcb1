import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing
import Transport

/// APPEND, COPY, MOVE and EXPUNGE through `IMAPSession`'s typed helpers, against the mock
/// server under the suite's profile (imap4rev1 has neither MOVE nor UIDPLUS, so MOVE falls back
/// to COPY, STORE and a plain EXPUNGE there), checked against the server's store.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct MessageCommandTests {
    static let hasUIDPlus = MockServerFixture.announces(.uidPlus)

    /// A message of about `size` bytes, larger than LITERAL-'s 4 KB so that it needs the
    /// server's `+` under gmail-like and imap4rev1.
    static func largeMessage(size: Int = 10_000) -> [UInt8] {
        let line = "The quick brown fox jumps over the lazy dog, again and again.\r\n"
        let body = String(repeating: line, count: size / line.utf8.count + 1)
        return Array("From: a@example.com\r\nTo: b@example.com\r\nSubject: large\r\n\r\n\(body)".utf8)
    }

    @Test func appendPutsTheBytesFlagsAndDateInTheMailbox() async throws {
        let server = try await MockServerFixture.start()
        try server.store.createMailbox("Drafts/Entwürfe", user: "alice")
        let session = try await server.loggedInSession()
        let message = Self.largeMessage()
        let day = try #require(IMAPDate(year: 2024, month: 3, day: 5))
        let date = try #require(IMAPDateTime(date: day, hour: 10, minute: 0, second: 0, zoneMinutes: 60))
        let appended = try await session.append(
            message, to: MailboxName(displayName: "Drafts/Entwürfe"), flags: [.draft, "$Urgent"], internalDate: date)

        let uids = server.store.uids(user: "alice", mailbox: "Drafts/Entwürfe")
        #expect(uids.count == 1)
        let uid = try #require(uids.first)
        #expect(server.store.rawMessage(user: "alice", mailbox: "Drafts/Entwürfe", uid: uid) == message)
        #expect(server.store.flags(user: "alice", mailbox: "Drafts/Entwürfe", uid: uid) == [.draft, "$Urgent"])
        #expect(server.store.internalDate(user: "alice", mailbox: "Drafts/Entwürfe", uid: uid) == date)
        if Self.hasUIDPlus {
            let validity = server.store.uidValidity(user: "alice", mailbox: "Drafts/Entwürfe")
            #expect(appended == AppendedMessage(uidValidity: try #require(validity), uid: uid))
        } else {
            #expect(appended == nil)
        }
        await session.logout()
        await server.stop()
    }

    @Test func appendToAMailboxThatDoesNotExistIsRefused() async throws {
        let server = try await MockServerFixture.start()
        let session = try await server.loggedInSession()
        await #expect(throws: IMAPError.self) { try await session.append(Self.largeMessage(), to: "Nowhere") }
        #expect(try await session.append(MockServerFixture.message(1), to: "INBOX") != nil || !Self.hasUIDPlus)
        await session.logout()
        await server.stop()
    }

    @Test func copyMapsEachSourceUIDToItsCopy() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 5)
        try server.store.createMailbox("Archiv/Übersicht", user: "alice")
        let session = try await server.loggedInSession()
        let copied = try await session.copy(
            SequenceSet(numbers: [2, 4]), to: MailboxName(displayName: "Archiv/Übersicht"))

        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 2, 3, 4, 5])
        let copies = server.store.uids(user: "alice", mailbox: "Archiv/Übersicht")
        #expect(copies.count == 2)
        if Self.hasUIDPlus {
            #expect(
                copied.destinationUIDValidity == server.store.uidValidity(user: "alice", mailbox: "Archiv/Übersicht"))
            #expect(Set(copied.destinationUIDs.keys) == [2, 4])
            for (source, destination) in copied.destinationUIDs {
                #expect(
                    server.store.rawMessage(user: "alice", mailbox: "Archiv/Übersicht", uid: destination)
                        == server.store.rawMessage(user: "alice", mailbox: "INBOX", uid: source))
            }
        } else {
            #expect(copied == CopiedMessages(destinationUIDValidity: nil, destinationUIDs: [:]))
        }
        await session.logout()
        await server.stop()
    }

    @Test func aLongSetIsCopiedInSeveralCommandsAndEveryMessageArrives() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 60)
        try server.store.createMailbox("Moved", user: "alice")
        let memory = MemoryLogHandler()
        let session = try await server.loggedInSession {
            $0.maximumCommandLength = 60
            $0.logger = Logger(label: "test", level: .trace, handler: memory)
        }
        let odd = Array(stride(from: UInt32(1), through: 59, by: 2))
        let copied = try await session.copy(SequenceSet(numbers: odd), to: "Moved")

        #expect(server.store.uids(user: "alice", mailbox: "Moved").count == odd.count)
        #expect(memory.messages.filter { $0.hasPrefix("C: ") && $0.contains("UID COPY") }.count > 1)
        if Self.hasUIDPlus { #expect(Set(copied.destinationUIDs.keys) == Set(odd)) }
        await session.logout()
        await server.stop()
    }

    @Test func moveLeavesTheMessagesOnlyInTheDestination() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 5)
        try server.store.createMailbox("Moved", user: "alice")
        let session = try await server.loggedInSession()
        let originals = [1, 3].map { server.store.rawMessage(user: "alice", mailbox: "INBOX", uid: $0) }
        let moved = try await session.move(SequenceSet(numbers: [1, 3]), to: "Moved")

        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [2, 4, 5])
        for uid in [UInt32(2), 4, 5] {
            #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: uid)?.contains(.deleted) == false)
        }
        let destination = server.store.uids(user: "alice", mailbox: "Moved")
        #expect(destination.map { server.store.rawMessage(user: "alice", mailbox: "Moved", uid: $0) } == originals)
        if Self.hasUIDPlus {
            #expect(moved.destinationUIDs == [1: destination[0], 3: destination[1]])
        }
        #expect(await session.selectedMailbox?.messageCount == 3)
        await session.logout()
        await server.stop()
    }

    /// Without MOVE but with UIDPLUS: COPY, STORE \Deleted and UID EXPUNGE of the moved
    /// messages only; another message marked \Deleted stays.
    @Test func moveWithoutMoveExpungesOnlyTheMovedMessages() async throws {
        let server = try await MockServerFixture.start(profile: .full)
        try MockServerFixture.seed(server, count: 5)
        try server.store.createMailbox("Moved", user: "alice")
        try server.store.setFlags([.deleted], user: "alice", mailbox: "INBOX", uid: 4)
        let memory = MemoryLogHandler()
        let session = try await server.loggedInSession {
            $0.ignoredCapabilities = [.move]
            $0.logger = Logger(label: "test", level: .trace, handler: memory)
        }
        let moved = try await session.move(SequenceSet(numbers: [2, 3]), to: "Moved")

        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 4, 5])
        #expect(server.store.uids(user: "alice", mailbox: "Moved").count == 2)
        #expect(Set(moved.destinationUIDs.keys) == [2, 3])
        let commands = memory.messages.filter { $0.hasPrefix("C: ") }
        #expect(commands.contains { $0.contains("UID EXPUNGE 2:3") })
        #expect(!commands.contains { $0.contains("MOVE") })
        await session.logout()
        await server.stop()
    }

    /// Neither MOVE nor UIDPLUS: a plain EXPUNGE would also remove message 4, marked \Deleted
    /// by someone else, so the move is refused before anything is copied.
    @Test func moveWithNeitherMoveNorUIDPlusRefusesToExpungeOtherDeletedMessages() async throws {
        let server = try await MockServerFixture.start(profile: .imap4rev1)
        try MockServerFixture.seed(server, count: 5)
        try server.store.createMailbox("Moved", user: "alice")
        try server.store.setFlags([.deleted], user: "alice", mailbox: "INBOX", uid: 4)
        let session = try await server.loggedInSession()
        do {
            try await session.move(SequenceSet(numbers: [2, 3]), to: "Moved")
            Issue.record("moved although a plain EXPUNGE would remove message 4")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("UID 4"))
        }
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 2, 3, 4, 5])
        #expect(server.store.uids(user: "alice", mailbox: "Moved").isEmpty)
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 2)?.contains(.deleted) == false)

        // Once message 4 is undeleted the same move goes through, with a plain EXPUNGE.
        try server.store.setFlags([], user: "alice", mailbox: "INBOX", uid: 4)
        let moved = try await session.move(SequenceSet(numbers: [2, 3]), to: "Moved")
        #expect(moved.destinationUIDs.isEmpty)
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 4, 5])
        #expect(server.store.uids(user: "alice", mailbox: "Moved").count == 2)
        await session.logout()
        await server.stop()
    }

    @Test func expungeReportsTheUIDsItRemoved() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 6)
        let session = try await server.loggedInSession()
        try await session.store(SequenceSet(numbers: [2, 5]), .add, [.deleted], silent: true)
        let expunged = try await session.expunge()

        #expect(expunged == ExpungedMessages(uids: [2, 5]))
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 3, 4, 6])
        #expect(await session.selectedMailbox?.messageCount == 4)
        await session.logout()
        await server.stop()
    }

    @Test(.enabled(if: MockServerFixture.announces(.uidPlus)))
    func uidExpungeRemovesOnlyTheNamedDeletedMessages() async throws {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 6)
        let session = try await server.loggedInSession()
        try await session.store(SequenceSet(numbers: [2, 3, 5]), .add, [.deleted], silent: true)
        let expunged = try await session.expunge(uids: SequenceSet(numbers: [1, 2, 3]))

        #expect(expunged == ExpungedMessages(uids: [2, 3]))
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 4, 5, 6])
        await session.logout()
        await server.stop()
    }

    @Test func uidExpungeWithoutUIDPlusIsUnsupported() async throws {
        let server = try await MockServerFixture.start(profile: .imap4rev1)
        try MockServerFixture.seed(server, count: 3)
        let session = try await server.loggedInSession()
        try await session.store(SequenceSet(2), .add, [.deleted], silent: true)
        do {
            try await session.expunge(uids: SequenceSet(2))
            Issue.record("UID EXPUNGE was sent to a server without UIDPLUS")
        } catch {
            #expect(error.code == .unsupported)
        }
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 2, 3])
        await session.logout()
        await server.stop()
    }
}

/// The same helpers against a real Dovecot, in mailboxes of their own (bob's INBOX, which other
/// tests use, is not touched): MOVE, then without MOVE (COPY, STORE, UID EXPUNGE), then without
/// MOVE and UIDPLUS (a plain EXPUNGE); EXPUNGE with QRESYNC (VANISHED) and without it. One case
/// at a time: Dovecot 2.3 refused a CREATE with "Mailbox already exists" when the cases' CREATEs
/// of different names ran at once (seen twice in full runs).
@Suite(
    .serialized,
    .hangGuard,
    .enabled("Dovecot is not installed (apt-get install dovecot-imapd)") { try Dovecot.isAvailable() },
    .timeLimit(.minutes(2)))
struct MessageCommandDovecotTests {
    static let ignoredSets: [[Capability]] = [[], [.move], [.move, .uidPlus], [.qresync]]

    @Test(arguments: ignoredSets) func appendMoveAndExpungeDoWhatTheyReport(ignored: [Capability]) async throws {
        let dovecot = try await Dovecot.shared()
        var configuration = dovecot.configuration(user: "bob")
        configuration.ignoredCapabilities = Set(ignored)
        let session = try await IMAPSession.connect(configuration)
        try await session.login(.password(user: "bob", password: Dovecot.password))
        let suffix = ignored.map(\.rawValue).joined(separator: "-")
        let source = MailboxName(displayName: "Helpers-\(suffix)-Quelle-ü")
        let destination = MailboxName(displayName: "Helpers-\(suffix)-Ziel-ü")
        for mailbox in [source, destination] { try await session.execute(.create(mailbox)) }
        let messages = (0..<4).map { index in
            Array("From: a@example.com\r\nSubject: helper \(suffix) \(index)\r\n\r\nBody \(index)\r\n".utf8)
        }
        var appended: [AppendedMessage?] = []
        for message in messages { appended.append(try await session.append(message, to: source, flags: [.flagged])) }
        let selected = try await session.select(source)
        let uids = try await session.search([]).uids.sorted()
        #expect(uids.count == 4)
        // Dovecot reports APPENDUID and COPYUID even to a client that ignores its UIDPLUS.
        #expect(appended.map { $0?.uid } == uids)
        #expect(appended.allSatisfy { $0?.uidValidity == selected.uidValidity })

        let moved = try await session.move(SequenceSet(numbers: [uids[0], uids[1]]), to: destination)
        try await session.store(SequenceSet(uids[2]), .add, [.deleted], silent: true)
        let expunged = try await session.expunge()
        #expect(expunged == ExpungedMessages(uids: [uids[2]]))

        // What a second connection finds.
        let checker = try await dovecot.session(user: "bob")
        try await checker.select(source, readOnly: true)
        #expect(try await checker.search([]).uids == [uids[3]])
        try await checker.select(destination, readOnly: true)
        var arrived: [UInt32: [UInt8]] = [:]
        for try await message in checker.fetch(
            .all, items: [.uid, .bodySection(peek: true, section: .complete, partial: nil)])
        {
            if let uid = message.uid { arrived[uid] = message.bodySection(.complete).map { Array($0.bytes) } }
        }
        #expect(Set(arrived.values) == [messages[0], messages[1]])
        #expect(Set(moved.destinationUIDs.keys) == [uids[0], uids[1]])
        #expect(Set(moved.destinationUIDs.values) == Set(arrived.keys))
        #expect(arrived[try #require(moved.destinationUIDs[uids[0]])] == messages[0])
        await checker.logout()
        try await session.execute(.unselect)
        for mailbox in [source, destination] { try await session.execute(.delete(mailbox)) }
        await session.logout()
    }
}
