import Foundation
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing
import Transport

/// Fault injection seen from a real client on a socket: the bytes each fault makes the server
/// send (or not send), on the right command only, while other sessions are served as usual.
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct FaultTests {
    /// A server with alice and bob on free loopback ports, plain-text login allowed, one message
    /// in alice's INBOX.
    private func startFaultServer(_ faults: FaultPlan = []) async throws -> MockIMAPServer {
        let server = try await MockIMAPServer.start(
            .init(
                listeners: [.plain()], users: [.init("alice", password: "secret"), .init("bob", password: "hunter2")],
                allowPlainTextAuthentication: true, faults: faults))
        try server.store.seed(
            user: "alice", from: .raw(message(subject: "faults", body: String(repeating: "x", count: 300))))
        return server
    }

    /// Every byte the server sends until it closes the connection.
    private func readUntilClosed(_ connection: NetworkConnection) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            do throws(TransportError) {
                bytes += try await connection.read(timeout: .seconds(30))
            } catch {
                guard error.code == .connectionClosed || error.code == .connectionReset else { throw error }
                return bytes
            }
        }
    }

    /// The info of the newest session logged in as `user`.
    private func latestSession(_ server: MockIMAPServer, user: String) throws -> SessionInfo {
        try #require(server.sessions.last { $0.user == user })
    }

    @Test func noAnswersTheSecondUIDStoreOnlyCountedAcrossSessions() async throws {
        let server = try await startFaultServer([
            try FaultRule(parsing: "UID STORE#2=NO [UNAVAILABLE] try later")
        ])
        let first = try await server.rawClient(tls: false)
        _ = try await first.selectInbox()
        #expect(try await first.command("u1", "UID STORE 1 +FLAGS (\\Seen)").tagged.hasPrefix("u1 OK"))
        let second = try await server.rawClient(tls: false)
        _ = try await second.selectInbox()
        #expect(try await second.command("u2", "UID STORE 1 +FLAGS (\\Flagged)") == ["u2 NO [UNAVAILABLE] try later"])
        // The refused command did not run.
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [.seen])
        #expect(try await second.command("u3", "UID STORE 1 +FLAGS (\\Flagged)").tagged.hasPrefix("u3 OK"))
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [.seen, .flagged])
        #expect(server.faults.fired.map(\.tag) == ["u2"])
        await server.stop()
    }

    @Test func badWithACodeThenByeClosesTheConnection() async throws {
        let server = try await startFaultServer()
        let client = try await server.rawClient(tls: false)
        _ = try await client.selectInbox()
        server.faults.add(.command("FETCH", occurrence: 1), .respond(.bad, code: "LIMIT", text: "too many"))
        #expect(try await client.command("f1", "FETCH 1 UID") == ["f1 BAD [LIMIT] too many"])
        #expect(try await client.command("f2", "FETCH 1 UID") == ["* 1 FETCH (UID 1)", "f2 OK FETCH completed"])
        server.faults.add(.command("NOOP", user: "alice"), .respond(.bye, code: "UNAVAILABLE", text: "shutting down"))
        try await client.send("n NOOP\r\n")
        #expect(try await client.readLine() == "* BYE [UNAVAILABLE] shutting down")
        #expect(try await readUntilClosed(client.connection).isEmpty)
        await server.stop()
    }

    @Test func delayHoldsOneResponseAndNoOtherSession() async throws {
        let server = try await startFaultServer()
        // Long enough that bob's answer comes first even on a loaded machine; nothing here
        // asserts how long anything took, only what came first and what is at least as late as
        // the delay.
        let delay = Duration.seconds(15)
        // More delayed sessions than the cooperative pool has threads: a delay that blocked a
        // thread would hold up bob until the delays end.
        var delayed: [RawClient] = []
        for _ in 0...ProcessInfo.processInfo.activeProcessorCount {
            let client = try await server.rawClient(tls: false)
            try await client.login()
            delayed.append(client)
        }
        let bob = try await server.rawClient(tls: false)
        try await bob.login("bob", "hunter2")
        server.faults.add(.command("NOOP", user: "alice"), .delay(delay))
        let clock = ContinuousClock()
        let sent = clock.now
        for client in delayed { try await client.send("n NOOP\r\n") }
        #expect(await server.faults.waitUntilFired(count: delayed.count))
        #expect(server.faults.fired.count == delayed.count)
        // Bob is answered while alice's sessions wait: none of them has received a byte yet.
        #expect(try await bob.command("b", "NOOP") == ["b OK NOOP completed"])
        for (index, client) in delayed.enumerated() {
            #expect(!client.hasReceivedBytes, "delayed session \(index) was answered before bob")
        }
        for client in delayed { #expect(try await client.readLine() == "n OK NOOP completed") }
        #expect(clock.now - sent >= delay)
        // Only the NOOP is late: the CAPABILITY that follows is answered without the fault.
        #expect(try await delayed[0].command("c", "CAPABILITY").tagged == "c OK CAPABILITY completed")
        #expect(server.faults.fired.count == delayed.count)
        await server.stop()
    }

    @Test func stopEndsADelayedResponse() async throws {
        let server = try await startFaultServer()
        let client = try await server.rawClient(tls: false)
        try await client.login()
        server.faults.add(.command("NOOP"), .delay(.seconds(600)))
        try await client.send("n NOOP\r\n")
        // The fault fires just before the delay starts.
        #expect(await server.faults.waitUntilFired(count: 1))
        #expect(server.faults.fired.map(\.tag) == ["n"])
        let clock = ContinuousClock()
        let stopping = clock.now
        await server.stop()
        #expect(clock.now - stopping < .seconds(30))
        #expect(try await readUntilClosed(client.connection).isEmpty)
    }

    @Test func stallNeverAnswersAndEndsWhenTheClientOrTheServerCloses() async throws {
        let server = try await startFaultServer([FaultRule(trigger: .command("SEARCH", user: "alice"), fault: .stall)])
        let stalled = try await server.rawClient(tls: false)
        _ = try await stalled.selectInbox()
        try await stalled.send("s SEARCH ALL\r\nn NOOP\r\n")
        await #expect {
            _ = try await stalled.readLine(timeout: .milliseconds(500))
        } throws: { error in
            (error as? TransportError)?.code == .readTimeout
        }
        // Other sessions are served meanwhile.
        let bob = try await server.rawClient(tls: false)
        try await bob.login("bob", "hunter2")
        _ = try await bob.command("s", "SELECT INBOX")
        #expect(try await bob.command("q", "SEARCH ALL") == ["* SEARCH", "q OK SEARCH completed"])
        // The client gives up: the session ends.
        let stalledID = try latestSession(server, user: "alice").id
        stalled.close()
        #expect(await server.waitUntilSessionsEnd { $0.id == stalledID })
        #expect(server.sessions.first { $0.id == stalledID }?.isOpen == false)
        // Another stalled session ends when the server stops.
        let second = try await server.rawClient(tls: false)
        _ = try await second.selectInbox()
        try await second.send("t SEARCH ALL\r\n")
        await server.stop()
        #expect(server.sessions.allSatisfy { !$0.isOpen })
        #expect(try await readUntilClosed(second.connection).isEmpty)
    }

    @Test func closeAfterExactlyNBytesOfTheResponse() async throws {
        let server = try await startFaultServer()
        server.faults.add(.command("FETCH", occurrence: 1), .closeAfter(bytes: 100))
        let cut = try await server.rawClient(tls: false)
        _ = try await cut.selectInbox()
        try await cut.send("f FETCH 1 BODY.PEEK[]\r\n")
        let received = try await readUntilClosed(cut.connection)
        #expect(received.count == 100)
        // The transcript shows what was sent, not what would have been.
        let transcript = try latestSession(server, user: "alice").transcript
        let partialLine = String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n").last
        #expect(transcript.last?.direction == .server && transcript.last?.text == partialLine)
        #expect(partialLine == "Subject")
        #expect(!transcript.contains { $0.text.hasPrefix("f OK") })
        // The second FETCH is whole; the first 100 bytes were its beginning.
        let whole = try await server.rawClient(tls: false)
        _ = try await whole.selectInbox()
        try await whole.send("f FETCH 1 BODY.PEEK[]\r\n")
        let frame = try await whole.readFrame()
        #expect(frame.count > 100)
        #expect(String(decoding: frame.prefix(100), as: UTF8.self) == String(decoding: received, as: UTF8.self))
        await server.stop()
    }

    @Test func closeInTheMiddleOfALiteral() async throws {
        let server = try await startFaultServer()
        server.faults.add(.command("UID FETCH"), .closeInLiteral)
        let client = try await server.rawClient(tls: false)
        _ = try await client.selectInbox()
        try await client.send("f UID FETCH 1 BODY.PEEK[]\r\n")
        let received = try await readUntilClosed(client.connection)
        let raw = try #require(server.store.rawMessage(user: "alice", mailbox: "INBOX", uid: 1))
        let header = Array("* 1 FETCH (UID 1 BODY[] {\(raw.count)}\r\n".utf8)
        #expect(
            String(decoding: received, as: UTF8.self)
                == String(decoding: header + raw.prefix(raw.count / 2), as: UTF8.self))
        await server.stop()
    }

    @Test func fragmentWritesOneBytePerWrite() async throws {
        let server = try await startFaultServer()
        let client = try await server.rawClient(tls: false)
        _ = try await client.selectInbox()
        server.faults.add(.command("FETCH", user: "alice"), .fragment)
        let before = try latestSession(server, user: "alice")
        #expect(
            try await client.command("f", "FETCH 1 (UID FLAGS)") == [
                "* 1 FETCH (UID 1 FLAGS (\\Recent))", "f OK FETCH completed",
            ])
        let after = try latestSession(server, user: "alice")
        let length = "* 1 FETCH (UID 1 FLAGS (\\Recent))\r\nf OK FETCH completed\r\n".utf8.count
        #expect(after.bytesWritten - before.bytesWritten == length)
        #expect(after.writeCount - before.writeCount == length)
        // Other commands are written in one piece.
        #expect(try await client.command("n", "NOOP") == ["n OK NOOP completed"])
        #expect(try latestSession(server, user: "alice").writeCount - after.writeCount == 1)
        await server.stop()
    }

    @Test func injectsUntaggedResponsesJustBeforeTheTaggedOne() async throws {
        let server = try await startFaultServer()
        let client = try await server.rawClient(tls: false)
        _ = try await client.selectInbox()
        server.faults.add(
            .command("NOOP", occurrence: 1),
            .inject([.expunge(3), .exists(5), .fetchFlags(1, ["\\Seen"]), .bye("server going down soon")]))
        server.faults.add(try FaultRule(parsing: "FETCH#1=inject:* 7 EXISTS"))
        #expect(
            try await client.command("n1", "NOOP") == [
                "* 3 EXPUNGE", "* 5 EXISTS", "* 1 FETCH (FLAGS (\\Seen))", "* BYE server going down soon",
                "n1 OK NOOP completed",
            ])
        #expect(try await client.command("n2", "NOOP") == ["n2 OK NOOP completed"])
        #expect(
            try await client.command("f", "FETCH 1 UID") == ["* 1 FETCH (UID 1)", "* 7 EXISTS", "f OK FETCH completed"])
        await server.stop()
    }

    /// The UIDVALIDITY in a SELECT's responses.
    private func selectedUIDValidity(_ client: RawClient, _ tag: String) async throws -> UInt32 {
        let lines = try await client.command(tag, "SELECT INBOX")
        let line = try #require(lines.first { $0.hasPrefix("* OK [UIDVALIDITY ") })
        return try #require(UInt32(line.dropFirst("* OK [UIDVALIDITY ".count).prefix { $0.isNumber }))
    }

    @Test func uidValidityChangesBetweenSessions() async throws {
        let server = try await startFaultServer()
        let first = try await server.rawClient(tls: false)
        try await first.login()
        let original = try await selectedUIDValidity(first, "s1")
        // The test API: as if INBOX were deleted and created again.
        let renewed = try server.store.renewUIDValidity(user: "alice", mailbox: "INBOX")
        #expect(renewed != original)
        let second = try await server.rawClient(tls: false)
        try await second.login()
        #expect(try await selectedUIDValidity(second, "s2") == renewed)

        // The fault: a session that logs out leaves its mailbox with a new UIDVALIDITY.
        server.faults.add(try FaultRule(parsing: "uidvalidity-change"))
        #expect(try await second.command("o", "LOGOUT").tagged == "o OK LOGOUT completed")
        let third = try await server.rawClient(tls: false)
        try await third.login()
        let afterLogout = try await selectedUIDValidity(third, "s3")
        #expect(afterLogout != renewed)
        #expect(afterLogout == server.store.uidValidity(user: "alice", mailbox: "INBOX"))

        // Or when a session selects.
        server.faults.removeAll()
        server.faults.add(.command("SELECT", occurrence: 1, user: "bob"), .changeUIDValidity)
        let bob = try await server.rawClient(tls: false)
        try await bob.login("bob", "hunter2")
        let before = try #require(server.store.uidValidity(user: "bob", mailbox: "INBOX"))
        let seen = try await selectedUIDValidity(bob, "s4")
        #expect(seen != before)
        #expect(seen == server.store.uidValidity(user: "bob", mailbox: "INBOX"))
        await server.stop()
    }

    /// The tags of 30 NOOPs that got NO from seeded random faults, after a login.
    private func randomlyRefusedNOOPs(seed: UInt64) async throws -> (refused: [String], server: MockIMAPServer) {
        let server = try await startFaultServer()
        let client = try await server.rawClient(tls: false)
        try await client.login()
        server.faults.setRandom(
            RandomFaults(seed: seed, probability: 0.3, kinds: [.respond(.no, code: "UNAVAILABLE", text: "random")]))
        var refused: [String] = []
        for index in 1...30 {
            let tagged = try await client.command("n\(index)", "NOOP").tagged
            if tagged == "n\(index) NO [UNAVAILABLE] random" {
                refused.append("n\(index)")
            } else {
                #expect(tagged == "n\(index) OK NOOP completed")
            }
        }
        return (refused, server)
    }

    @Test func seededRandomFaultsAreReproducibleAndReported() async throws {
        let (refused, server) = try await randomlyRefusedNOOPs(seed: 2026)
        // The login was command 1; NOOP n is command n + 1.
        let random = RandomFaults(seed: 2026, probability: 0.3, kinds: [.fragment])
        let predicted = (1...30).filter { random.fault(forCommand: $0 + 1) != nil }.map { "n\($0)" }
        #expect(refused == predicted)
        #expect(!refused.isEmpty && refused.count < 30)
        #expect(server.faults.fired.map(\.tag) == refused)
        #expect(server.faults.fired.allSatisfy { $0.command == "NOOP" })
        await server.stop()
        let (again, other) = try await randomlyRefusedNOOPs(seed: 2026)
        #expect(again == refused)
        await other.stop()
    }

    @Test func executableTakesFaultsFromTheCommandLine() async throws {
        let child = try MockServerExecutableTests.Child([
            "--listen", "127.0.0.1:0", "--allow-plaintext-auth", "--fault", "NOOP#1=NO [UNAVAILABLE] try later",
            "--fault", "delay=1ms",
        ])
        defer { child.process.send(SIGTERM) }
        let line = try await child.firstLine()
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        let connection = try await NetworkConnection.connect(host: "127.0.0.1", port: port, security: .plainText)
        let client = RawClient(connection: connection)
        _ = try await client.readLine()
        try await client.login()
        #expect(try await client.command("n1", "NOOP") == ["n1 NO [UNAVAILABLE] try later"])
        #expect(try await client.command("n2", "NOOP") == ["n2 OK NOOP completed"])
        client.close()
        child.process.send(SIGTERM)
        #expect(try await child.exitStatus() == 0)
    }

    @Test func executableRefusesAMalformedFaultWithUsageError() async throws {
        let child = try MockServerExecutableTests.Child(["--fault", "FETCH#0=stall"])
        #expect(try await child.exitStatus() == 64)
        #expect(
            child.standardError.hasPrefix("error: --fault: fault \"FETCH#0=stall\": #N takes an occurrence from 1"),
            "\(child.standardError)")
        #expect(child.standardError.split(separator: "\n").count == 1)
        let help = try MockServerExecutableTests.Child(["--help"])
        #expect(try await help.exitStatus() == 0)
        #expect(help.standardOutput.contains("--fault SPEC") && help.standardOutput.contains("close-after:BYTES"))
    }
}
