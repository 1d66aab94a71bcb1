import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MockIMAPServer
import Synchronization
import TestSupport
import Testing

/// `IMAPMailService` against the mock server: pages, searches, round trips counted from the
/// server's transcript, flag changes read back over an independent connection, live events.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct IMAPMailServiceTests {
    /// The search command a profile's server gets: UID SORT where it has SORT.
    static func searchCommand(_ profile: Profile) -> String {
        switch profile {
        case .full, .gmailLike, .qresync: "UID SORT"
        case .imap4rev1, .exchangeLike: "UID SEARCH"
        }
    }

    @Test(arguments: Profile.allCases) func opensAndListsTheNewestPageInThreeCommands(profile: Profile) async throws {
        // Plain, multipart/alternative, HTML-only base64, attachments, ISO-8859-1 after a quote.
        let server = try await ServiceFixture.start(profile: profile, count: 120, mime: true)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        let mailbox = try await service.open()
        #expect(mailbox.name == "INBOX" && mailbox.messageCount == 120 && mailbox.pinFlag == .flagged)
        let first = try await service.list(pageSize: 50)
        // SELECT, the order of every message, one FETCH of the page: on a server without PREVIEW
        // (RFC 8970) too, whose previews come from the start of each body in the same FETCH.
        // The pinned ones' UID SEARCH goes in the same flight as the listing (either first).
        let commands = ServiceFixture.commandsAfterLogin(server)
        #expect(commands.sorted() == ["SELECT", Self.searchCommand(profile), "UID SEARCH", "UID FETCH"].sorted())
        #expect(commands.last == "UID FETCH")
        #expect(first.list.total == 120)
        #expect(first.emails.map(\.uid) == Array((71...120).reversed()))
        let newest = try #require(first.emails.first)
        #expect(newest.subject == "message 120")
        #expect(newest.from.name == "Sender 120" && newest.from.address == "sender120@example.com")
        #expect(newest.from.initials == "S1")
        #expect(newest.preview == "Body of message 120.")
        for email in first.emails {
            #expect(email.preview == "Body of message \(email.uid).", "UID \(email.uid)")
            #expect(email.hasAttachment == (email.uid % 5 == 3), "UID \(email.uid)")
        }
        #expect(newest.id == Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 120))
        #expect(first.hasMore)
        let second = try await service.page(of: first.list, offset: 50, pageSize: 50)
        #expect(second.emails.map(\.uid) == Array((21...70).reversed()))
        // Nobody asked for events: no IDLE between the calls.
        let clientLines = server.sessions.flatMap(\.transcript).filter { $0.direction == .client }
        #expect(!clientLines.contains { $0.text.hasSuffix(" IDLE") })
        let last = try await service.page(of: first.list, offset: 100, pageSize: 50)
        #expect(last.emails.map(\.uid) == Array((1...20).reversed()))
        #expect(!last.hasMore)
        await service.close()
        // Closed is not dead: the next call opens the mailbox again on a new connection.
        #expect(try await service.list(pageSize: 1).emails.map(\.uid) == [120])
        await service.close()
    }

    @Test func aLargeListingHandsOverAGuessOfItsFirstPageBeforeTheSortAndReusesIt() async throws {
        let server = try await ServiceFixture.start(profile: .full, count: 120)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server, provisionalListingMinimum: 100)
        let guesses = Mutex<[EmailPage]>([])
        let first = try await service.list(pageSize: 50) { guess in guesses.withLock { $0.append(guess) } }
        let guess = try #require(guesses.withLock { $0.count == 1 ? $0.first : nil })
        #expect(guess.emails.map(\.uid) == Array((71...120).reversed()))
        #expect(guess.emails.first?.subject == "message 120")
        #expect(first.emails.map(\.uid) == Array((71...120).reversed()))
        #expect(first.list.total == 120 && first.list.ids.count == 120)
        // The guess went out before the sort, and its summaries were the page: one FETCH.
        let commands = ServiceFixture.commandsAfterLogin(server)
        #expect(commands.prefix(3) == ["SELECT", "UID SEARCH", "UID FETCH"])
        #expect(commands.dropFirst(3).sorted() == ["UID SEARCH", "UID SORT"], "the sort, and the pinned ones' search")
        await service.close()
    }

    @Test func aGuessTheSortOrdersOtherwiseIsReplacedByTheSortedPage() async throws {
        let server = try await ServiceFixture.start(profile: .full, count: 120)
        defer { Task { await server.stop() } }
        // Mail moved in last: the highest UID, the oldest INTERNALDATE (its Date header).
        let moved = try server.store.append(
            ServiceFixture.message(0, subject: "moved in"), user: "alice", mailbox: "INBOX")
        #expect(moved == 121)
        let service = ServiceFixture.service(server, provisionalListingMinimum: 100)
        let guesses = Mutex<[EmailPage]>([])
        let first = try await service.list(pageSize: 50) { guess in guesses.withLock { $0.append(guess) } }
        #expect(guesses.withLock { $0.map { $0.emails.map(\.uid) } } == [Array((72...121).reversed())])
        #expect(first.emails.map(\.uid) == Array((71...120).reversed()))
        #expect(first.list.ids.last?.uid == 121)
        let commands = ServiceFixture.commandsAfterLogin(server)
        #expect(commands.prefix(3) == ["SELECT", "UID SEARCH", "UID FETCH"])
        #expect(commands.dropFirst(3).prefix(2).sorted() == ["UID SEARCH", "UID SORT"])
        #expect(commands.count == 6 && commands.last == "UID FETCH")
        await service.close()
    }

    @Test(arguments: [(Profile.imap4rev1, 100), (Profile.full, 2000)])
    func noGuessWithoutSortOrBelowTheMinimum(profile: Profile, minimum: Int) async throws {
        let server = try await ServiceFixture.start(profile: profile, count: 120)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server, provisionalListingMinimum: minimum)
        let guesses = Mutex(0)
        let first = try await service.list(pageSize: 50) { _ in guesses.withLock { $0 += 1 } }
        #expect(guesses.withLock { $0 } == 0)
        #expect(first.emails.map(\.uid) == Array((71...120).reversed()))
        #expect(
            ServiceFixture.commandsAfterLogin(server).sorted()
                == ["SELECT", Self.searchCommand(profile), "UID SEARCH", "UID FETCH"].sorted())
        await service.close()
    }

    @Test func aPreviewPastTheFirstBytesCostsOneMoreFetchOfThatMessageOnly() async throws {
        let server = try await ServiceFixture.start(profile: .imap4rev1, count: 6, mime: true)
        defer { Task { await server.stop() } }
        // Message 7's reply comes after more quoted lines than the page's FETCH carries.
        let quote = String(repeating: "> an earlier message, quoted\r\n", count: 700)
        let late = ServiceFixture.message(7).split(separator: 0x0A, omittingEmptySubsequences: false).prefix(5)
            .map { Array($0) + [0x0A] }.joined()
        try server.store.append(
            Array(late) + Array("\r\n\(quote)Body of message 7.\r\n".utf8), user: "alice", mailbox: "INBOX")
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        let page = try await service.list(pageSize: 50)
        #expect(page.emails.map(\.preview) == (1...7).reversed().map { "Body of message \($0)." })
        #expect(
            ServiceFixture.commandsAfterLogin(server) == [
                "SELECT", "UID SEARCH", "UID SEARCH", "UID FETCH", "UID FETCH",
            ])
        #expect(ServiceFixture.clientCommands(server).last == "UID FETCH 7 (UID BODY.PEEK[1])")
        await service.close()
    }

    @Test(arguments: Profile.allCases) func searchCostsTwoCommandsAndReportsTheTotal(profile: Profile) async throws {
        let server = try await ServiceFixture.start(profile: profile, count: 60, mime: true)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        let before = ServiceFixture.commandsAfterLogin(server).count
        let found = try await service.search(try query("subject:\"message 1\""), pageSize: 5)
        let commands = Array(ServiceFixture.commandsAfterLogin(server).dropFirst(before))
        // One search and one fetch of the page, with or without PREVIEW (RFC 8970).
        #expect(commands == [Self.searchCommand(profile), "UID FETCH"])
        // "message 1", "message 10" ... "message 19": 11 messages; Gmail-like matches whole words only.
        let expected: [UInt32] = profile == .gmailLike ? [1] : [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1]
        #expect(found.list.ids.map(\.uid) == expected)
        #expect(found.list.total == expected.count)
        #expect(found.emails.map(\.uid) == Array(expected.prefix(5)))
        let rest = try await service.page(of: found.list, offset: 5, pageSize: 5)
        #expect(rest.emails.map(\.uid) == Array(expected.dropFirst(5).prefix(5)))
        await service.close()
    }

    @Test(arguments: Profile.allCases) func readAndPinAreStoredAndNothingElseIsMarkedRead(profile: Profile) async throws
    {
        let server = try await ServiceFixture.start(profile: profile, count: 12)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        let page = try await service.list(pageSize: 50)
        _ = try await service.search(try query("message"), pageSize: 50)
        // Listing, searching and previews never set \Seen.
        let untouched = try await ServiceFixture.flagsReadBack(server, uids: Array(1...12))
        #expect(untouched.count == 12 && untouched.values.allSatisfy { !$0.contains(.seen) })

        let target = try #require(page.emails.first { $0.uid == 7 })
        let pinned = try await service.setPinned(true, for: [target.id])
        #expect(pinned.refused.isEmpty)
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [7])[7] == [.flagged])
        let read = try await service.setRead(true, for: [target.id])
        #expect(read.refused.isEmpty)
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [7])[7] == [.flagged, .seen])
        _ = try await service.setPinned(false, for: [target.id])
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [7])[7] == [.seen])
        _ = try await service.setRead(false, for: [target.id])
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [7])[7] == [])
        let others = try await ServiceFixture.flagsReadBack(server, uids: Array(1...12).filter { $0 != 7 })
        #expect(others.values.allSatisfy { $0.isEmpty })
        await service.close()
    }

    @Test func aConfiguredPinKeywordIsStoredWhereTheMailboxAllowsIt() async throws {
        let server = try await ServiceFixture.start(count: 3)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server, flagPolicy: FlagPolicy(pinKeyword: Flag("$Pinned")))
        let mailbox = try await service.open()
        #expect(mailbox.pinFlag == Flag("$Pinned") && mailbox.pinWarning == nil)
        let id = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 2)
        _ = try await service.setPinned(true, for: [id])
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [2])[2] == [Flag("$Pinned")])
        let found = try await service.search(try query("is:pinned"), pageSize: 10)
        #expect(found.emails.map(\.uid) == [2])
        #expect(found.emails.first?.isPinned == true)
        let pinnedWith = try Self.modseq(server, 2)
        #expect(try await service.setPinned(false, for: [id]).refused.isEmpty)
        #expect(
            ServiceFixture.clientCommands(server).last
                == "UID STORE 2 (UNCHANGEDSINCE \(pinnedWith)) -FLAGS ($Pinned)")
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [2])[2] == [])
        #expect(try await service.search(try query("is:pinned"), pageSize: 10).list.total == 0)
        await service.close()
    }

    /// The MODSEQ of `uid` in alice's INBOX now.
    static func modseq(_ server: MockIMAPServer, _ uid: UInt32) throws -> UInt64 {
        try #require(server.store.modificationSequence(user: "alice", mailbox: "INBOX", uid: uid))
    }

    @Test(arguments: [Profile.full, .imap4rev1]) func flagChangesAreUIDStoresAnsweredWithTheFlags(
        profile: Profile
    ) async throws {
        let server = try await ServiceFixture.start(profile: profile, count: 8)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        let mailbox = try await service.open()
        _ = try await service.list(pageSize: 50)
        let id = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 7)
        // Under CONDSTORE each STORE carries the MODSEQ the message was last seen with: from the
        // page's FETCH, then from the previous STORE's answer.
        func expected(_ change: String) throws -> String {
            profile == .full
                ? "UID STORE 7 (UNCHANGEDSINCE \(try Self.modseq(server, 7))) \(change)" : "UID STORE 7 \(change)"
        }
        var line = try expected("+FLAGS (\\Flagged)")
        let pinned = try await service.setPinned(true, for: [id])
        #expect(pinned.refused.isEmpty)
        // The result says what the server now has (library issue: it used to be empty).
        #expect(pinned.flags[id] == [.flagged])
        #expect(ServiceFixture.clientCommands(server).last == line)
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [7])[7] == [.flagged])
        line = try expected("-FLAGS (\\Flagged)")
        #expect(try await service.setPinned(false, for: [id]).refused.isEmpty)
        #expect(ServiceFixture.clientCommands(server).last == line)
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [7])[7] == [])
        line = try expected("+FLAGS (\\Seen)")
        #expect(try await service.setRead(true, for: [id]) == FlagChangeResult(flags: [id: [.seen]]))
        #expect(ServiceFixture.clientCommands(server).last == line)
        line = try expected("-FLAGS (\\Seen)")
        #expect(try await service.setRead(false, for: [id]).refused.isEmpty)
        #expect(ServiceFixture.clientCommands(server).last == line)
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [7])[7] == [])
        await service.close()
    }

    @Test func aChangeMadeElsewhereMeanwhileIsRefusedWithTheCurrentFlags() async throws {
        let server = try await ServiceFixture.start(count: 5)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        let mailbox = try await service.open()
        _ = try await service.list(pageSize: 10)
        let listedWith = try Self.modseq(server, 3)
        // Another client reads message 3 after the list was shown; nobody listens for events.
        let other = try await IMAPSession.connect(ServiceFixture.configuration(server))
        try await other.login(.password(user: "alice", password: "secret"))
        try await other.select("INBOX")
        try await other.store(SequenceSet(numbers: [3]), .add, [.seen])
        await other.logout()
        #expect(try Self.modseq(server, 3) > listedWith)

        let id = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 3)
        let result = try await service.setPinned(true, for: [id])
        #expect(result.refused[id]?.contains("changed by another client") == true)
        #expect(result.flags[id] == [.seen])
        #expect(
            ServiceFixture.clientCommands(server).contains(
                "UID STORE 3 (UNCHANGEDSINCE \(listedWith)) +FLAGS (\\Flagged)"))
        let answers = server.sessions.min(by: { $0.id < $1.id })?.transcript.filter { $0.direction == .server } ?? []
        #expect(answers.contains { $0.text.contains("[MODIFIED 3]") })
        // Not overwritten: the other client's \Seen stays, and no \Flagged was added.
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [3])[3] == [.seen])
        // With the MODSEQ now known, the next try goes through.
        #expect(try await service.setPinned(true, for: [id]).refused.isEmpty)
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [3])[3] == [.seen, .flagged])
        await service.close()
    }

    /// Read and pin of one message made together (the screen runs each change as a job of its
    /// own): both are applied. Made at once, both sent the MODSEQ the list had shown, and the
    /// server refused the second as changed by another client.
    @Test func changesMadeTogetherToOneMessageAreAllApplied() async throws {
        let server = try await ServiceFixture.start(count: 5)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        let mailbox = try await service.open()
        _ = try await service.list(pageSize: 10)
        let id = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 2)
        async let read = service.setRead(true, for: [id])
        async let pinned = service.setPinned(true, for: [id])
        let results = try await [read, pinned]
        for result in results { #expect(result.refused.isEmpty, "\(result.refused)") }
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [2])[2] == [.flagged, .seen])
        await service.close()
    }

    @Test func aRefusedPinReportsTheServersReason() async throws {
        let server = try await ServiceFixture.start(count: 3)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        let mailbox = try await service.open()
        _ = server.faults.add(.command("UID STORE", occurrence: 1), .respond(.no, text: "flag storage is full"))
        let id = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 1)
        let result = try await service.setPinned(true, for: [id])
        let reason = try #require(result.refused[id])
        #expect(reason.contains("flag storage is full"))
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [1])[1] == [])
        await service.close()
    }

    @Test func anotherClientsChangesArriveAsEvents() async throws {
        let server = try await ServiceFixture.start(count: 5)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        let mailbox = try await service.open()
        var events = service.events().makeAsyncIterator()
        _ = try await service.list(pageSize: 10)

        let other = try await IMAPSession.connect(ServiceFixture.configuration(server))
        try await other.login(.password(user: "alice", password: "secret"))
        try await other.select("INBOX")
        try await other.store(SequenceSet(numbers: [3]), .add, [.seen])
        let id3 = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 3)
        let changed = try await next(&events, { if case .flagsChanged = $0 { true } else { false } })
        #expect(changed == .flagsChanged(id3, [.seen]))

        try ServiceFixture.seed(server, 6, subject: "fresh news")
        let arrived = try await next(&events, { if case .arrived = $0 { true } else { false } })
        guard case .arrived(let emails) = arrived else { throw Unexpected(arrived) }
        #expect(emails.map(\.uid) == [6] && emails.first?.subject == "fresh news")

        try await other.store(SequenceSet(numbers: [2]), .add, [.deleted])
        try await other.execute(.expunge)
        let expunged = try await next(&events, { if case .expunged = $0 { true } else { false } })
        #expect(expunged == .expunged([Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 2)]))
        await other.logout()
        await service.close()
    }

    @Test func inMailboxAndInAllSearchOtherMailboxesReadOnly() async throws {
        let server = try await ServiceFixture.start(count: 4)
        defer { Task { await server.stop() } }
        try server.store.createMailbox("Projects", user: "alice")
        try ServiceFixture.seed(server, 100, mailbox: "Projects", subject: "invoice march")
        try ServiceFixture.seed(server, 101, mailbox: "Projects", subject: "holiday photos")
        try ServiceFixture.seed(server, 50, subject: "invoice april")
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        let archived = try await service.search(try query("in:Projects invoice"), pageSize: 10)
        #expect(archived.emails.map(\.subject) == ["invoice march"])
        #expect(archived.emails.first?.mailbox == "Projects")
        let everywhere = try await service.search(try query("in:all invoice"), pageSize: 10)
        #expect(Set(everywhere.emails.map(\.subject)) == ["invoice march", "invoice april"])
        #expect(everywhere.list.total == 2)
        // The open mailbox stayed selected on the service's own connection.
        let here = try await service.search(try query("invoice"), pageSize: 10)
        #expect(here.emails.map(\.subject) == ["invoice april"])
        let flags = try await ServiceFixture.flagsReadBack(server, uids: [1, 2], mailbox: "Projects")
        #expect(flags.values.allSatisfy { !$0.contains(.seen) })
        await service.close()
    }

    /// A row of an `in:all` search from another mailbox is changed in that mailbox (SELECTed on
    /// the second connection), not the open mailbox's message with the same UID; with the MODSEQ
    /// it was fetched with, so a change made meanwhile elsewhere is refused; and a re-created
    /// mailbox refuses, as the open one does.
    @Test func flagChangesOfAnotherMailboxsMessagesAreMadeInThatMailbox() async throws {
        let server = try await ServiceFixture.start(count: 4)
        defer { Task { await server.stop() } }
        try server.store.createMailbox("Projects", user: "alice")
        try ServiceFixture.seed(server, 100, mailbox: "Projects", subject: "invoice march")
        try ServiceFixture.seed(server, 101, mailbox: "Projects", subject: "holiday photos")
        let service = ServiceFixture.service(server)
        let inbox = try await service.open()
        let found = try await service.search(try query("in:all subject:march"), pageSize: 10)
        let march = try #require(found.emails.first?.id)
        #expect(march.mailbox == "Projects" && march.uid == 1)
        let inbox1 = Email.ID(mailbox: "INBOX", uidValidity: inbox.uidValidity, uid: 1)

        let pinned = try await service.setPinned(true, for: [march])
        #expect(pinned.refused.isEmpty)
        let read = try await service.setRead(true, for: [march])
        #expect(read.refused.isEmpty)
        #expect(server.store.flags(user: "alice", mailbox: "Projects", uid: 1) == [.flagged, .seen])
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [])
        let stores = server.sessions.flatMap(\.transcript).filter { $0.direction == .client }.map(\.text)
            .filter { $0.contains("UID STORE 1 ") }
        #expect(stores.count == 2 && stores.allSatisfy { $0.contains("UNCHANGEDSINCE") })

        // Changed by another client since: refused with its flags as they are now.
        try server.store.setFlags([.seen, .flagged, .answered], user: "alice", mailbox: "Projects", uid: 1)
        let stale = try await service.setRead(false, for: [march])
        #expect(stale.refused[march]?.contains("changed by another client") == true)
        #expect(Set(stale.flags[march] ?? []) == [.seen, .flagged, .answered])

        // Both mailboxes in one change: each message in its own mailbox.
        let both = try await service.setPinned(true, for: [inbox1, march])
        #expect(both.refused.isEmpty)
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [.flagged])
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 2) == [])

        // Re-created since it was searched: refused, nothing changed in the new mailbox.
        try server.store.renewUIDValidity(user: "alice", mailbox: "Projects")
        let recreated = try await service.setPinned(false, for: [march])
        #expect(recreated.refused[march] == "Projects was re-created on the server; reload it and try again")
        #expect(server.store.flags(user: "alice", mailbox: "Projects", uid: 1)?.contains(.flagged) == true)
        await service.close()
    }

    /// `show` of a row of another mailbox: that message, fetched there with BODY.PEEK (still
    /// unread), not the open mailbox's message with the same UID.
    @Test func aMessageOfAnotherMailboxIsShownFromThatMailbox() async throws {
        let server = try await ServiceFixture.start(count: 2)
        defer { Task { await server.stop() } }
        try server.store.createMailbox("Projects", user: "alice")
        try ServiceFixture.seed(server, 100, mailbox: "Projects", subject: "invoice march")
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        let found = try await service.search(try query("in:Projects march"), pageSize: 10)
        let march = try #require(found.emails.first?.id)
        let content = try #require(try await service.message(march))
        #expect(content.email.id == march && content.email.subject == "invoice march")
        #expect(content.text.contains("Body of message 100."))
        #expect(server.store.flags(user: "alice", mailbox: "Projects", uid: 1) == [])
        try server.store.renewUIDValidity(user: "alice", mailbox: "Projects")
        do {
            _ = try await service.message(march)
            Issue.record("a message of a re-created mailbox was shown")
        } catch {
            #expect(error.code == .mailboxChanged)
        }
        await service.close()
    }

    @Test func aQueryTheServerCannotRunIsAQueryError() async throws {
        let server = try await ServiceFixture.start(count: 1)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        do {
            _ = try await service.search(try query("raw:\"has:drive\""), pageSize: 10)
            Issue.record("raw: ran on a server that is not Gmail")
        } catch let error as MailServiceError {
            #expect(error.code == .query)
            #expect(error.queryError != nil)
        }
        await service.close()
    }

    @Test func aRecreatedMailboxIsReportedAndItsNewUIDsListed() async throws {
        let server = try await ServiceFixture.start(count: 4)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        let old = try await service.open()
        var events = service.events().makeAsyncIterator()
        _ = try await service.list(pageSize: 10)
        // The mock ends the sessions of a re-created mailbox with BYE, as a server would.
        let fresh = try server.store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        #expect(fresh != old.uidValidity)
        var seen: [String] = []
        while let event = await events.next() {
            switch event {
            case .connectionLost: seen.append("lost")
            case .connectionRestored: seen.append("restored")
            case .reloadNeeded(let reason):
                seen.append("reload")
                #expect(reason.contains("re-created"))
            default: continue
            }
            if seen.last == "reload" { break }
        }
        #expect(seen == ["lost", "restored", "reload"])
        let found = try await service.search(try query("message"), pageSize: 10)
        #expect(found.list.ids.allSatisfy { $0.uidValidity == fresh })
        #expect(found.list.ids.map(\.uid) == [4, 3, 2, 1])
        // A flag change for a UID of the old mailbox is refused, not applied to another message.
        let stale = Email.ID(mailbox: "INBOX", uidValidity: old.uidValidity, uid: 2)
        let result = try await service.setPinned(true, for: [stale])
        #expect(result.refused[stale]?.contains("re-created") == true)
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [2])[2] == [])
        await service.close()
    }

    /// `watch` after the mailbox was re-created: one reload (the reconnect's report and the
    /// session's own event each made one), and a change another client makes afterwards is
    /// still told, with the new UIDVALIDITY (the service forgot the mailbox at the reload and
    /// dropped every later change, so `watch` went deaf).
    @Test func afterARecreatedMailboxOneReloadAndLaterChangesStillArrive() async throws {
        let server = try await ServiceFixture.start(count: 4)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        var events = service.events().makeAsyncIterator()
        _ = try await service.list(pageSize: 10)
        let fresh = try server.store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        _ = try await next(&events, { $0 == .connectionRestored })
        let other = try await IMAPSession.connect(ServiceFixture.configuration(server))
        try await other.login(.password(user: "alice", password: "secret"))
        try await other.select("INBOX")
        try await other.store(SequenceSet(numbers: [3]), .add, [.flagged])
        var reloads = 0
        let changed = try await next(&events) { event in
            if case .reloadNeeded = event { reloads += 1 }
            if case .flagsChanged = event { return true }
            return false
        }
        guard case .flagsChanged(let id, let flags) = changed else { throw Unexpected(changed) }
        #expect(id == Email.ID(mailbox: "INBOX", uidValidity: fresh, uid: 3))
        #expect(flags.contains(.flagged))
        #expect(reloads == 1)
        await other.logout()
        await service.close()
    }

    @Test func aSearchInterruptedByADropIsRetriedOnce() async throws {
        let server = try await ServiceFixture.start(count: 4)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        _ = try await service.list(pageSize: 10)
        _ = server.faults.add(.command("UID SORT", occurrence: 1), .closeAfter(bytes: 0))
        let found = try await service.search(try query("message"), pageSize: 10)
        #expect(found.list.ids.map(\.uid) == [4, 3, 2, 1])
        #expect(await service.connection.reconnectCount == 1)
        await service.close()
    }

    /// Mail announced as it arrived is not announced again after a reconnect (the catch-up
    /// fetched everything past the UIDNEXT of the open, so `watch` printed it twice).
    @Test func mailAnnouncedBeforeAReconnectIsNotAnnouncedAgain() async throws {
        let server = try await ServiceFixture.start(count: 5)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        var events = service.events().makeAsyncIterator()
        _ = try await service.list(pageSize: 10)
        try ServiceFixture.seed(server, 6, subject: "fresh news")
        let arrived = try await next(&events, { if case .arrived = $0 { true } else { false } })
        #expect(arrived.arrivedUIDs == [6])
        _ = server.faults.add(.command("UID SORT", occurrence: 1), .closeAfter(bytes: 0))
        _ = try await service.search(try query("message"), pageSize: 10)
        _ = try await next(&events, { $0 == .connectionRestored })
        // Events are handled in order: by the time 7 is announced, a repeat of 6 would have been.
        try ServiceFixture.seed(server, 7, subject: "later news")
        var announced: [UInt32] = []
        while !announced.contains(7) {
            announced += try await next(&events, { if case .arrived = $0 { true } else { false } }).arrivedUIDs
        }
        #expect(announced == [7])
        await service.close()
    }

    private func next(
        _ events: inout AsyncStream<MailServiceEvent>.Iterator, _ wanted: (MailServiceEvent) -> Bool
    ) async throws -> MailServiceEvent {
        while let event = await events.next() {
            if wanted(event) { return event }
        }
        throw Unexpected("the event stream ended")
    }
}

/// The query tree of `text`.
func query(_ text: String) throws -> Query { try QueryParser.parse(text).query }

struct Unexpected: Error, CustomStringConvertible {
    var description: String
    init(_ value: Any) { description = "unexpected: \(value)" }
}

extension MailServiceEvent {
    /// The UIDs of an `.arrived` event, newest first; empty for any other event.
    fileprivate var arrivedUIDs: [UInt32] {
        if case .arrived(let emails) = self { emails.map(\.uid) } else { [] }
    }
}
