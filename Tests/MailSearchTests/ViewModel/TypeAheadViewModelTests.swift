import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MockIMAPServer
import TestSupport
import Testing

private typealias Fixture = ViewModelFixture

/// Results while the query is typed, through the view model: each change of the text asks the
/// service for its local matches; submitting asks the server; leaving search mode clears them.
/// Against the in-memory service (all local) and the IMAP service over the mock server with a
/// local index (none without one, and none for what only the server can decide).
@Suite(.hangGuard, .timeLimit(.minutes(2))) @MainActor
struct TypeAheadViewModelTests {
    @Test func eachKeyShowsTheNewestLocalMatchesAndSubmitAsksTheServer() async throws {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        model.setSearching(true)
        model.updateQuery("from:alb")
        await model.settle()
        #expect(model.typeAheadQuery == "from:alb")
        #expect(model.typeAheadResults.map(\.uid) == [10, 7], "Albus wrote 10 and 7, newest first")
        #expect(service.callCount(.search) == 0, "typing never searches the server")

        // Text that does not parse yet keeps what shows.
        model.updateQuery("from:\"alb")
        await model.settle()
        #expect(model.typeAheadQuery == "from:alb" && model.typeAheadResults.map(\.uid) == [10, 7])

        model.updateQuery("xyzzy")
        await model.settle()
        #expect(model.typeAheadQuery == "xyzzy" && model.typeAheadResults.isEmpty)

        model.updateQuery("from:albus")
        model.submit()
        await model.settle()
        #expect(service.callCount(.search) == 1)
        #expect(model.searchResults.map(\.uid) == [10, 7])
        #expect(model.typeAheadResults.map(\.uid) == [10, 7])

        model.setSearching(false)
        #expect(model.typeAheadQuery == nil && model.typeAheadResults.isEmpty)
    }

    @Test func aServiceWithoutLocalAnswersShowsNothingWhileTyping() async throws {
        let server = try await ServiceFixture.start(count: 30)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        let model = InboxViewModel(service: service, history: .memory([]), pageSize: 10)
        model.start()
        await model.settle()
        model.setSearching(true)
        model.updateQuery("subject:message")
        await model.settle()
        #expect(model.typeAheadQuery == nil && model.typeAheadResults.isEmpty)
        model.stop()
        await model.settle()
    }

    @Test func theIMAPServiceAnswersFromItsIndexAsTheServerWould() async throws {
        let server = try await ServiceFixture.start(count: 0)
        defer { Task { await server.stop() } }
        try await CPULane.run { try DemoMailbox.seed(into: server.store, user: "alice", now: 1_710_504_000) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-typeahead-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let index = try MessageIndex(path: directory.appendingPathComponent("index.sqlite").path)
        let service = ServiceFixture.service(server)
        _ = try await service.open()
        #expect(await service.localMatches(try QueryParser.parse("hogwarts").query, limit: 5) == nil, "no index yet")
        _ = try await service.syncIndex(index, mailboxes: ["INBOX"])
        // No time budget: on a loaded machine a query can take longer than type-ahead's 10 ms,
        // and one given up would read as "not answered locally".
        await service.answerLocally(from: index, budget: nil)

        for text in ["from:dumbledore", "hogwarts", "is:unread", "-is:read potion", "e"] {
            let query = try QueryParser.parse(text).query
            let local = try #require(await service.localMatches(query, limit: 5), "\(text)")
            let server = try await service.search(query, pageSize: 5)
            #expect(local.map(\.id) == server.emails.map(\.id), "\(text)")
            #expect(local.map(\.subject) == server.emails.map(\.subject), "\(text)")
        }
        // What only the server decides, and other mailboxes, are not answered locally.
        #expect(await service.localMatches(try QueryParser.parse("in:Archive potion").query, limit: 5) == nil)
        // An index of another UIDVALIDITY is not this mailbox's.
        _ = try server.store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        await service.close()
        _ = try await service.open()
        #expect(await service.localMatches(try QueryParser.parse("hogwarts").query, limit: 5) == nil)
        await service.close()
    }
}
