import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// Literals of all three kinds: synchronizing `{n}` (answered with `+`), LITERAL+ `{n+}` of any
/// size, LITERAL- `{n+}` up to 4096 bytes (RFC 7888).
@Suite(.hangGuard) struct LiteralTests {
    @Test func rulesOfEachExtension() {
        let small = Array("a APPEND INBOX {3+}\r\nabc\r\n".utf8)
        let large =
            Array("a APPEND INBOX {5000+}\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 5000) + [13, 10]
        let synchronizing =
            Array("a APPEND INBOX {5000}\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 5000) + [13, 10]
        #expect(LiteralRules.violation(in: large, capabilities: [.imap4rev1, .literalPlus]) == nil)
        #expect(LiteralRules.violation(in: small, capabilities: [.imap4rev1, .literalMinus]) == nil)
        #expect(
            LiteralRules.violation(in: large, capabilities: [.imap4rev1, .literalMinus])
                == .tooLarge(size: 5000, limit: 4096))
        #expect(LiteralRules.violation(in: small, capabilities: [.imap4rev1]) == .notAnnounced)
        #expect(LiteralRules.violation(in: synchronizing, capabilities: [.imap4rev1]) == nil)
        // The literal's own bytes are skipped, not scanned: "{9+}" inside a literal is data.
        let inside = Array("a APPEND INBOX {6}\r\n{9+}\r\n\r\n".utf8)
        #expect(LiteralRules.violation(in: inside, capabilities: [.imap4rev1]) == nil)
    }

    @Test func literalMinusRefusesLargeNonSynchronizingLiterals() async throws {
        let server = try await startServer(profile: .gmailLike)
        let client = try await server.rawClient()
        let capabilities = try await client.command("c", "CAPABILITY")
        #expect(capabilities.first?.contains("LITERAL-") == true && capabilities.first?.contains("LITERAL+") == false)
        try await client.login()
        let body = String(repeating: "x", count: 5000)
        try await client.send("a APPEND INBOX {5000+}\r\n\(body)\r\n")
        #expect(
            try await client.readLine()
                == "a BAD [TOOBIG] a non-synchronizing literal of 5000 bytes (LITERAL- allows 4096); send it as {5000}")
        #expect(try await client.command("b", "APPEND INBOX {4+}\r\nsmol").tagged.hasPrefix("b OK [APPENDUID"))
        try await client.send("d APPEND INBOX {5000}\r\n")
        #expect(try await client.readLine().hasPrefix("+ "))
        try await client.send(body + "\r\n")
        #expect(try await client.lines(until: "d").tagged.hasPrefix("d OK [APPENDUID"))
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 2])
        await server.stop()
    }

    @Test func bareIMAP4rev1RefusesNonSynchronizingLiterals() async throws {
        let server = try await startServer(profile: .imap4rev1)
        let client = try await server.rawClient()
        try await client.login()
        #expect(
            try await client.command("a", "APPEND INBOX {2+}\r\nhi")
                == ["a BAD a non-synchronizing literal needs LITERAL+ or LITERAL-, which this server does not announce"]
        )
        #expect(server.store.uids(user: "alice", mailbox: "INBOX").isEmpty)
        await server.stop()
    }

    @Test func literalsInsideSearchAndLogin() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        let client = try await server.rawClient()
        try await client.send("l LOGIN {5+}\r\nalice {6+}\r\nsecret\r\n")
        #expect(try await client.lines(until: "l").tagged.hasPrefix("l OK "))
        _ = try await client.command("s", "SELECT INBOX")
        #expect(try await client.numbers("a", "UID SEARCH CHARSET UTF-8 FROM {7+}\r\nJürgen") == [2])
        await server.stop()
    }

    @Test func largeFetchesAreStreamed() async throws {
        let server = try await startServer()
        let big = String(repeating: "0123456789abcdef", count: 16 * 1024)  // 256 KiB
        for index in 1...12 {
            try server.store.seed(user: "alice", from: .raw(message(subject: "big \(index)", body: big)))
        }
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        let result = try await client.fetch("f", "FETCH 1:* (UID BODY.PEEK[TEXT])")
        #expect(result.fetches.count == 12)
        #expect(result.fetches.allSatisfy { $0.bodySection(.text)?.count == big.utf8.count + 2 })
        #expect(result.tagged?.status == .ok)
        await server.stop()
    }
}
