import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MockIMAPServer
import TestSupport
import Testing

/// The view model over `IMAPMailService` against the mock server: what the in-memory tests show,
/// now over a real connection, with the server's own faults and another client's changes.
@MainActor
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct InboxViewModelMockServerTests {
    static func model(_ server: MockIMAPServer) -> (InboxViewModel, IMAPMailService) {
        let service = ServiceFixture.service(server)
        return (InboxViewModel(service: service, history: .memory([]), pageSize: 20), service)
    }

    @Test func opensTheInboxNewestFirstWithPinnedMailInItsOwnSection() async throws {
        let server = try await ServiceFixture.start(count: 30)
        defer { Task { await server.stop() } }
        try server.store.setFlags([.flagged], user: "alice", mailbox: "INBOX", uid: 4)
        try server.store.setFlags([.flagged, .seen], user: "alice", mailbox: "INBOX", uid: 25)
        let (model, _) = Self.model(server)
        model.start()
        await model.settle()
        #expect(model.emailsListState == .data)
        #expect(model.pinnedEmails.map(\.uid) == [25])  // pinned among the loaded page
        #expect(model.unpinnedEmails.map(\.uid) == Array((11...30).reversed()).filter { $0 != 25 })
        #expect(model.canLoadMore)
        model.loadMore()
        await model.settle()
        #expect(model.pinnedEmails.map(\.uid) == [25, 4])
        #expect(model.unpinnedEmails.count == 28)
        model.stop()
        await model.settle()
    }

    @Test func aSecondSearchWhileTheFirstIsSlowEndsWithTheSecondsResults() async throws {
        let server = try await ServiceFixture.start(count: 30)
        defer { Task { await server.stop() } }
        let (model, _) = Self.model(server)
        model.start()
        await model.settle()
        // The first search's UID SORT (counted from now) is slow.
        _ = server.faults.add(.command("UID SORT", occurrence: 1), .delay(.seconds(2)))
        model.setSearching(true)
        model.updateQuery("subject:\"message 1\"")
        model.submit()
        #expect(model.searchState == .searching)
        // The slow search has reached the server (the delay fault fired) before the second.
        while server.faults.fired.isEmpty {
            try Task.checkCancellation()
            await Task.yield()
        }
        model.updateQuery("subject:\"message 22\"")
        model.submit()
        await model.settle()
        #expect(model.searchState == .results)
        #expect(model.searchResults.map(\.subject) == ["message 22"])
        #expect(model.searchedQuery == "subject:\"message 22\"")
        #expect(model.recentSearches.prefix(2) == ["subject:\"message 22\"", "subject:\"message 1\""])
        model.stop()
        await model.settle()
    }

    @Test func aPinTheServerRefusesRollsBackAndSaysWhy() async throws {
        let server = try await ServiceFixture.start(count: 5)
        defer { Task { await server.stop() } }
        let (model, _) = Self.model(server)
        model.start()
        await model.settle()
        _ = server.faults.add(.command("UID STORE", occurrence: 1), .respond(.no, text: "flag storage is full"))
        let target = try #require(model.unpinnedEmails.first { $0.uid == 3 })
        #expect(model.pinActionTitle(for: target) == "Pin")
        model.togglePin(target.id)
        #expect(model.pinnedEmails.map(\.uid) == [3])  // at once, before the server answers
        await model.settle()
        #expect(model.pinnedEmails.isEmpty)
        #expect(model.notice?.kind == .flagChangeRolledBack)
        #expect(model.notice?.message.contains("flag storage is full") == true)
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [3])[3] == [])
        // The next pin goes through, and the label follows.
        model.togglePin(target.id)
        await model.settle()
        let pinned = try #require(model.pinnedEmails.first)
        #expect(pinned.uid == 3 && model.pinActionTitle(for: pinned) == "Unpin")
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [3])[3] == [.flagged])
        model.toggleRead(pinned.id)
        await model.settle()
        #expect(try await ServiceFixture.flagsReadBack(server, uids: [3])[3] == [.flagged, .seen])
        #expect(model.readActionTitle(for: try #require(model.pinnedEmails.first)) == "Unread")
        model.stop()
        await model.settle()
    }

    /// Read and pin on a row of an `in:all` result from another mailbox change that mailbox's
    /// message, not the open mailbox's message with the same UID.
    @Test func readAndPinOnAnotherMailboxsRowChangeThatMailboxsMessage() async throws {
        let server = try await ServiceFixture.start(count: 5)
        defer { Task { await server.stop() } }
        try server.store.createMailbox("Projects", user: "alice")
        try ServiceFixture.seed(server, 100, mailbox: "Projects", subject: "invoice march")
        let (model, _) = Self.model(server)
        model.start()
        await model.settle()
        model.setSearching(true)
        model.updateQuery("in:all uid:1")
        model.submit()
        await model.settle()
        #expect(Set(model.searchResults.map(\.mailbox)) == ["INBOX", "Projects"])
        let row = try #require(model.searchResults.first { $0.mailbox == "Projects" })
        #expect(row.uid == 1 && row.subject == "invoice march")
        model.togglePin(row.id)
        await model.settle()
        model.toggleRead(row.id)
        await model.settle()
        #expect(model.notice == nil)
        #expect(server.store.flags(user: "alice", mailbox: "Projects", uid: 1) == [.flagged, .seen])
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [])
        let shown = try #require(model.searchResults.first { $0.id == row.id })
        #expect(shown.isPinned && shown.isRead)
        #expect(model.searchResults.first { $0.mailbox == "INBOX" }.map { !$0.isPinned && !$0.isRead } == true)
        model.stop()
        await model.settle()
    }

    @Test func anotherClientsChangesNewMailAndExpungesReachTheModel() async throws {
        let server = try await ServiceFixture.start(count: 5)
        defer { Task { await server.stop() } }
        let (model, _) = Self.model(server)
        model.start()
        await model.settle()
        // The same message in the inbox and in the results.
        model.setSearching(true)
        model.updateQuery("message")
        model.submit()
        await model.settle()
        #expect(model.searchResults.count == 5)

        let other = try await IMAPSession.connect(ServiceFixture.configuration(server))
        try await other.login(.password(user: "alice", password: "secret"))
        try await other.select("INBOX")
        try await other.store(SequenceSet(numbers: [2]), .add, [.seen])
        await until {
            model.unpinnedEmails.first { $0.uid == 2 }?.isRead == true
                && model.searchResults.first { $0.uid == 2 }?.isRead == true
        }

        try ServiceFixture.seed(server, 6, subject: "fresh news")
        await until { model.unpinnedEmails.first?.subject == "fresh news" }

        try await other.store(SequenceSet(numbers: [4]), .add, [.deleted])
        try await other.execute(.expunge)
        await until { !model.unpinnedEmails.contains { $0.uid == 4 } && !model.searchResults.contains { $0.uid == 4 } }
        #expect(model.unpinnedEmails.map(\.uid) == [6, 5, 3, 2, 1])
        await other.logout()
        model.stop()
        await model.settle()
    }
}
