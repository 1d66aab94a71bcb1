import IMAPClient
import MailMIME
import MockIMAPServerTesting
import Synchronization
import TestSupport
import Testing
import Transport

/// The test-support product (MockIMAPServerTesting) as a user's test meets it: a scoped server
/// that is always stopped, messages built from fields, and waits that wake on the server's
/// changes rather than on time.
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct TestingProductTests {
    private struct Boom: Error {}

    /// A plain TCP connection to the port, closed at once; throws when nothing listens.
    private func knock(_ port: Int) async throws {
        let connection = try await NetworkConnection.connect(host: "127.0.0.1", port: port, security: .plainText)
        connection.close()
    }

    @Test func withMockServerStopsTheServerWhenTheBodyThrows() async throws {
        let port = Mutex(0)
        await #expect(throws: Boom.self) {
            try await withMockServer { server in
                let listening = try #require(server.port(for: .implicitTLS))
                port.withLock { $0 = listening }
                try await knock(listening)  // it listens while the body runs
                throw Boom()
            }
        }
        let stopped = port.withLock { $0 }
        #expect(stopped > 0)
        await #expect(throws: TransportError.self) { try await knock(stopped) }
    }

    @Test func withMockServerStopsTheServerAndReturnsTheBodysValue() async throws {
        let (port, answer) = try await withMockServer { server in
            (try #require(server.port(for: .plain)), server.store.userNames)
        }
        #expect(answer == ["alice"])
        await #expect(throws: TransportError.self) { try await knock(port) }
    }

    @Test func aBuiltMessageReadsBackThroughIMAPAsItWasBuilt() async throws {
        let pdf: [UInt8] = Array("%PDF-1.4\n".utf8) + (0..<600).map { UInt8($0 % 256) }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 40)
        let built = MessageBuilder(
            from: "Zoë Ångström <zoe@example.com>", to: ["Harry <harry@example.com>"], cc: ["ron@example.com"],
            subject: "Café at noon", date: IMAPDateTime(secondsSinceEpoch: 1_709_643_900, zoneMinutes: 60),
            messageID: "<built-1@example.com>", text: "See you there — bring the menu.", html: "<p>See you there</p>",
            attachments: [
                .init(filename: "menu.pdf", contentType: "application/pdf", data: pdf),
                .init(filename: "map.png", contentType: "image/png", data: png, isInline: true),
            ])
        try await withMockServer { server in
            let seeded = try server.store.seed(user: "alice", from: .message(built, flags: [.flagged]))
            #expect(seeded == [SeededMessage(user: "alice", mailbox: "INBOX", uid: 1)])
            #expect(
                server.store.internalDate(user: "alice", mailbox: "INBOX", uid: 1)?.secondsSinceEpoch == 1_709_643_900)

            let session = try await IMAPSession.connect(
                IMAPConfiguration(
                    host: "localhost", port: server.port(for: .implicitTLS), security: .implicitTLS(server.clientTLS)))
            try await session.login(.password(user: "alice", password: "secret"))
            try await session.select("INBOX")
            var summaries: [MessageSummary] = []
            for try await summary in session.fetchSummaries(SequenceSet(numbers: [1])) { summaries.append(summary) }
            await session.logout()
            let summary = try #require(summaries.first)
            #expect(summary.decoded.subject == "Café at noon")
            #expect(summary.decoded.from.map(\.name) == ["Zoë Ångström"])
            #expect(summary.decoded.to.map(\.address) == ["harry@example.com"])
            #expect(summary.decoded.cc.map(\.address) == ["ron@example.com"])
            #expect(summary.decoded.secondsSince1970 == 1_709_643_900)
            #expect(summary.decoded.hasAttachment)
            #expect(summary.flags == [.flagged, .recent])

            let raw = try #require(server.store.rawMessage(user: "alice", mailbox: "INBOX", uid: 1))
            let message = MIMEMessage(bytes: raw)
            let files = message.leafParts.filter { $0.filename != nil }
            #expect(files.map(\.filename) == ["menu.pdf", "map.png"])
            #expect(files.map { $0.decodedBody(in: message) } == [pdf, png])
            #expect(files.map { $0.disposition?.type } == ["attachment", "inline"])
            #expect(message.header.values("Message-ID") == ["<built-1@example.com>"])
        }
    }

    @Test func waitForMessagesWakesWhenAMessageArrives() async throws {
        try await withMockServer { server in
            let waiting = Latch()
            let arrived = Task {
                await server.store.waitUntil(user: "alice", mailbox: "INBOX", timeout: .seconds(600)) { store in
                    waiting.open()  // evaluated once the wait is registered, and after each change
                    return store.uids(user: "alice", mailbox: "INBOX").count >= 2
                }
            }
            #expect(await waiting.wait(timeout: .seconds(30)))
            try server.store.seed(
                user: "alice", from: .messages([MessageBuilder(subject: "one"), MessageBuilder(subject: "two")]))
            // Without the store's wake-up this would wait the whole 600 s and pass the time limit.
            #expect(await arrived.value)
            #expect(await server.store.waitForMessages(count: 2, user: "alice", timeout: .seconds(600)))
            #expect(!(await server.store.waitForMessages(count: 3, user: "alice", timeout: .milliseconds(50))))
        }
    }

    @Test func waitForFlagWakesWhenAnotherClientStoresIt() async throws {
        try await withMockServer { server in
            try server.store.seed(user: "alice", from: .message(MessageBuilder(subject: "pin me")))
            let session = try await IMAPSession.connect(
                IMAPConfiguration(
                    host: "127.0.0.1", port: server.port(for: .implicitTLS), security: .implicitTLS(server.clientTLS)))
            try await session.login(.password(user: "alice", password: "secret"))
            try await session.select("INBOX")
            let pinned = Task {
                await server.store.waitForFlag(.flagged, user: "alice", uid: 1, timeout: .seconds(600))
            }
            try await session.store(SequenceSet(numbers: [1]), .add, [.flagged])
            #expect(await pinned.value)
            let unpinned = Task {
                await server.store.waitForFlag(.flagged, isSet: false, user: "alice", uid: 1, timeout: .seconds(600))
            }
            try await session.store(SequenceSet(numbers: [1]), .remove, [.flagged])
            #expect(await unpinned.value)
            await session.logout()
            // A message that is not there never has the flag.
            #expect(!(await server.store.waitForFlag(.seen, user: "alice", uid: 9, timeout: .milliseconds(50))))
        }
    }
}
