import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// Summaries fetched in a list's order (newest first, or pinned first): windows of
/// `fetchWindow` in flight together, each put back in order; messages gone meanwhile left out.
@Suite(.hangGuard, .timeLimit(.minutes(2)))
struct OrderedSummaryTests {
    /// An order that is neither ascending nor descending, across several windows of 6.
    static let order: [UInt32] = [
        40, 3, 39, 7, 1, 20, 21, 22, 30, 38, 2, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 5, 33,
    ]

    /// With PREVIEW (`full`) the windows stream; without (`imap4rev1`) previews are made from
    /// the text parts, chunk by chunk. Either way the order is the one asked for.
    @Test(arguments: [Profile.full, .imap4rev1])
    func summariesComeInTheOrderAskedFor(profile: Profile) async throws {
        let server = try await MockServerFixture.start(profile: profile)
        defer { Task { await server.stop() } }
        try MockServerFixture.seed(server, count: 40)
        try server.store.expunge(user: "alice", mailbox: "INBOX", uids: [7, 30])
        let session = try await server.loggedInSession { $0.fetchWindow = 6 }
        var summaries: [MessageSummary] = []
        for try await summary in session.fetchSummaries(inOrder: Self.order) { summaries.append(summary) }
        #expect(summaries.map(\.uid) == Self.order.filter { $0 != 7 && $0 != 30 })
        for summary in summaries {
            #expect(summary.decoded.subject == "message \(summary.uid)")
            #expect(summary.decoded.preview == "Body of message \(summary.uid).")
            #expect(summary.decoded.from.first?.address == "sender\(summary.uid)@example.com")
        }
        await session.logout()
        if profile == .full {
            // One UID FETCH per window of the order (the two in flight may go out either way round).
            let fetched = server.sessions.flatMap(\.transcript).filter {
                $0.direction == .client && $0.text.contains(" UID FETCH ")
            }
            let windows = stride(from: 0, to: Self.order.count, by: 6).map {
                SequenceSet(numbers: Self.order[$0..<min(Self.order.count, $0 + 6)]).description
            }
            #expect(
                Set(fetched.compactMap { $0.text.split(separator: " ").dropFirst(3).first.map(String.init) })
                    == Set(windows))
            #expect(fetched.count == windows.count)
        }
    }

    /// A connection lost in the middle of the windows: the connection reconnects and fetches
    /// what had not been handed over; every message is handed over once, in order.
    @Test func aConnectionLostBetweenWindowsHandsEveryMessageOverOnce() async throws {
        let server = try await MockServerFixture.start()
        defer { Task { await server.stop() } }
        try MockServerFixture.seed(server, count: 30)
        var configuration = server.clientConfiguration()
        configuration.fetchWindow = 5
        let connection = MailboxConnection(
            configuration: configuration, credentials: .password(user: "alice", password: "secret"),
            policy: .init(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), jitterSeed: 1))
        _ = try await connection.open()
        _ = server.faults.add(.command("UID FETCH", occurrence: 3), .closeAfter(bytes: 100))
        let order = (1...30).reversed().map { UInt32($0) }
        let collected = Collected()
        try await connection.summaries(inOrder: order) { batch in await collected.append(batch.map(\.uid)) }
        #expect(await collected.uids == order)
        // It did reconnect: two sessions logged in.
        #expect(server.sessions.count == 2)
        await connection.close()
    }
}

extension OrderedSummaryTests {
    /// A consumer that stops after the first summary stops the windows: no window after those
    /// already asked for goes out, and the session serves the next command at once. (Windows
    /// are how a server with PREVIEW is asked, so the server has it under every profile run.)
    @Test func aConsumerThatStopsEndsTheWindows() async throws {
        let server = try await MockServerFixture.start(profile: .full)
        defer { Task { await server.stop() } }
        try MockServerFixture.seed(server, count: 40)
        let session = try await server.loggedInSession { $0.fetchWindow = 5 }
        let order = (1...40).reversed().map { UInt32($0) }
        for try await summary in session.fetchSummaries(inOrder: order) {
            #expect(summary.uid == 40)
            break
        }
        var again: [UInt32] = []
        for try await summary in session.fetchSummaries(inOrder: [3, 2]) { again.append(summary.uid) }
        #expect(again == [3, 2])
        await session.logout()
        let fetched = server.sessions.flatMap(\.transcript).filter {
            $0.direction == .client && $0.text.contains(" UID FETCH ")
        }
        // The two windows in flight from the start, at most two more launched before the
        // consumer's leaving is seen, and the fetch after: not the 8 windows of the whole order.
        #expect(fetched.count <= 5)
    }
}

private actor Collected {
    var uids: [UInt32] = []
    func append(_ more: [UInt32]) { uids += more }
}
