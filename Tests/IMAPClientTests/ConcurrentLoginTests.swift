import IMAPCore
import TestSupport
import Testing

@testable import IMAPClient

/// Logins made together on one session.
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct ConcurrentLoginTests {
    /// A second `login` while the first waits for the server waits for that one's outcome
    /// instead of sending a second AUTHENTICATE, which a server refuses once the first succeeded.
    @Test func aLoginMadeWhileAnotherRunsSharesItsOutcome() async throws {
        let log = LineLog()
        let answer = Latch()
        let server = try ScriptedServer(
            greeting: "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR] hi\r\n"
        ) { line, connection in
            log.append(line)
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased().hasPrefix("AUTHENTICATE") {
                let authenticated = log.lines.filter { $0.uppercased().contains("AUTHENTICATE") }.count > 1
                if authenticated {
                    await connection.send("\(tag) BAD [CLIENTBUG] already authenticated\r\n")
                } else {
                    _ = await answer.wait(timeout: .seconds(30))
                    await connection.send("\(tag) OK [CAPABILITY IMAP4rev1] logged in\r\n")
                }
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
        let session = try await IMAPSession.connect(SessionBehaviourTests.configuration(port: server.port))
        let credentials = Credentials.password(user: "bob", password: "pw")
        let first = Task { try await session.login(credentials) }
        await log.wait { $0.contains { $0.uppercased().contains("AUTHENTICATE") } }
        let second = Task { try await session.login(credentials) }
        await session.waitUntilLoginsWait(1)
        answer.open()
        try await first.value
        try await second.value
        #expect(await session.isAuthenticated)
        #expect(log.lines.filter { $0.uppercased().contains("AUTHENTICATE") }.count == 1)
        await session.close()
        server.stop()
    }
}
