import Foundation
import IMAPCore
import MailSearch
import TestSupport
import Testing

/// The in-memory service the previews and view-model tests stand on: it must behave like a
/// server (order, paging, search, flags, events) and obey its knobs (hold, fail, refuse).
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct InMemoryMailServiceTests {
    static let now = Date(timeIntervalSince1970: 1_710_500_000)  // 2024-03-15

    @Test func listsNewestFirstInPages() async throws {
        let service = InMemoryMailService(emails: InMemoryMailService.sampleEmails(now: Self.now), now: { Self.now })
        let first = try await service.list(pageSize: 4)
        #expect(first.list.total == 10)
        #expect(first.emails.map(\.subject).first == "About Nicolas Flamel")
        #expect(first.emails.map(\.date) == first.emails.map(\.date).sorted(by: >))
        let second = try await service.page(of: first.list, offset: 4, pageSize: 4)
        #expect(Set(first.emails.map(\.id)).isDisjoint(with: second.emails.map(\.id)))
        #expect(second.hasMore)
        let last = try await service.page(of: first.list, offset: 8, pageSize: 4)
        #expect(last.emails.count == 2 && !last.hasMore)
        let whole = try await service.list()
        #expect(whole.emails.count == 10)
        #expect(whole.pinnedFirst.map(\.subject).prefix(2) == ["Potions homework", "Tea on Friday?"])
        #expect(whole.pinnedFirst.dropFirst(2).allSatisfy { !$0.isPinned })
    }

    /// `search("text")`: the query language's text straight in, one error type out.
    @Test func searchTakesTheQueryAsText() async throws {
        let service = InMemoryMailService(emails: InMemoryMailService.sampleEmails(now: Self.now), now: { Self.now })
        let found = try await service.search("from:albus")
        #expect(found.emails.map(\.subject) == ["About Nicolas Flamel", "Thing about pain"])
        #expect(found == (try await service.search(try query("from:albus"), pageSize: 50)))
        do {
            _ = try await service.search("subject:\"unclosed")
            Issue.record("text that does not parse was searched")
        } catch {
            #expect(error.code == .query && error.category == .query)
            #expect(error.queryError != nil, "\(error)")
        }
    }

    @Test(arguments: [
        ("from:albus", ["About Nicolas Flamel", "Thing about pain"]),
        ("is:unread", ["About Nicolas Flamel", "Thing about pain", "Tea on Friday?", "The Quibbler, new issue"]),
        ("is:pinned", ["Potions homework", "Tea on Friday?"]),
        ("has:attachment -from:luna", ["Transfiguration timetable", "Your vault statement"]),
        ("subject:quidditch OR subject:library", ["Library books", "Quidditch practice moved"]),
        ("\"next great adventure\"", ["About Nicolas Flamel"]),
        ("nothing-matches-this", []),
    ])
    func searchesLikeAServer(query text: String, subjects: [String]) async throws {
        let service = InMemoryMailService(emails: InMemoryMailService.sampleEmails(now: Self.now), now: { Self.now })
        let found = try await service.search(try query(text), pageSize: 50)
        #expect(found.emails.map(\.subject) == subjects)
        #expect(found.list.total == subjects.count)
    }

    @Test func flagChangesAreStoredAndAnnounced() async throws {
        let service = InMemoryMailService(emails: InMemoryMailService.sampleEmails(now: Self.now))
        var events = service.events().makeAsyncIterator()
        let email = try #require(try await service.list(pageSize: 1).emails.first)
        #expect(!email.isPinned)
        let result = try await service.setPinned(true, for: [email.id])
        #expect(result.refused.isEmpty && result.flags[email.id] == [.flagged])
        #expect(service.email(email.id)?.isPinned == true)
        #expect(await events.next() == .flagsChanged(email.id, [.flagged]))
        service.refuseFlagChanges(reason: "the mailbox is read-only")
        let refused = try await service.setRead(true, for: [email.id])
        #expect(refused.refused[email.id] == "the mailbox is read-only")
        #expect(service.email(email.id)?.isRead == false)
    }

    @Test func aHeldCallWaitsForReleaseAndCancellationEndsTheWait() async throws {
        let service = InMemoryMailService(emails: InMemoryMailService.sampleEmails(now: Self.now))
        service.hold(.search)
        let held = Task { try await service.search(try query("albus"), pageSize: 10) }
        while service.waitingCount(.search) == 0 { await Task.yield() }
        let cancelled = Task { try await service.search(try query("ron"), pageSize: 10) }
        while service.waitingCount(.search) < 2 { await Task.yield() }
        cancelled.cancel()
        do {
            _ = try await cancelled.value
            Issue.record("a cancelled search returned results")
        } catch let error as MailServiceError {
            #expect(error.code == .cancelled)
        }
        #expect(service.waitingCount(.search) == 1)
        service.release(.search)
        #expect(try await held.value.emails.count == 2)
    }

    @Test func failuresAndAnotherClientsChanges() async throws {
        let service = InMemoryMailService(emails: InMemoryMailService.sampleEmails(now: Self.now))
        service.setFailure(MailServiceError(.connection, "the server is unreachable"), for: .list)
        await #expect(throws: MailServiceError.self) { try await service.list(pageSize: 5) }
        service.setFailure(nil, for: .list)
        var events = service.events().makeAsyncIterator()
        let sample = InMemoryMailService.sampleEmails(now: Self.now)[0]
        let arrived = service.deliver(sample)
        #expect(arrived.uid == 11)
        #expect(await events.next() == .arrived([arrived]))
        service.expunge([arrived.id])
        #expect(await events.next() == .expunged([arrived.id]))
        #expect(try await service.list(pageSize: 50).list.total == 10)
    }
}
