import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// The client's whole round of work against the mock server under each capability profile, so
/// every fallback (no SORT, no ESEARCH, no CONDSTORE, no IDLE-less polling, refused UTF-8) runs.
@Suite(.hangGuard, .timeLimit(.minutes(3))) struct ProfileTests {
    @Test(arguments: Profile.allCases) func theClientWorksUnderEveryProfile(profile: Profile) async throws {
        let server = try await MockServerFixture.start(profile: profile)
        try MockServerFixture.seed(server, count: 120)
        _ = try server.store.seed(
            user: "alice",
            from: .raw(Array("From: Jürgen Müller <jm@example.com>\r\nSubject: Grüße\r\n\r\nHallo\r\n".utf8)))
        let session = try await server.loggedInSession { $0.timeouts.pollInterval = .milliseconds(200) }
        let other = try await server.loggedInSession()
        let capabilities = await session.capabilities

        // Search with the count, through SORT, ESEARCH or SEARCH (the order among messages that
        // arrived at the same second is the server's: SORT breaks ties by sequence number).
        let all = try await session.search([.all])
        #expect(Set(all.uids) == Set((1...121).map { UInt32($0) }))
        #expect(all.uids.first == 121)
        #expect(all.count == 121)
        let found = try await session.search([.subject("message 10")])
        // Gmail matches whole words; the others substrings (RFC 3501).
        #expect(
            Set(found.uids) == (profile == .gmailLike ? [10] : [10, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109]))

        // Non-ASCII: UTF-8 where the server takes it, a clear error where it refuses.
        if profile == .exchangeLike {
            await #expect(throws: IMAPError.self) { _ = try await session.search([.from("Müller")]) }
        } else {
            #expect(try await session.search([.from("Müller")]).uids == [121])
        }

        // Summaries with previews (PREVIEW or the first text part).
        var summaries: [MessageSummary] = []
        for try await summary in session.fetchSummaries(SequenceSet(numbers: [3, 121])) { summaries.append(summary) }
        #expect(summaries.map(\.uid).sorted() == [3, 121])
        #expect(summaries.first { $0.uid == 3 }?.preview == "Body of message 3.")
        #expect(summaries.first { $0.uid == 121 }?.preview == "Hallo")

        // Flags: set, read back over another connection, cleared; CONDSTORE where offered.
        try await session.store(SequenceSet(numbers: [5, 6]), .add, [.flagged], silent: true)
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 5)?.contains(.flagged) == true)
        #expect(Set(try await other.search([.flagged]).uids) == [6, 5])
        try await session.store(SequenceSet(5), .remove, [.flagged], silent: true)
        #expect(try await other.search([.flagged]).uids == [6])
        if capabilities.contains(.condstore) {
            let stale = try #require(server.store.modificationSequence(user: "alice", mailbox: "INBOX", uid: 6))
            try await other.store(SequenceSet(6), .add, [.seen], silent: true)
            let result = try await session.store(SequenceSet(6), .remove, [.flagged], unchangedSince: stale)
            #expect(result.refused == SequenceSet(6))
        }

        // Events: another connection's change and expunge, by UID (IDLE or NOOP polling).
        let ready = Signal()
        let flagSeen = Signal()
        let watcher = Task { () -> [MailboxEvent] in
            var seen: [MailboxEvent] = []
            let iterator = session.events().makeAsyncIterator()
            await ready.raise()
            while let event = try await iterator.next() {
                seen.append(event)
                if case .flagsChanged(7, _, _) = event { await flagSeen.raise() }
                if case .expunged = event { break }
            }
            return seen
        }
        await ready.wait()
        try await other.store(SequenceSet(7), .add, [.answered, .deleted], silent: true)
        await flagSeen.wait()
        if capabilities.contains(.uidPlus) {
            try await other.execute(.uidExpunge(SequenceSet(7)))
        } else {
            try await other.execute(.expunge)
        }
        let events = try await watcher.value
        #expect(
            events.contains { if case .flagsChanged(7, let flags, _) = $0 { flags.contains(.answered) } else { false } }
        )
        #expect(events.last == .expunged(SequenceSet(7)))
        #expect(try await session.search([.all]).count == 120)

        await session.logout()
        await other.logout()
        await server.stop()
    }
}
