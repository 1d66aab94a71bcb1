import IMAPCore
import MailMIME
import MockIMAPServer
import TestSupport
import Testing
import Transport

/// What keeps the mock server safe for users who bind it beyond loopback: response text that a
/// client cannot split, a cap on what a client may send before it logs in, a cap on connections,
/// and transcripts that never show a credential.
@Suite(.hangGuard) struct ExposureTests {
    @Test func aMailboxNameWithCRLFCannotSplitTheResponse() async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        try await client.login()
        let name = "x\r\nA1 DELETE x\u{1B}[2J"
        try await client.send("d DELETE {\(name.utf8.count)}\r\n")
        #expect(try await client.readLine().hasPrefix("+ "))
        try await client.send(name + "\r\n")
        // Whatever the name made of the NO, the next line is the NOOP's answer.
        try await client.send("n NOOP\r\n")
        let lines = try await client.lines(until: "n")
        #expect(lines == ["d NO [NONEXISTENT] Mailbox does not exist: x  A1 DELETE x [2J", "n OK NOOP completed"])
        #expect(lines.allSatisfy { line in line.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } })
        await server.stop()
    }
}
