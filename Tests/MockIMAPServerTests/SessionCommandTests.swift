import IMAPClient
import IMAPCore
import MailMIME
import MockIMAPServer
import TestSupport
import Testing
import Transport

/// Commands of any state, authentication and STARTTLS, over real connections.
@Suite(.hangGuard) struct SessionCommandTests {
    @Test func capabilityNoopIDAndLogout() async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        let capability = try await client.command("a1", "CAPABILITY")
        #expect(capability.first?.hasPrefix("* CAPABILITY IMAP4rev1 ") == true)
        #expect(capability.first?.contains("AUTH=PLAIN") == true)
        #expect(capability.first?.contains("STARTTLS") == false)
        #expect(capability.tagged == "a1 OK CAPABILITY completed")
        #expect(try await client.command("a2", "NOOP") == ["a2 OK NOOP completed"])
        let id = try await client.command("a3", "ID (\"name\" \"test\")")
        #expect(id == [#"* ID ("name" "MockIMAPServer" "vendor" "MailSearch")"#, "a3 OK ID completed"])
        #expect(
            try await client.command("a4", "LOGOUT") == ["* BYE MockIMAPServer logging out", "a4 OK LOGOUT completed"])
        await #expect(throws: TransportError.self) { try await client.readLine(timeout: .seconds(5)) }
        await server.stop()
    }

    @Test func loggedInCommandsOfAnyState() async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        try await client.login()
        #expect(
            try await client.command("e", "ENABLE CONDSTORE X-UNKNOWN") == [
                "* ENABLED CONDSTORE", "e OK ENABLE completed",
            ])
        #expect(
            try await client.command("n", "NAMESPACE") == [
                #"* NAMESPACE (("" "/")) NIL NIL"#, "n OK NAMESPACE completed",
            ])
        #expect(try await client.command("c", "NOOP") == ["c OK NOOP completed"])
        let capability = try await client.command("k", "CAPABILITY")
        #expect(capability.first?.contains("AUTH=") == false)
        #expect(capability.first?.contains("CONDSTORE") == true)
        await server.stop()
    }

    @Test func startTLSWithTheGeneratedCertificate() async throws {
        let server = try await startServer()
        // IMAPClient: plain text, STARTTLS, verify against certificatePEM, then log in.
        let session = try await IMAPSession.connect(server.clientConfiguration(implicitTLS: false))
        try await session.login(.password(user: "alice", password: "secret"))
        #expect(await session.isAuthenticated)
        let inbox = try await session.select("INBOX")
        #expect(inbox.messageCount == 0)
        await session.logout()
        // By hand: bytes pipelined after STARTTLS are dropped, not run.
        let connection = try await NetworkConnection.connect(
            host: "127.0.0.1", port: server.port(for: .plain)!, security: .plainText)
        let client = RawClient(connection: connection)
        let greeting = try await client.readLine()
        #expect(greeting.contains("STARTTLS") && greeting.contains("LOGINDISABLED"))
        try await client.send("s1 STARTTLS\r\ns2 LOGIN alice secret\r\n")
        #expect(try await client.readLine() == "s1 OK Begin TLS negotiation now")
        try await connection.startTLS(
            ClientTLSConfiguration(additionalTrustPEM: server.certificatePEM, usesSystemTrustStore: false),
            serverName: "localhost")
        let capability = try await client.command("s3", "CAPABILITY")
        #expect(capability.count == 2)  // no answer to s2 ever came
        #expect(capability.first?.contains("STARTTLS") == false)
        #expect(capability.first?.contains("AUTH=PLAIN") == true)
        #expect(try await client.command("s4", "STARTTLS") == ["s4 BAD TLS is already active"])
        try await client.login()
        await server.stop()
    }

    @Test func plainTextAnnouncesLoginDisabledAndRefusesLogin() async throws {
        let server = try await startServer()
        let client = try await server.rawClient(tls: false)
        let capability = try await client.command("c", "CAPABILITY")
        #expect(capability.first?.contains("LOGINDISABLED") == true)
        #expect(capability.first?.contains("AUTH=") == false)
        let login = try await client.command("l", "LOGIN alice secret")
        #expect(login.tagged.hasPrefix("l NO [PRIVACYREQUIRED] "))
        let authenticate = try await client.command("a", "AUTHENTICATE PLAIN AGFsaWNlAHNlY3JldA==")
        #expect(authenticate.tagged.hasPrefix("a NO [PRIVACYREQUIRED] "))
        await server.stop()
        // The option allows it (for clients that only speak plain text on loopback).
        let lenient = try await startServer(allowPlainText: true)
        let plain = try await lenient.rawClient(tls: false)
        #expect(try await plain.command("c", "CAPABILITY").first?.contains("AUTH=PLAIN") == true)
        try await plain.login()
        await lenient.stop()
    }

    @Test func wrongPasswordIsAuthenticationFailed() async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        #expect(
            try await client.command("l", "LOGIN alice wrong") == ["l NO [AUTHENTICATIONFAILED] Authentication failed"])
        #expect(
            try await client.command("m", "LOGIN nobody secret") == [
                "m NO [AUTHENTICATIONFAILED] Authentication failed"
            ])
        let plain = Base64.encode(Array("\0alice\0wrong".utf8))
        #expect(
            try await client.command("p", "AUTHENTICATE PLAIN \(plain)") == [
                "p NO [AUTHENTICATIONFAILED] Authentication failed"
            ])
        // IMAPClient reports it as an authentication error.
        let session = try await IMAPSession.connect(server.clientConfiguration())
        await #expect(throws: IMAPError.self) { try await session.login(.password(user: "alice", password: "nope")) }
        await session.close()
        // The next attempt on the same connection works.
        try await client.login()
        await server.stop()
    }

    @Test func authenticatePlainWithAndWithoutInitialResponse() async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        try await client.send("a AUTHENTICATE PLAIN\r\n")
        #expect(try await client.readLine() == "+ ")
        try await client.send(Base64.encode(Array("\0bob\0hunter2".utf8)) + "\r\n")
        #expect(try await client.lines(until: "a").tagged.hasPrefix("a OK [CAPABILITY IMAP4rev1"))
        let second = try await server.rawClient()
        let token = Base64.encode(Array("alice\0alice\0secret".utf8))
        #expect(try await second.command("b", "AUTHENTICATE PLAIN \(token)").tagged.hasPrefix("b OK "))
        #expect(server.sessions.compactMap(\.user).sorted() == ["alice", "bob"])
        await server.stop()
    }

    @Test func xoauth2WithTheConfiguredToken() async throws {
        let server = try await startServer()
        let session = try await IMAPSession.connect(server.clientConfiguration())
        try await session.login(.oauth2(user: "alice", token: "ya29.alice-token"))
        #expect(await session.isAuthenticated)
        await session.logout()
        let refused = try await IMAPSession.connect(server.clientConfiguration())
        do {
            try await refused.login(.oauth2(user: "alice", token: "expired"))
            Issue.record("a wrong token logged in")
        } catch {
            #expect(error.responseCode == .authenticationFailed)
        }
        await refused.close()
        await server.stop()
    }

    @Test func transcriptsReplaceCredentialsWithStars() async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        try await client.login("alice", "secret")
        try await client.send("x LOGIN {5}\r\n")
        _ = try await client.readLine()
        try await client.send("alice {6}\r\n")
        _ = try await client.readLine()
        try await client.send("secret\r\n")
        _ = try await client.lines(until: "x")
        try await client.command("y", "AUTHENTICATE PLAIN")
        let plain = try await server.rawClient()
        try await plain.send("p AUTHENTICATE PLAIN\r\n")
        _ = try await plain.readLine()
        try await plain.send(Base64.encode(Array("\0alice\0secret".utf8)) + "\r\n")
        _ = try await plain.lines(until: "p")
        try await plain.command("q", "LOGIN alice secret extra")  // malformed, still redacted
        let xoauth = try await IMAPSession.connect(server.clientConfiguration())
        try await xoauth.login(.oauth2(user: "alice", token: "ya29.alice-token"))
        await xoauth.logout()
        await server.stop()
        let transcripts = server.sessions.map(\.transcriptText).joined(separator: "\n")
        #expect(transcripts.contains("C: l1 LOGIN ***"))
        #expect(transcripts.contains("C: p AUTHENTICATE PLAIN"))
        #expect(transcripts.contains("C: ***"))
        #expect(transcripts.contains("S: l1 OK [CAPABILITY"))
        for secret in ["secret", "ya29.alice-token", "AGFsaWNl", Base64.encode(Array("\0alice\0secret".utf8))] {
            #expect(!transcripts.contains(secret), "the transcript shows \(secret)")
        }
        #expect(server.sessions.allSatisfy { !$0.isOpen })
    }
}
