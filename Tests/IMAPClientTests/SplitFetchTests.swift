import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// A server may split one message's data over several FETCH responses (RFC 3501 7.4.2, RFC 9051
/// 7.5.2): here, after the full answer, a FLAGS-only FETCH of message 3 before the tagged OK.
/// Every fetch of the engine hands the message over once, with the later flags and the envelope
/// of the first response (a summary used to be replaced by one with an empty sender, subject
/// and date, or handed over twice).
@Suite(.hangGuard, .timeLimit(.minutes(2)))
struct SplitFetchTests {
    static let extra = UnsolicitedResponse.line("* 3 FETCH (UID 3 FLAGS (\\Seen \\Flagged))")

    static func server() async throws -> MockIMAPServer {
        let server = try await MockServerFixture.start()
        try MockServerFixture.seed(server, count: 10)
        _ = server.faults.add(.command("UID FETCH"), .inject([extra]))
        return server
    }

    static func check(_ summaries: [MessageSummary], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(summaries.filter { $0.uid == 3 }.count == 1, "\(summaries.map(\.uid))", sourceLocation: sourceLocation)
        for summary in summaries {
            #expect(summary.decoded.subject == "message \(summary.uid)", sourceLocation: sourceLocation)
            #expect(
                summary.decoded.from.first?.address == "sender\(summary.uid)@example.com",
                sourceLocation: sourceLocation)
            #expect(summary.decoded.date != nil, sourceLocation: sourceLocation)
        }
        let flags = Set(summaries.first { $0.uid == 3 }?.flags ?? [])
        #expect(flags.isSuperset(of: [.seen, .flagged]), "\(flags)", sourceLocation: sourceLocation)
    }

    @Test func summariesInAListsOrderMergeTheSplitData() async throws {
        let server = try await Self.server()
        defer { Task { await server.stop() } }
        let session = try await server.loggedInSession()
        var summaries: [MessageSummary] = []
        for try await summary in session.fetchSummaries(inOrder: Array((1...10).reversed())) {
            summaries.append(summary)
        }
        #expect(summaries.map(\.uid) == Array((1...10).reversed()))
        Self.check(summaries)
        await session.logout()
    }

    @Test func summariesOfASetMergeTheSplitData() async throws {
        let server = try await Self.server()
        defer { Task { await server.stop() } }
        let session = try await server.loggedInSession()
        var summaries: [MessageSummary] = []
        for try await summary in session.fetchSummaries(SequenceSet(1...10)) { summaries.append(summary) }
        #expect(summaries.map(\.uid) == Array(1...10))
        Self.check(summaries)
        await session.logout()
    }

    @Test func rawMessagesMergeTheSplitData() async throws {
        let server = try await Self.server()
        defer { Task { await server.stop() } }
        let session = try await server.loggedInSession()
        var messages: [FetchResponse] = []
        for try await message in session.fetch(SequenceSet(1...10), items: [.uid, .flags, .envelope]) {
            messages.append(message)
        }
        #expect(messages.map(\.uid) == Array(1...10))
        let third = try #require(messages.first { $0.uid == 3 })
        #expect(third.envelope?.subject?.string == "message 3")
        let flags = Set(third.flags ?? [])
        #expect(flags.isSuperset(of: [.seen, .flagged]), "\(flags)")
        await session.logout()
    }
}
