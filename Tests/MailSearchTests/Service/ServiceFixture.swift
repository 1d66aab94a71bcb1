import Foundation
import IMAPClient
import IMAPCore
import MailMIME
import MailSearch
import MockIMAPServer
import Testing
import Transport

/// A mock server for one service test: alice's INBOX holds `count` messages, message `i`
/// dated i hours after 2024-03-01 and received in that order, so UID order is date order.
enum ServiceFixture {
    /// With `mime`, the messages carry their text in the ways mail does (see ``mimeMessage(_:)``),
    /// the same text, so the same preview.
    static func start(profile: Profile = .full, count: Int = 0, mime: Bool = false) async throws -> MockIMAPServer {
        let server = try await MockIMAPServer.start(
            .init(
                listeners: [.implicitTLS()], tls: .selfSigned(hosts: ["localhost"]), profile: profile,
                users: [.init("alice", password: "secret")]))
        for index in stride(from: 1, through: count, by: 1) {
            if mime {
                try server.store.append(mimeMessage(index), user: "alice", mailbox: "INBOX")
            } else {
                try seed(server, index)
            }
        }
        return server
    }

    /// Message `index` as ``message(_:subject:from:)`` has it, its body "Body of message N."
    /// written one of five ways: plain, multipart/alternative with quoted-printable text,
    /// HTML only in base64, multipart/mixed around an alternative with a PDF attachment,
    /// ISO-8859-1 text after a long quote.
    static func mimeMessage(_ index: Int) -> [UInt8] {
        let plain = message(index)
        let split = plain.firstRange(of: Array("\r\n\r\n".utf8))!
        let header = Array(plain[..<split.lowerBound]) + Array("\r\nMIME-Version: 1.0\r\n".utf8)
        let text = "Body of message \(index)."
        let body: String
        switch index % 5 {
        case 1:
            body =
                "Content-Type: multipart/alternative; boundary=\"alt\(index)\"\r\n\r\n--alt\(index)\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
                + "Body of=20message \(index)=2E\r\n--alt\(index)\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
                + "<p>\(text)</p>\r\n--alt\(index)--\r\n"
        case 2:
            body =
                "Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
                + Base64.encode(Array("<html><head><style>p { margin: 0 }</style></head><p>\(text)</p>".utf8))
                + "\r\n"
        case 3:
            body =
                "Content-Type: multipart/mixed; boundary=m\r\n\r\n--m\r\n"
                + "Content-Type: multipart/alternative; boundary=a\r\n\r\n--a\r\nContent-Type: text/plain\r\n\r\n"
                + "\(text)\r\n--a\r\nContent-Type: text/html\r\n\r\n<b>\(text)</b>\r\n--a--\r\n"
                + "--m\r\nContent-Type: application/pdf; name=\"a.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
                + Base64.encode(Array(repeating: 0x25, count: 40_000), lineLength: 76) + "\r\n--m--\r\n"
        case 4:
            body =
                "Content-Type: text/plain; charset=iso-8859-1\r\n\r\n"
                + String(repeating: "> an earlier message, quoted\r\n", count: 100) + text + "\r\n"
        default:
            return plain
        }
        return header + Array(body.utf8)
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

    static func service(
        _ server: MockIMAPServer, flagPolicy: FlagPolicy = FlagPolicy(), provisionalListingMinimum: Int = 2000,
        index: MessageIndex? = nil
    ) -> IMAPMailService {
        IMAPMailService(
            configuration: configuration(server), credentials: .password(user: "alice", password: "secret"),
            flagPolicy: flagPolicy,
            reconnectPolicy: .init(
                initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), maximumAttempts: 4),
            provisionalListingMinimum: provisionalListingMinimum, index: index)
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

    /// The command lines the first session sent, without their tags.
    static func clientCommands(_ server: MockIMAPServer) -> [String] {
        guard let session = server.sessions.min(by: { $0.id < $1.id }) else { return [] }
        return session.transcript.filter { $0.direction == .client }.compactMap { line in
            line.text.firstIndex(of: " ").map { String(line.text[line.text.index(after: $0)...]) }
        }
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
