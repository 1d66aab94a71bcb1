import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing
import Transport

/// Malformed input gets BAD with a reason and the session goes on; limits; the login timeout;
/// many concurrent sessions.
@Suite(.hangGuard) struct RobustnessTests {
    struct Malformed: Sendable, CustomTestStringConvertible {
        let input: String
        let answer: String
        var testDescription: String { input.debugDescription }
    }

    static let malformed: [Malformed] = [
        Malformed(input: "a1 SEARCH (SEEN FLAGGED\r\n", answer: "a1 BAD syntax error: "),
        Malformed(input: "a2 SEARCH SEEN)\r\n", answer: "a2 BAD syntax error: "),
        Malformed(input: "a3 FROBNICATE now\r\n", answer: "a3 BAD unknown command FROBNICATE"),
        Malformed(input: "a4 APPEND INBOX {12x}\r\n", answer: "a4 BAD syntax error: "),
        Malformed(input: "a5 APPEND INBOX {9999999999999999999999}\r\n", answer: "a5 BAD literal too large: "),
        Malformed(input: "a6 FETCH 1 FLAGS\r\n", answer: "a6 BAD FETCH needs a selected mailbox"),
        Malformed(input: "a7 LOGIN alice\r\n", answer: "a7 BAD syntax error: "),
        Malformed(input: "a8 UID FROB 1\r\n", answer: "a8 BAD unknown command UID FROB"),
        Malformed(input: "a9 FETCH 1 (FLAGS\r\n", answer: "a9 BAD "),
        Malformed(input: "b1 STORE 1 +FLAGS\r\n", answer: "b1 BAD "),
        Malformed(input: "b2 SELECT\r\n", answer: "b2 BAD syntax error: "),
        Malformed(input: "b3 LIST \"\" \"unterminated\r\n", answer: "b3 BAD syntax error: "),
        Malformed(input: "b4 SEARCH BEFORE 30-Feb-2024\r\n", answer: "b4 BAD "),
        Malformed(input: "\r\n", answer: "* BAD "),
        Malformed(input: "nospace\r\n", answer: "* BAD "),
    ]

    @Test(arguments: malformed) func malformedCommandGetsBADAndTheSessionGoesOn(_ test: Malformed) async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        try await client.login()
        if test.input.hasPrefix("a6") == false { _ = try await client.command("s", "SELECT INBOX") }
        if test.input.hasPrefix("a6") { _ = try await client.command("u", "NOOP") }
        try await client.send(test.input)
        let answer = try await client.readLine()
        #expect(answer.hasPrefix(test.answer), "\(answer)")
        #expect(try await client.command("n", "NOOP").tagged == "n OK NOOP completed")
        await server.stop()
    }

    @Test func overLongLineIsRefusedWithTheLimitNamed() async throws {
        let server = try await startServer(limits: ParserOptions(maximumLineLength: 1000, maximumLiteralSize: 5000))
        let client = try await server.rawClient()
        try await client.send("t1 NOOP " + String(repeating: "x", count: 5000) + "\r\n")
        let answer = try await client.readLine()
        #expect(answer.hasPrefix("t1 BAD line too long: a line longer than 1000 bytes"), "\(answer)")
        try await client.login()
        await server.stop()
    }

    @Test func literalOverTheLimitIsRefusedWithTheLimitNamed() async throws {
        let server = try await startServer(limits: ParserOptions(maximumLineLength: 1000, maximumLiteralSize: 5000))
        let client = try await server.rawClient()
        try await client.login()
        // Synchronizing: refused before the client sends it.
        try await client.send("a APPEND INBOX {6000}\r\n")
        #expect(try await client.readLine() == "a BAD literal too large: a literal of 6000 bytes (the limit is 5000)")
        // Non-synchronizing: the bytes that follow are skipped.
        try await client.send("b APPEND INBOX {6000+}\r\n" + String(repeating: "y", count: 6000) + "\r\n")
        #expect(try await client.readLine() == "b BAD literal too large: a literal of 6000 bytes (the limit is 5000)")
        #expect(try await client.command("c", "APPEND INBOX {5+}\r\nhello").tagged.hasPrefix("c OK [APPENDUID"))
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1])
        await server.stop()
    }

    @Test func silentUnauthenticatedConnectionIsClosedAfterTheTimeout() async throws {
        let server = try await startServer(loginTimeout: .milliseconds(600))
        let silent = try await server.rawClient()
        let loggedIn = try await server.rawClient()
        try await loggedIn.login()
        #expect(try await silent.readLine(timeout: .seconds(10)) == "* BYE Autologout; idle for too long")
        // Closed by the server, not a read that timed out (also a TransportError).
        let closed = await #expect(throws: TransportError.self) { try await silent.readLine(timeout: .seconds(5)) }
        #expect(closed?.code == .connectionClosed)
        // A logged-in session is not subject to the login timeout. This sleep is the test's
        // subject, not synchronisation: the logged-in session stays silent past the timeout.
        try await Task.sleep(for: .milliseconds(800))
        #expect(try await loggedIn.command("n", "NOOP") == ["n OK NOOP completed"])
        await server.stop()
    }

    @Test func twoHundredConcurrentTLSSessions() async throws {
        // More sessions at once than the default cap of 100.
        let server = try await startServer(maximumConnections: 300)
        let count = 200
        for index in 1...count {
            try server.store.seed(
                user: "alice", from: .raw(message(subject: "message \(index) end", body: "body \(index)")))
        }
        let configuration = server.clientConfiguration()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 1...count {
                group.addTask {
                    let session = try await IMAPSession.connect(configuration)
                    try await session.login(.password(user: "alice", password: "secret"))
                    let inbox = try await session.select("INBOX")
                    #expect(inbox.messageCount >= UInt32(count))
                    let uids = try await session.search([.subject(ByteString("message \(index) end"))]).uids
                    #expect(uids == [UInt32(index)])
                    var subjects: [String] = []
                    for try await fetch in session.fetch(SequenceSet(numbers: uids), items: [.envelope]) {
                        subjects.append(fetch.envelope?.subject?.string ?? "")
                    }
                    #expect(subjects == ["message \(index) end"])
                    // Every session adds its own keyword to message 1: none may be lost.
                    try await session.store(SequenceSet(1), .add, [Flag("k\(index)")])
                    await session.logout()
                }
            }
            try await group.waitForAll()
        }
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1)?.count == count)
        #expect(server.sessions.count == count)
        #expect(server.sessions.allSatisfy { $0.user == "alice" })
        await server.stop()
    }
}
