import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MockIMAPServer
import Testing
import Transport

/// A mock server for one service test: alice's INBOX holds `count` messages, message `i`
/// dated i hours after 2024-03-01 and received in that order, so UID order is date order.
enum ServiceFixture {
    static func start(profile: Profile = .full, count: Int = 0) async throws -> MockIMAPServer {
        let server = try await MockIMAPServer.start(
            .init(
                listeners: [.implicitTLS()], tls: .selfSigned(hosts: ["localhost"]), profile: profile,
                users: [.init("alice", password: "secret")]))
        for index in stride(from: 1, through: count, by: 1) { try seed(server, index) }
        return server
    }

    /// Appends message `index` to `mailbox`.
    @discardableResult
    static func seed(
        _ server: MockIMAPServer, _ index: Int, mailbox: String = "INBOX", flags: [Flag] = [],
        subject: String? = nil, from: String? = nil
    ) throws -> UInt32 {
        try server.store.append(
            message(index, subject: subject, from: from), user: "alice", mailbox: mailbox, flags: flags)
    }

    static func message(_ index: Int, subject: String? = nil, from: String? = nil) -> [UInt8] {
        let day = 1 + (index / 24) % 28
        let hour = index % 24
        return Array(
            """
            From: \(from ?? "Sender \(index) <sender\(index)@example.com>")\r
            To: Alice <alice@example.com>\r
            Subject: \(subject ?? "message \(index)")\r
            Date: \(String(format: "%02d", day)) Mar 2024 \(String(format: "%02d", hour)):00:00 +0000\r
            Message-ID: <\(index)@example.com>\r
            \r
            Body of message \(index).\r

            """.utf8)
    }

    static func configuration(_ server: MockIMAPServer) -> IMAPConfiguration {
        let tls = ClientTLSConfiguration(additionalTrustPEM: server.certificatePEM, usesSystemTrustStore: false)
        return IMAPConfiguration(
            host: "localhost", port: server.port(for: .implicitTLS)!, security: .implicitTLS(tls),
            timeouts: .init(connect: .seconds(30), tlsHandshake: .seconds(30), commandInactivity: .seconds(60)))
    }

    static func service(_ server: MockIMAPServer, flagPolicy: FlagPolicy = FlagPolicy()) -> IMAPMailService {
        IMAPMailService(
            configuration: configuration(server), credentials: .password(user: "alice", password: "secret"),
            flagPolicy: flagPolicy,
            reconnectPolicy: .init(
                initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), maximumAttempts: 4))
    }

    /// The flags of `uid`, read over a new, independent connection.
    static func flagsReadBack(
        _ server: MockIMAPServer, uids: [UInt32], mailbox: String = "INBOX"
    ) async throws
        -> [UInt32: Set<Flag>]
    {
        let session = try await IMAPSession.connect(configuration(server))
        try await session.login(.password(user: "alice", password: "secret"))
        try await session.select(MailboxName(wire: mailbox), readOnly: true)
        var flags: [UInt32: Set<Flag>] = [:]
        for try await message in session.fetch(SequenceSet(numbers: uids), items: [.uid, .flags]) {
            if let uid = message.uid { flags[uid] = Set(message.flags ?? []) }
        }
        await session.logout()
        return flags
    }

    /// The commands the first session sent after logging in (LOGIN and ENABLE), by name
    /// (`SELECT`, `UID SORT`), without IDLE, its DONE and polling NOOPs (the service listening
    /// for changes).
    static func commandsAfterLogin(_ server: MockIMAPServer) -> [String] {
        guard let session = server.sessions.min(by: { $0.id < $1.id }) else { return [] }
        var names: [String] = []
        for line in session.transcript where line.direction == .client {
            let words = line.text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard words.count >= 2 else { continue }
            let name =
                words[1].uppercased() == "UID" && words.count >= 3
                ? "UID \(words[2].uppercased())" : words[1].uppercased()
            if ["LOGIN", "AUTHENTICATE", "ENABLE", "CAPABILITY", "ID"].contains(name) {
                names = []
                continue
            }
            if name == "IDLE" || name == "NOOP" { continue }
            names.append(name)
        }
        return names
    }
}
