import IMAPCore
import Synchronization
import TestSupport
import Testing

@testable import IMAPClient

/// The session's sequence-to-UID map against responses that arrive together.
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct SequenceMapTests {
    /// A `UID SEARCH ALL` and a NOOP in flight together; the server answers both in one write:
    /// the search's UIDs and its OK, then the NOOP's news (UID 11 expunged, a message arrived)
    /// and its OK. The map must be the search's answer with the news applied after it, not the
    /// answer installed over the news once the search's caller resumes.
    @Test func responsesReadWithASearchsAnswerAreAppliedAfterIt() async throws {
        let log = LineLog()
        let searchTag = Mutex<String?>(nil)
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1] hi\r\n") { line, connection in
            log.append(line)
            let (tag, command) = ScriptedServer.split(line)
            switch command.uppercased() {
            case "SELECT INBOX":
                await connection.send("* 3 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n\(tag) OK [READ-WRITE] done\r\n")
            case "UID SEARCH ALL":
                searchTag.withLock { $0 = tag }
            case "NOOP":
                let search = searchTag.withLock { $0 } ?? "?"
                await connection.send(
                    "* SEARCH 10 11 12\r\n\(search) OK done\r\n* 2 EXPUNGE\r\n* 3 EXISTS\r\n\(tag) OK done\r\n")
            default:
                await connection.send("\(tag) OK done\r\n")
            }
        }
        let session = try await IMAPSession.connect(SessionBehaviourTests.configuration(port: server.port))
        try await session.select("INBOX")
        async let found = session.search([.all], ordered: false)
        await log.wait { $0.contains { $0.hasSuffix("UID SEARCH ALL") } }
        try await session.noop()
        #expect(try await found.uids == [12, 11, 10])
        #expect(await session.machine.tracker?.uids == [10, 12, 0])
        await session.close()
        server.stop()
    }
}
