import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MockIMAPServer
import Synchronization
import TestSupport
import Testing

/// `IMAPMailService` with the account's index, against the mock server: what was shown once is
/// shown again with only its flags fetched, in the same order, with the flags the server has now;
/// an indexed mailbox's pages come from the index.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct ListingIndexServiceTests {
    static func cache() throws -> (MessageIndex, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listing-service-\(UUID())")
        return (try MessageIndex(path: directory.appendingPathComponent("index.sqlite").path), directory)
    }

    /// An index of the server's INBOX, synced, and its directory.
    static func syncedIndex(_ server: MockIMAPServer) async throws -> (MessageIndex, URL) {
        let (index, directory) = try cache()
        let syncing = ServiceFixture.service(server)
        _ = try await syncing.syncIndex(index, mailboxes: ["INBOX"])
        await syncing.close()
        return (index, directory)
    }

    /// The FETCH lines of every session, without tags.
    static func fetches(_ server: MockIMAPServer) -> [String] {
        server.sessions.sorted { $0.id < $1.id }.flatMap(\.transcript).filter { $0.direction == .client }
            .compactMap { line in
                line.text.range(of: "UID FETCH ").map { String(line.text[$0.lowerBound...]) }
            }
    }

    /// The UIDs of a FETCH line's set (`UID FETCH 1:3,7 (...)`).
    static func uids(_ line: String) -> [UInt32] {
        let set = line.split(separator: " ")[2]
        return set.split(separator: ",").flatMap { range -> [UInt32] in
            let bounds = range.split(separator: ":").compactMap { UInt32($0) }
            return bounds.count == 2 ? Array(min(bounds[0], bounds[1])...max(bounds[0], bounds[1])) : bounds
        }
    }

    /// All of `list` through ``IMAPMailService/emails(of:offset:count:batches:)``.
    static func streamed(_ service: IMAPMailService, _ list: MessageList) async throws -> [Email] {
        let collected = Collected()
        try await service.emails(of: list, offset: 0, count: list.ids.count) { emails in collected.add(emails) }
        return collected.emails
    }

    final class Collected: Sendable {
        private let state = Mutex<[Email]>([])
        func add(_ emails: [Email]) { state.withLock { $0 += emails } }
        var emails: [Email] { state.withLock { $0 } }
    }

    /// A message marked deleted after the mailbox was listed is left out of what the listing
    /// streams, fetched whole or from the cache; the others stream in the list's order.
    @Test(arguments: [false, true]) func aMessageDeletedAfterTheListingIsLeftOutOfTheStream(cached: Bool) async throws {
        let server = try await ServiceFixture.start(count: 12)
        defer { Task { await server.stop() } }
        let (cache, directory) = try Self.cache()
        defer { try? FileManager.default.removeItem(at: directory) }
        if cached {
            let filling = ServiceFixture.service(server, index: cache)
            _ = try await filling.search(try query("subject:message"), pageSize: 12)
            await filling.close()
        }
        let service = ServiceFixture.service(server, index: cached ? cache : nil)
        let listing = try await service.listing()
        #expect(listing.hidesDeleted)
        try server.store.setFlags([.deleted], user: "alice", mailbox: "INBOX", uid: 7)
        let streamed = try await Self.streamed(service, listing)
        await service.close()
        #expect(streamed.map(\.uid) == Array((1...12).reversed()).filter { $0 != 7 })
    }

    @Test(arguments: [Profile.full, .imap4rev1]) func aPageShownBeforeFetchesOnlyFlagsAndShowsTheirChanges(
        profile: Profile
    ) async throws {
        let server = try await ServiceFixture.start(profile: profile, count: 30, mime: true)
        defer { Task { await server.stop() } }
        let (cache, directory) = try Self.cache()
        defer { try? FileManager.default.removeItem(at: directory) }

        let first = ServiceFixture.service(server, index: cache)
        let shown = try await first.search(try query("subject:message"), pageSize: 10)
        await first.close()
        #expect(shown.emails.map(\.uid) == Array((21...30).reversed()))
        #expect(Self.fetches(server).count == 1 && Self.fetches(server)[0].contains("ENVELOPE"))

        // Another client reads 30 and pins 29; 28 is expunged.
        try server.store.setFlags([.seen], user: "alice", mailbox: "INBOX", uid: 30)
        try server.store.setFlags([.flagged], user: "alice", mailbox: "INBOX", uid: 29)
        try server.store.expunge(user: "alice", mailbox: "INBOX", uids: [28])

        // The next run: the same search, only flags fetched.
        let second = ServiceFixture.service(server, index: cache)
        let again = try await second.search(try query("subject:message"), pageSize: 10)
        await second.close()
        let flagsOnly = profile == .full ? "(UID FLAGS MODSEQ)" : "(UID FLAGS)"
        // It equals what a service without a cache shows now.
        let plain = ServiceFixture.service(server)
        let fresh = try await plain.search(try query("subject:message"), pageSize: 10)
        await plain.close()
        #expect(again.emails == fresh.emails)
        #expect(again.emails.first { $0.uid == 30 }?.isRead == true)
        #expect(again.emails.first { $0.uid == 29 }?.isPinned == true)
        #expect(!again.emails.contains { $0.uid == 28 })
        // One message was not cached yet (20: the page moved down past the expunged 28): it is
        // fetched whole, the nine cached ones by their flags.
        let secondFetches = Array(Self.fetches(server).dropFirst().prefix(2))
        #expect(secondFetches.count == 2)
        #expect(secondFetches[0] == "UID FETCH 21:27,29:30 \(flagsOnly)")
        #expect(secondFetches[1].hasPrefix("UID FETCH 20 (") && secondFetches[1].contains("ENVELOPE"))
    }

    @Test func aListingOfCachedAndNewMessagesKeepsItsOrderAndCachesTheNewOnes() async throws {
        let server = try await ServiceFixture.start(count: 600)
        defer { Task { await server.stop() } }
        let (cache, directory) = try Self.cache()
        defer { try? FileManager.default.removeItem(at: directory) }

        // All 600 shown once, by a search; then a cache holding only every third of them.
        let first = ServiceFixture.service(server, index: cache)
        let uidValidity = try await first.open().uidValidity
        _ = try await Self.streamed(first, try await first.searching(try query("subject:message")).list)
        await first.close()
        #expect(try await cache.listedCount() == 600)
        let (thinned, thinnedDirectory) = try Self.cache()
        defer { try? FileManager.default.removeItem(at: thinnedDirectory) }
        let kept = try await cache.summaries(Array(1...600), in: "INBOX", uidValidity: uidValidity).values.filter {
            $0.uid % 3 == 0
        }
        try await thinned.keepListed(Array(kept), in: "INBOX", uidValidity: uidValidity)
        #expect(try await thinned.listedCount() == 200)

        let service = ServiceFixture.service(server, index: thinned)
        let list = try await service.searching(try query("subject:message")).list
        let before = Self.fetches(server).count
        let emails = try await Self.streamed(service, list)
        await service.close()
        #expect(emails.map(\.uid) == Array((1...600).reversed()))
        #expect(
            emails.allSatisfy { $0.subject == "message \($0.uid)" && $0.from.address == "sender\($0.uid)@example.com" })
        // The 200 cached by their flags, in one FETCH; the 400 others whole, none of the cached.
        let fetches = Array(Self.fetches(server).dropFirst(before))
        let flagFetches = fetches.filter { $0.hasSuffix("(UID FLAGS MODSEQ)") }
        #expect(flagFetches.count == 1 && Set(flagFetches.flatMap(Self.uids)) == Set(kept.map(\.uid)))
        let whole = fetches.filter { $0.contains("ENVELOPE") }.flatMap(Self.uids)
        #expect(Set(whole) == Set((1...600).filter { $0 % 3 != 0 }.map(UInt32.init)))
        // Now all 600 are cached, and listing them again fetches flags only, the same emails.
        #expect(try await thinned.listedCount() == 600)
        let warm = ServiceFixture.service(server, index: thinned)
        let warmList = try await warm.searching(try query("subject:message")).list
        let last = Self.fetches(server).count
        #expect(try await Self.streamed(warm, warmList) == emails)
        await warm.close()
        #expect(Self.fetches(server).dropFirst(last) == ["UID FETCH 1:600 (UID FLAGS MODSEQ)"])
    }

    /// The index is the one local store: after a sync, a listing of the indexed mailbox takes
    /// every message from it (one FETCH of flags, nothing whole) and keeps none of them twice.
    @Test func anIndexedMailboxsPagesComeFromTheIndex() async throws {
        let server = try await ServiceFixture.start(count: 40, mime: true)
        defer { Task { await server.stop() } }
        let (index, directory) = try await Self.syncedIndex(server)
        defer { try? FileManager.default.removeItem(at: directory) }

        let service = ServiceFixture.service(server, index: index)
        let before = Self.fetches(server).count
        let page = try await service.list(pageSize: 15)
        await service.close()
        let plain = ServiceFixture.service(server)
        let fresh = try await plain.list(pageSize: 15)
        await plain.close()
        #expect(page.emails == fresh.emails && page.emails.count == 15)
        let fetches = Array(Self.fetches(server).dropFirst(before).prefix(1))
        #expect(fetches == ["UID FETCH 26:40 (UID FLAGS MODSEQ)"])
        #expect(try await index.listedCount() == 0)
    }

    /// The service keeps what lists show in the index file while another connection to the same
    /// file follows the mailbox (what `watch` and `tui` do): the follower's catch-ups still land.
    @Test func aFollowerOfTheSameFileCatchesUpWhileListsKeepTheirMessages() async throws {
        let server = try await ServiceFixture.start(count: 20, mime: true)
        defer { Task { await server.stop() } }
        let (index, directory) = try await Self.syncedIndex(server)
        defer { try? FileManager.default.removeItem(at: directory) }

        let following = try MessageIndex(path: index.path)
        let service = ServiceFixture.service(server, index: index)
        _ = try await service.list(pageSize: 5)
        let updates = service.indexUpdates()
        var iterator = updates.makeAsyncIterator()
        await service.answerLocally(from: following, budget: nil)
        let first = await iterator.next()
        #expect("\(String(describing: first))".contains("caughtUp"), "\(String(describing: first))")
        let events = service.events()
        var eventIterator = events.makeAsyncIterator()
        try server.store.append(ServiceFixture.mimeMessage(99), user: "alice", mailbox: "INBOX")
        while let event = await eventIterator.next() {
            if case .arrived = event { break }
        }
        let second = await iterator.next()
        #expect("\(String(describing: second))".contains("caughtUp"), "\(String(describing: second))")
        #expect(try await index.uids(in: "INBOX").count == 21)
        await service.close()
        following.close()
    }
}
