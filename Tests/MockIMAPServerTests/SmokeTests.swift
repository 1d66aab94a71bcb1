import IMAPClient
import IMAPCore
import MockIMAPServer
import Testing

@Suite struct SmokeTests {
    @Test func loginSelectSearchFetch() async throws {
        let server = try await startServer()
        try server.store.seed(user: "alice", from: .raw(message(subject: "Apple update"), flags: [.seen]))
        try server.store.seed(user: "alice", from: .raw(message(subject: "Amazon quarterly update")))
        let session = try await server.session()
        let uids = try await session.search([.subject("amazon")])
        #expect(uids == [2])
        var subjects: [String] = []
        for try await fetch in session.fetch(SequenceSet(numbers: [1, 2]), items: [.envelope, .flags]) {
            subjects.append(fetch.envelope?.subject?.string ?? "")
        }
        #expect(subjects == ["Apple update", "Amazon quarterly update"])
        await session.logout()
        await server.stop()
        print(server.sessions.map(\.transcriptText).joined(separator: "\n---\n"))
    }
}
