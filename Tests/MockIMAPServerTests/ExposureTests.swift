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

extension ExposureTests {
    @Test func aBigSynchronizingLiteralBeforeLoginGetsBADNotAPlus() async throws {
        let server = try await startServer(allowPlainText: true)
        let client = try await server.rawClient(tls: false)
        // Far under the server's literal limit (1 MiB here), far over the limit before login.
        try await client.send("a LOGIN {100000}\r\n")
        #expect(
            try await client.readLine()
                == "a BAD literal too large before login: a literal of 100000 bytes (the limit is 8192)")
        // The refused literal was never sent: the next line is a command again.
        #expect(try await client.command("b", "NOOP") == ["b OK NOOP completed"])
        // A user name and a password as literals are far under the limit.
        try await client.send("c LOGIN {5}\r\n")
        #expect(try await client.readLine().hasPrefix("+ "))
        try await client.send("alice {6}\r\n")
        #expect(try await client.readLine().hasPrefix("+ "))
        try await client.send("secret\r\n")
        #expect(try await client.lines(until: "c").tagged.hasPrefix("c OK "))
        // Logged in, the configured limit (1 MiB here) is in force again.
        try await client.send("d APPEND INBOX {100000}\r\n")
        #expect(try await client.readLine().hasPrefix("+ "))
        try await client.send(String(repeating: "x", count: 100_000) + "\r\n")
        #expect(try await client.lines(until: "d").tagged.hasPrefix("d OK [APPENDUID"))
        await server.stop()
    }

    @Test func aBigNonSynchronizingLiteralBeforeLoginGetsBYE() async throws {
        let server = try await startServer(allowPlainText: true)
        let client = try await server.rawClient(tls: false)
        // Only the announcement: the server must not wait for the literal to answer it.
        try await client.send("a LOGIN {100000+}\r\n")
        let bye = try await client.readLine()
        #expect(bye.hasPrefix("* BYE Too much data before login: a literal of 100000 bytes"), "\(bye)")
        await #expect(throws: TransportError.self) { try await client.readLine() }
        #expect(await server.waitUntilSessionsEnd())
        // A small one is fine.
        let small = try await server.rawClient(tls: false)
        try await small.send("l LOGIN {5+}\r\nalice {6+}\r\nsecret\r\n")
        #expect(try await small.lines(until: "l").tagged.hasPrefix("l OK "))
        await server.stop()
    }

    @Test func aConnectionOverTheCapGetsBYE() async throws {
        let server = try await startServer(maximumConnections: 2)
        let first = try await server.rawClient(tls: false)
        let second = try await server.rawClient(tls: false)
        let third = try await NetworkConnection.connect(
            host: "127.0.0.1", port: server.port(for: .plain)!, security: .plainText)
        let refused = RawClient(connection: third)
        #expect(try await refused.readLine() == "* BYE Too many connections (at most 2); try again later")
        await #expect(throws: TransportError.self) { try await refused.readLine() }
        #expect(server.sessions.count == 2)
        // A session that ends frees its place.
        first.close()
        #expect(await server.waitUntilSessionsEnd { $0.id == 1 })
        let fourth = try await NetworkConnection.connect(
            host: "127.0.0.1", port: server.port(for: .plain)!, security: .plainText)
        #expect(try await RawClient(connection: fourth).readLine().hasPrefix("* OK "))
        fourth.close()
        second.close()
        await server.stop()
    }
}

extension ExposureTests {
    /// LOGIN with literals, well formed or not, and AUTHENTICATE answers, even ones the server
    /// did not ask for: no transcript line shows the password or the SASL bytes.
    @Test func transcriptsHideLiteralLoginsAndSASLAnswers() async throws {
        let server = try await startServer()
        let answer = Base64.encode(Array("\0bob\0hunter2".utf8))
        let tls = try await server.rawClient()
        // Synchronizing literals, then a malformed LOGIN (two spaces after the tag) whose literals
        // are read before the parser refuses it, then one separated by tabs.
        for (tag, separator) in [("x", " "), ("m", "  ")] {
            try await tls.send("\(tag)\(separator)LOGIN {3}\r\n")
            #expect(try await tls.readLine().hasPrefix("+ "))
            try await tls.send("bob {7}\r\n")
            #expect(try await tls.readLine().hasPrefix("+ "))
            try await tls.send("hunter2\r\n")
            #expect(try await tls.readLine().hasPrefix("\(tag) "))
        }
        #expect(try await tls.command("t", "LOGIN\tbob\thunter2").tagged.hasPrefix("t BAD "))
        try await tls.send("n LOGIN {3+}\r\nbob {7+}\r\nhunter2\r\n")
        #expect(try await tls.lines(until: "n").tagged.hasPrefix("n BAD already logged in"))
        tls.close()
        let sasl = try await server.rawClient()
        try await sasl.send("p AUTHENTICATE PLAIN\r\n")
        #expect(try await sasl.readLine().hasPrefix("+"))
        try await sasl.send(answer + "\r\n")
        #expect(try await sasl.lines(until: "p").tagged.hasPrefix("p OK "))
        sasl.close()
        // A client that sends its answer without waiting for "+", to a server that refuses.
        let plain = try await server.rawClient(tls: false)
        try await plain.send("q AUTHENTICATE PLAIN\r\n\(answer)\r\n")
        #expect(try await plain.readLine().hasPrefix("q NO [PRIVACYREQUIRED]"))
        #expect(try await plain.readLine().hasPrefix("* BAD "))
        plain.close()
        #expect(await server.waitUntilSessionsEnd())
        let transcripts = server.sessions.map(\.transcriptText).joined(separator: "\n")
        for secret in ["hunter2", answer, String(answer.prefix(8))] {
            #expect(!transcripts.contains(secret), "a transcript shows \(secret):\n\(transcripts)")
        }
        for line in ["C: x LOGIN ***", "C: m LOGIN ***", "C: t LOGIN ***", "C: n LOGIN ***", "C: p AUTHENTICATE PLAIN"]
        {
            #expect(transcripts.contains(line + "\n"), "no \(line) in:\n\(transcripts)")
        }
        #expect(!transcripts.contains("C: bob"))
        await server.stop()
    }
}
