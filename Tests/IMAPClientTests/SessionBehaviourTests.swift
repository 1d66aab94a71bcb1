import IMAPCore
import MailMIME
import Synchronization
import TestSupport
import Testing
import Transport

@testable import IMAPClient

/// Client behaviours against scripted servers (no Dovecot needed).
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct SessionBehaviourTests {
    static func configuration(
        port: Int, security: IMAPConfiguration.Security = .plainTextOnLoopback, inactivity: Duration = .seconds(10)
    ) -> IMAPConfiguration {
        IMAPConfiguration(
            host: "127.0.0.1", port: port, security: security,
            timeouts: .init(connect: .seconds(5), tlsHandshake: .seconds(5), commandInactivity: inactivity))
    }

    @Test func startTLSDoesNotProcessAResponseInjectedAfterTheOK() async throws {
        let certificate = try ServerTLSConfiguration.selfSigned(hosts: ["localhost", "127.0.0.1"])
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED] hi\r\n") {
            line, connection in
            let (tag, command) = ScriptedServer.split(line)
            switch command.uppercased() {
            case "STARTTLS":
                // The OK, a forged CAPABILITY and a forged answer to the client's next command (S2),
                // in the same packet, before the handshake.
                // (One step, so the client's ClientHello cannot arrive before the server switches.)
                try? await connection.startTLS(
                    server: certificate,
                    afterWriting: Array(
                        "\(tag) OK Begin TLS\r\n* CAPABILITY IMAP4rev1 X-INJECTED AUTH=PLAIN\r\nS2 BAD injected\r\n"
                            .utf8))
            case "CAPABILITY":
                await connection.send("* CAPABILITY IMAP4rev1 AUTH=PLAIN IDLE\r\n\(tag) OK done\r\n")
            default:
                await connection.send("\(tag) BAD unexpected\r\n")
            }
        }
        let session = try await IMAPSession.connect(
            Self.configuration(
                port: server.port,
                security: .startTLS(ClientTLSConfiguration(additionalTrustPEM: certificate.certificateChainPEM))))
        let capabilities = await session.capabilities
        #expect(!capabilities.contains("X-INJECTED"))
        #expect(capabilities.contains(.idle))
        #expect(capabilities.contains(.auth("PLAIN")))
        await session.close()
        server.stop()
    }

    @Test func aServerThatStopsAnsweringGivesATimeoutNotAHang() async throws {
        let server = try ScriptedServer { line, connection in
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased() == "CAPABILITY" {
                await connection.send("* CAPABILITY IMAP4rev1\r\n\(tag) OK done\r\n")
            }
            // Anything else: silence.
        }
        // 5.5 s: the connection's own CAPABILITY must be answered within it on a loaded machine too
        // (the scripted server shares this busy test process).
        let session = try await IMAPSession.connect(
            Self.configuration(port: server.port, inactivity: .milliseconds(5500)))
        do {
            try await session.noop()
            Issue.record("NOOP returned")
        } catch {
            #expect(error.code == .timeout)
            #expect(error.message.contains("did not answer NOOP for 5.5 seconds"))
        }
        #expect(await session.failure?.code == .timeout)
        server.stop()
    }

    @Test func aServerThatClosesInTheMiddleOfALiteralGivesAConnectionError() async throws {
        let server = try ScriptedServer { line, connection in
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased().hasPrefix("SELECT") {
                await connection.send("* 3 EXISTS\r\n* OK [UIDVALIDITY 7] x\r\n\(tag) OK [READ-WRITE] done\r\n")
            } else if command.uppercased().hasPrefix("UID FETCH") {
                await connection.send("* 1 FETCH (UID 1 BODY[] {5000}\r\nFrom: someone\r\n\r\nonly the beginning")
                connection.close()
            }
        }
        let session = try await IMAPSession.connect(Self.configuration(port: server.port))
        try await session.select("INBOX")
        var received = 0
        do {
            for try await _ in session.fetch(
                SequenceSet(1), items: [.bodySection(peek: true, section: .complete, partial: nil)])
            {
                received += 1
            }
            Issue.record("the fetch finished normally")
        } catch {
            #expect(error.code == .connection)
            #expect(error.message.contains("closed"))
        }
        #expect(received == 0)
        do {
            try await session.noop()
            Issue.record("NOOP after the connection broke succeeded")
        } catch {
            #expect(error.code == .connection)
        }
        server.stop()
    }

    /// A greeting BYE is a refusal (try later), not a session that ended: its own code.
    @Test func aGreetingByeIsARefusal() async throws {
        let server = try ScriptedServer(greeting: "* BYE too many connections from your address\r\n") { _, _ in }
        do {
            _ = try await IMAPSession.connect(Self.configuration(port: server.port))
            Issue.record("connecting succeeded")
        } catch {
            #expect(error.code == .refused)
            #expect(error.serverText == "too many connections from your address")
        }
        server.stop()
    }

    @Test func byeIsReportedWithTheServersText() async throws {
        let server = try ScriptedServer { line, connection in
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased() == "NOOP" {
                await connection.send("* BYE Server shutting down for maintenance\r\n")
                connection.close()
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
        let session = try await IMAPSession.connect(Self.configuration(port: server.port))
        do {
            try await session.noop()
            Issue.record("NOOP succeeded")
        } catch {
            #expect(error.code == .bye)
            #expect(error.serverText == "Server shutting down for maintenance")
        }
        server.stop()
    }

    @Test func malformedResponseIsAProtocolErrorWithTheOffset() async throws {
        let server = try ScriptedServer { line, connection in
            let (tag, _) = ScriptedServer.split(line)
            await connection.send("* 1 FETCH (UID one)\r\n\(tag) OK done\r\n")
        }
        let session = try await IMAPSession.connect(Self.configuration(port: server.port))
        do {
            try await session.noop()
            Issue.record("NOOP succeeded")
        } catch {
            #expect(error.code == .protocolViolation)
            #expect(error.message.contains("byte"))
        }
        server.stop()
    }

    @Test func plainTextIsRefusedForARemoteHost() async throws {
        do {
            _ = try await IMAPSession.connect(
                IMAPConfiguration(host: "imap.example.com", port: 143, security: .plainTextOnLoopback))
            Issue.record("connected in plain text to a remote host")
        } catch {
            #expect(error.code == .insecure)
        }
    }

    @Test func startTLSIsRequiredWhenConfigured() async throws {
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] no tls here\r\n") {
            line, connection in
            await connection.send("\(ScriptedServer.split(line).tag) BAD no\r\n")
        }
        do {
            _ = try await IMAPSession.connect(
                Self.configuration(port: server.port, security: .startTLS(ClientTLSConfiguration())))
            Issue.record("connected without STARTTLS")
        } catch {
            #expect(error.code == .insecure)
            #expect(error.message.contains("STARTTLS"))
        }
        server.stop()
    }

    @Test func cancellingAFetchStopsSendingCommands() async throws {
        let log = LineLog()
        let server = try ScriptedServer { line, connection in
            log.append(line)
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased().hasPrefix("UID FETCH") {
                // Answer exactly the UIDs asked for.
                let set = command.split(separator: " ")[2]
                var text = ""
                for part in set.split(separator: ",") {
                    let bounds = part.split(separator: ":").compactMap { UInt32($0) }
                    for uid in (bounds.first ?? 0)...(bounds.last ?? 0) {
                        text += "* \(uid) FETCH (UID \(uid) FLAGS ())\r\n"
                    }
                }
                await connection.send(text + "\(tag) OK done\r\n")
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
        var configuration = IMAPConfiguration(
            host: "127.0.0.1", port: server.port, security: .plainTextOnLoopback, maximumCommandLength: 60)
        configuration.fetchWindow = 100
        let session = try await IMAPSession.connect(configuration)
        // 10,000 scattered UIDs: 100 windows, each split into commands of at most 60 bytes.
        let uids = SequenceSet(numbers: (1...20_000).filter { $0 % 2 == 1 }.map { UInt32($0) })
        let consumer = Task { () -> Int in
            var count = 0
            do {
                for try await _ in session.fetch(uids, items: [.flags]) {
                    count += 1
                    if count == 10 { withUnsafeCurrentTask { $0?.cancel() } }
                }
            } catch let error as IMAPError {
                #expect(error.code == .cancelled)
            } catch {
                Issue.record("unexpected \(error)")
            }
            return count
        }
        #expect(await consumer.value == 10)
        // The session still works afterwards, and the fetch sent no window past the first two.
        try await session.noop()
        let fetches = log.lines.filter { $0.contains("UID FETCH") }
        let windowCommands = fetches.count
        let fetched = fetches.reduce(0) { total, line in
            total + line.split(separator: " ")[3].split(separator: ",").count
        }
        #expect(windowCommands > 0)
        #expect(fetched <= 200, "asked for \(fetched) of 10,000 UIDs after the consumer stopped at 10")
        server.stop()
    }
}

/// Authentication paths against scripted servers.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct AuthenticationTests {
    static func configuration(port: Int) -> IMAPConfiguration {
        IMAPConfiguration(host: "127.0.0.1", port: port, security: .plainTextOnLoopback)
    }

    @Test func xoauth2SendsTheBearerTokenAsOneInitialResponse() async throws {
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=XOAUTH2] hi\r\n") {
            line, connection in
            let (tag, command) = ScriptedServer.split(line)
            let words = command.split(separator: " ")
            if words.first?.uppercased() == "AUTHENTICATE", words.count == 3 {
                let decoded = String(decoding: Base64Check.decode(String(words[2])), as: UTF8.self)
                let expected = "user=alice@example.com\u{1}auth=Bearer ya29.token\u{1}\u{1}"
                await connection.send(
                    decoded == expected
                        ? "\(tag) OK [CAPABILITY IMAP4rev1 IDLE] welcome\r\n" : "\(tag) NO bad token\r\n")
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
        let session = try await IMAPSession.connect(Self.configuration(port: server.port))
        try await session.login(.oauth2(user: "alice@example.com", token: "ya29.token"))
        #expect(await session.isAuthenticated)
        #expect(await session.capabilities.contains(.idle))
        server.stop()
    }

    @Test func xoauth2FailureChallengeIsAnsweredAndReportedAsAuthentication() async throws {
        let log = LineLog()
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=XOAUTH2] hi\r\n") {
            line, connection in
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased().hasPrefix("AUTHENTICATE") {
                log.setIdleTag(tag)
                await connection.send("+ eyJzdGF0dXMiOiI0MDEifQ==\r\n")
            } else if line.isEmpty, let authenticateTag = log.idleTag {
                await connection.send("\(authenticateTag) NO [AUTHENTICATIONFAILED] Invalid credentials\r\n")
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
        let session = try await IMAPSession.connect(Self.configuration(port: server.port))
        do {
            try await session.login(.oauth2(user: "alice", token: "expired"))
            Issue.record("logged in")
        } catch {
            #expect(error.code == .authentication)
            #expect(!error.message.contains("expired"))
        }
        server.stop()
    }

    @Test func loginDisabledUsesAuthenticatePlainWithoutSASLIR() async throws {
        let log = LineLog()
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1 LOGINDISABLED AUTH=PLAIN] hi\r\n") {
            line, connection in
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased() == "AUTHENTICATE PLAIN" {
                log.setIdleTag(tag)
                await connection.send("+ \r\n")
            } else if line == Base64Check.encode("\0bob\0pw"), let authenticateTag = log.idleTag {
                await connection.send("\(authenticateTag) OK logged in\r\n")
            } else if command.uppercased().hasPrefix("LOGIN") {
                await connection.send("\(tag) BAD LOGIN is disabled\r\n")
            } else if command.uppercased() == "CAPABILITY" {
                await connection.send("* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n\(tag) OK done\r\n")
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
        let session = try await IMAPSession.connect(Self.configuration(port: server.port))
        try await session.login(.password(user: "bob", password: "pw"))
        #expect(await session.isAuthenticated)
        server.stop()
    }

    @Test func loginDisabledWithoutPlainIsRefusedWithoutSendingThePassword() async throws {
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1 LOGINDISABLED] hi\r\n") {
            line, connection in
            await connection.send("\(ScriptedServer.split(line).tag) BAD nothing expected\r\n")
        }
        let session = try await IMAPSession.connect(Self.configuration(port: server.port))
        do {
            try await session.login(.password(user: "bob", password: "pw"))
            Issue.record("logged in")
        } catch {
            #expect(error.code == .unsupported)
        }
        server.stop()
    }

    @Test func noopPollingReportsChangesByUIDWhenTheServerHasNoIDLE() async throws {
        let log = LineLog()
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1] hi\r\n") { line, connection in
            log.append(line)
            let (tag, command) = ScriptedServer.split(line)
            switch command.uppercased() {
            case "SELECT INBOX":
                await connection.send("* 2 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n\(tag) OK [READ-WRITE] done\r\n")
            case "UID SEARCH ALL":
                await connection.send("* SEARCH 10 11\r\n\(tag) OK done\r\n")
            case "NOOP" where log.lines.filter({ $0.hasSuffix("NOOP") }).count == 1:
                await connection.send("* 4 EXISTS\r\n\(tag) OK done\r\n")
            case "NOOP":
                await connection.send("* 2 FETCH (FLAGS (\\Seen))\r\n* 1 EXPUNGE\r\n\(tag) OK done\r\n")
            case "FETCH 3:* (UID FLAGS)":
                await connection.send(
                    "* 3 FETCH (UID 14 FLAGS ())\r\n* 4 FETCH (UID 15 FLAGS (\\Seen))\r\n\(tag) OK done\r\n")
            default:
                await connection.send("\(tag) OK done\r\n")
            }
        }
        var configuration = Self.configuration(port: server.port)
        configuration.timeouts.pollInterval = .milliseconds(100)
        let session = try await IMAPSession.connect(configuration)
        try await session.select("INBOX")
        var received: [MailboxEvent] = []
        for try await event in session.events() {
            received.append(event)
            if received.count >= 4 { break }
        }
        // New mail by UID (fetched after EXISTS grew), then a flag change and an expunge named
        // by sequence number only, both reported by UID from the session's map.
        #expect(
            received == [
                .messageCount(4), .arrived(SequenceSet(numbers: [14, 15])),
                .flagsChanged(uid: 11, flags: [.seen], modificationSequence: nil), .expunged(SequenceSet(10)),
            ])
        server.stop()
    }

    @Test func idleIsRenewedAndEndedWithDone() async throws {
        let log = LineLog()
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1 IDLE] hi\r\n") { line, connection in
            log.append(line)
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased() == "IDLE" {
                // Each IDLE reports one more message, so every renewal is visible as an event.
                let idles = log.lines.filter { $0.uppercased().hasSuffix(" IDLE") }.count
                await connection.send("+ idling\r\n* \(6 + idles) EXISTS\r\n")
                log.setIdleTag(tag)
            } else if line.uppercased() == "DONE", let tag = log.idleTag {
                await connection.send("\(tag) OK idle done\r\n")
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
        var configuration = Self.configuration(port: server.port)
        configuration.timeouts.idleRenewal = .milliseconds(200)
        let session = try await IMAPSession.connect(configuration)
        try await session.select("INBOX")
        var counts: [UInt32] = []
        for try await event in session.events() {
            guard case .messageCount(let count) = event else { continue }
            counts.append(count)
            if counts.count == 3 { break }
        }
        #expect(counts == [7, 8, 9])
        // The consumer stopped, and its stream lets the session know in a task of its own: until
        // then a renewal may still send DONE and IDLE again, so equal counts mean nothing yet.
        while await session.hasListeners { await Task.yield() }
        // The last IDLE gets its DONE (or the time limit fails the test).
        await log.wait { lines in
            lines.filter { $0.uppercased().hasSuffix(" IDLE") }.count
                == lines.filter { $0.uppercased() == "DONE" }.count
        }
        let lines = log.lines
        #expect(lines.filter { $0.uppercased().hasSuffix(" IDLE") }.count >= 3)
        #expect(lines.filter { $0.uppercased() == "DONE" }.count >= 3)
        // After the consumer stopped, the last IDLE was ended with DONE.
        #expect(
            lines.filter { $0.uppercased().hasSuffix(" IDLE") }.count
                == lines.filter { $0.uppercased() == "DONE" }.count)
        server.stop()
    }
}

/// Lines a scripted server received, shared with the test.
final class LineLog: Sendable {
    private struct Waiter {
        let condition: @Sendable ([String]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }
    private let storage = Mutex<(lines: [String], idleTag: String?)>(([], nil))
    private let waiters = Mutex<[Waiter]>([])

    func append(_ line: String) {
        let lines = storage.withLock { storage in
            storage.lines.append(line)
            return storage.lines
        }
        let ready = waiters.withLock { waiters -> [Waiter] in
            let ready = waiters.filter { $0.condition(lines) }
            waiters.removeAll { $0.condition(lines) }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Waits until the lines received satisfy `condition` (the test's time limit bounds it).
    func wait(until condition: @escaping @Sendable ([String]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = waiters.withLock { waiters -> Bool in
                if condition(lines) { return true }
                waiters.append(Waiter(condition: condition, continuation: continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }
    /// Remembers the tag of the command the script waits to finish (IDLE, AUTHENTICATE).
    func setIdleTag(_ tag: String) { storage.withLock { $0.idleTag = tag } }
    var idleTag: String? { storage.withLock { $0.idleTag } }
    var lines: [String] { storage.withLock { $0.lines } }
}

enum Base64Check {
    static func decode(_ text: String) -> [UInt8] { Base64.decode(text) }
    static func encode(_ text: String) -> String { Base64.encode(Array(text.utf8)) }
}

/// The charset rules of the query language's "On the wire" section.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct CharsetTests {
    /// A server with `capabilities` that refuses the UTF-8 charset with NO [BADCHARSET] and answers
    /// any other search with UIDs 3 and 9; every command line is logged.
    static func server(capabilities: String, log: LineLog) throws -> ScriptedServer {
        try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1 \(capabilities)] hi\r\n") { line, connection in
            log.append(line)
            let (tag, command) = ScriptedServer.split(line)
            let upper = command.uppercased()
            if upper.contains("UTF-8") {
                await connection.send("\(tag) NO [BADCHARSET (US-ASCII)] only ASCII here\r\n")
            } else if upper.hasPrefix("UID SORT") {
                await connection.send("* SORT 9 3\r\n\(tag) OK sorted\r\n")
            } else if upper.hasPrefix("UID SEARCH") {
                await connection.send("* SEARCH 3 9\r\n\(tag) OK done\r\n")
            } else if upper.hasPrefix("SELECT") {
                await connection.send("* 9 EXISTS\r\n\(tag) OK [READ-WRITE] done\r\n")
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
    }

    static func session(_ server: ScriptedServer) async throws -> IMAPSession {
        let session = try await IMAPSession.connect(
            IMAPConfiguration(host: "127.0.0.1", port: server.port, security: .plainTextOnLoopback))
        try await session.select("INBOX")
        return session
    }

    @Test func sortRetriesAnASCIIQueryWithUSASCIIAfterBadCharset() async throws {
        let log = LineLog()
        let server = try Self.server(capabilities: "SORT", log: log)
        let session = try await Self.session(server)
        #expect(try await session.search([.from("alice")]).uids == [9, 3])
        let sorts = log.lines.filter { $0.uppercased().contains("UID SORT") }
        #expect(sorts.count == 2)
        #expect(sorts.first?.contains("(REVERSE ARRIVAL) UTF-8 FROM \"alice\"") == true)
        #expect(sorts.last?.contains("(REVERSE ARRIVAL) US-ASCII FROM \"alice\"") == true)
        server.stop()
    }

    @Test(arguments: ["SORT", "ESEARCH", ""]) func nonASCIIQueryOnAServerWithoutUTF8FailsClearly(
        capabilities: String
    ) async throws {
        let log = LineLog()
        let server = try Self.server(capabilities: capabilities, log: log)
        let session = try await Self.session(server)
        do {
            _ = try await session.search([.from("Müller")])
            Issue.record("searched")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("cannot search non-ASCII text"))
        }
        server.stop()
    }

    @Test func asciiSearchSendsNoCharsetAndNewestComesFirst() async throws {
        let log = LineLog()
        let server = try Self.server(capabilities: "", log: log)
        let session = try await Self.session(server)
        #expect(try await session.search([.subject("invoice"), .unseen]).uids == [9, 3])
        let search = try #require(log.lines.first { $0.uppercased().contains("UID SEARCH") })
        #expect(search.hasSuffix("UID SEARCH SUBJECT \"invoice\" UNSEEN"))
        server.stop()
    }

    @Test func nonASCIIGoesAsASynchronizingLiteralWithCharsetUTF8() async throws {
        let log = LineLog()
        let server = try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1] hi\r\n") { line, connection in
            log.append(line)
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased().hasSuffix("{7}") {
                await connection.send("+ go ahead\r\n")
            } else if line == "Müller" {
                await connection.send(
                    "* SEARCH 5\r\n\(log.lines.dropLast().last.map { ScriptedServer.split($0).tag } ?? "?") OK done\r\n"
                )
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
        let session = try await IMAPSession.connect(
            IMAPConfiguration(host: "127.0.0.1", port: server.port, security: .plainTextOnLoopback))
        #expect(try await session.search([.from("Müller")]).uids == [5])
        #expect(log.lines.contains { $0.hasSuffix("UID SEARCH CHARSET UTF-8 FROM {7}") })
        server.stop()
    }
}

/// Round trips a session saves: commands that need not wait for an earlier answer.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct RoundTripTests {
    @Test func loggingInSendsIDAndENABLEInOneFlight() async throws {
        // The server answers ID only once ENABLE has arrived: a client that waits for ID's
        // answer before sending ENABLE never gets it (and fails on the inactivity timeout).
        let heldID = Mutex<String?>(nil)
        let commands = Mutex<[String]>([])
        let server = try ScriptedServer(
            greeting: "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR ID ENABLE CONDSTORE] hi\r\n"
        ) { line, connection in
            let (tag, command) = ScriptedServer.split(line)
            let verb = command.split(separator: " ").first.map { $0.uppercased() } ?? ""
            commands.withLock { $0.append(verb) }
            switch verb {
            case "AUTHENTICATE":
                await connection.send("\(tag) OK [CAPABILITY IMAP4rev1 ID ENABLE CONDSTORE] in\r\n")
            case "ID": heldID.withLock { $0 = tag }
            case "ENABLE":
                await connection.send("* ENABLED CONDSTORE\r\n\(tag) OK enabled\r\n")
                if let idTag = heldID.withLock({ $0 }) {
                    await connection.send("* ID (\"name\" \"scripted\")\r\n\(idTag) OK done\r\n")
                }
            default: await connection.send("\(tag) OK done\r\n")
            }
        }
        let session = try await IMAPSession.connect(SessionBehaviourTests.configuration(port: server.port))
        try await session.login(.password(user: "alice", password: "secret"))
        #expect(await session.enabled == [.condstore])
        try await session.noop()
        #expect(commands.withLock { $0 } == ["AUTHENTICATE", "ID", "ENABLE", "NOOP"])
        await session.logout()
        server.stop()
    }

    @Test func openingTheMailboxSendsENABLEAndSELECTInOneFlight() async throws {
        // The server answers ENABLE only once SELECT has arrived: a client that waits for
        // ENABLE's answer before selecting never gets it (and fails on the inactivity timeout).
        let heldEnable = Mutex<String?>(nil)
        let commands = Mutex<[String]>([])
        let server = try ScriptedServer(
            greeting: "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR ENABLE CONDSTORE QRESYNC] hi\r\n"
        ) { line, connection in
            let (tag, command) = ScriptedServer.split(line)
            let verb = command.split(separator: " ").first.map { $0.uppercased() } ?? ""
            commands.withLock { $0.append(command) }
            switch verb {
            case "AUTHENTICATE":
                await connection.send("\(tag) OK [CAPABILITY IMAP4rev1 ENABLE CONDSTORE QRESYNC] in\r\n")
            case "ENABLE": heldEnable.withLock { $0 = tag }
            case "SELECT":
                if let enableTag = heldEnable.withLock({ $0 }) {
                    await connection.send("* ENABLED CONDSTORE QRESYNC\r\n\(enableTag) OK enabled\r\n")
                }
                await connection.send(
                    "* 4 EXISTS\r\n* OK [UIDVALIDITY 9] v\r\n* OK [HIGHESTMODSEQ 12] m\r\n"
                        + "\(tag) OK [READ-WRITE] done\r\n")
            default: await connection.send("\(tag) OK done\r\n")
            }
        }
        let connection = MailboxConnection(
            configuration: SessionBehaviourTests.configuration(port: server.port, inactivity: .seconds(5)),
            credentials: .password(user: "alice", password: "secret"))
        let mailbox = try await connection.open()
        #expect(mailbox.messageCount == 4)
        #expect(mailbox.highestModificationSequence == 12)
        let session = try await connection.currentSession()
        #expect(await session.enabled == [.condstore, .qresync])
        // Written as if ENABLE succeeded: no CONDSTORE parameter beside QRESYNC.
        #expect(commands.withLock { $0 }.suffix(2) == ["ENABLE CONDSTORE QRESYNC", "SELECT INBOX"])
        await connection.close()
        server.stop()
    }

    @Test func aOneShotToolClosesAfterWritingLogoutWithoutWaitingForTheAnswer() async throws {
        // The server never answers LOGOUT, and the answer may be waited for an hour: only a
        // session that does not wait for it returns within the test's time limit.
        let (loggedOut, loggedOutSignal) = AsyncStream<Void>.makeStream()
        let server = try ScriptedServer { line, connection in
            let (tag, command) = ScriptedServer.split(line)
            if command.uppercased() == "LOGOUT" {
                loggedOutSignal.yield()
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
        var configuration = SessionBehaviourTests.configuration(port: server.port)
        configuration.timeouts.logoutAnswer = .seconds(3600)
        configuration.waitsForLogoutAnswer = false
        let session = try await IMAPSession.connect(configuration)
        try await session.noop()
        await session.logout()
        #expect(await session.failure?.code == .cancelled)
        // LOGOUT was written before the connection closed.
        var signals = loggedOut.makeAsyncIterator()
        #expect(await signals.next() != nil)
        server.stop()
    }
}
