import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MockIMAPServer
import TestSupport
import Testing

/// A search the person left (Esc, or a new query) never holds up the next one: with searches on
/// a connection of their own, the next search is answered while the server is still working on
/// the abandoned one, and the main connection never carried either.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct SearchLaneTests {
    /// The tag of the client's command in `session` whose text contains `text`.
    func tag(of text: String, in session: SessionInfo) -> String? {
        session.transcript.first { $0.direction == .client && $0.text.contains(text) }.flatMap {
            $0.text.split(separator: " ").first.map(String.init)
        }
    }

    @Test func aSearchLeftForAnotherDoesNotHoldUpTheNext() async throws {
        let server = try await ServiceFixture.start(profile: .full, count: 60)
        defer { Task { await server.stop() } }
        // The listing sorts first; the second UID SORT, the search that will be left, takes 20 s.
        server.faults.add(FaultRule(trigger: .command("UID SORT", occurrence: 2), fault: .delay(.seconds(20))))
        let service = IMAPMailService(
            configuration: ServiceFixture.configuration(server),
            credentials: .password(user: "alice", password: "secret"),
            searchesOnOwnConnection: true)
        _ = try await service.list(pageSize: 10)
        let slow = Task { try await service.search(try query("body:\"Body of message\""), pageSize: 10) }
        // Left as soon as the server has it.
        while !server.faults.fired.contains(where: { $0.command.uppercased() == "UID SORT" }) {
            try await Task.sleep(for: .milliseconds(5))
        }
        slow.cancel()
        let quick = try await service.search(try query("subject:\"message 42\""), pageSize: 10)
        #expect(quick.emails.map { $0.subject } == ["message 42"])

        // The left search is still unanswered: the quick one never waited for it.
        let left = try #require(server.sessions.first { tag(of: "Body of message", in: $0) != nil })
        let leftTag = try #require(tag(of: "Body of message", in: left))
        #expect(!left.transcript.contains { $0.direction == .server && $0.text.hasPrefix(leftTag + " ") })
        // And neither search ran on the main connection (the first session).
        let main = try #require(server.sessions.min { $0.id < $1.id })
        #expect(!main.transcript.contains { $0.direction == .client && $0.text.contains("SUBJECT") })
        #expect(main.id != left.id)
        // A page of the results comes from the main connection, at once.
        let page = try await service.page(of: quick.list, offset: 0, pageSize: 10)
        #expect(page.emails.count == 1)
        await service.close()
    }
}
