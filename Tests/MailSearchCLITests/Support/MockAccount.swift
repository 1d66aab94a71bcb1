import Foundation
import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Transport

/// A mock IMAP server started for one test on free loopback ports (plain text and implicit
/// TLS), with the account `alice` and the demo mailbox dated from a fixed day, a directory for
/// the tool's state and config, and the certificate written to a file for `--ca-file`.
struct MockAccount: Sendable {
    static let user = "alice"
    /// A password no output may ever contain (tests search all output for it).
    let password: String
    let server: MockIMAPServer
    /// A directory of this test's own: certificate, XDG state and config.
    let directory: URL

    /// The day the demo messages are dated from: 2024-03-15, 12:00 UTC.
    static let demoNow = 1_710_504_000

    static func start(
        profile: Profile = .full, demo: Bool = true, faults: FaultPlan = [], oauth2Token: String? = nil
    ) async throws -> MockAccount {
        let password = "pw-" + UUID().uuidString.prefix(8) + "-secret"
        let server = try await MockIMAPServer.start(
            .init(
                listeners: [.plain(), .implicitTLS()], profile: profile,
                users: [.init(user, password: password, oauth2Token: oauth2Token)],
                allowPlainTextAuthentication: true, faults: faults))
        if demo {
            // Indexing the demo's 330-odd messages computes for a second or more in a debug
            // build; on the cooperative pool, a few CLI tests seeding at once stop every
            // in-process server of the run from answering (see `CPUBound`).
            let store = server.store
            try await CPULane.run { try DemoMailbox.seed(into: store, user: user, now: demoNow) }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(server.certificatePEM).write(to: directory.appendingPathComponent("cert.pem"))
        return MockAccount(password: password, server: server, directory: directory)
    }

    var plainPort: Int { server.port(for: .plain) ?? 0 }
    var tlsPort: Int { server.port(for: .implicitTLS) ?? 0 }
    var certificatePath: String { directory.appendingPathComponent("cert.pem").path }

    /// Account options for the plain-text listener (loopback, `--insecure-plaintext`).
    var plainArguments: [String] {
        ["--host", "127.0.0.1", "--port", "\(plainPort)", "--user", Self.user, "--tls", "none", "--insecure-plaintext"]
    }

    /// Account options for the TLS listener, trusting its certificate with `--ca-file`.
    var tlsArguments: [String] {
        ["--host", "127.0.0.1", "--port", "\(tlsPort)", "--user", Self.user, "--ca-file", certificatePath]
    }

    /// The tool's environment: its own state and config directories, UTC, the password.
    var environment: [String: String] { ToolEnvironment.make(directory, password: password) }

    /// Flags of `uids` in `mailbox`, read over an independent IMAP connection (EXAMINE).
    func flagsReadBack(_ uids: [UInt32], mailbox: String = "INBOX") async throws -> [UInt32: Set<Flag>] {
        let session = try await otherConnection()
        try await session.select(MailboxName(wire: mailbox), readOnly: true)
        var flags: [UInt32: Set<Flag>] = [:]
        for try await message in session.fetch(SequenceSet(numbers: uids), items: [.uid, .flags]) {
            if let uid = message.uid { flags[uid] = Set(message.flags ?? []).subtracting([.recent]) }
        }
        await session.logout()
        return flags
    }

    /// A logged-in session over TLS: another client of the same account.
    func otherConnection() async throws -> IMAPSession {
        let session = try await IMAPSession.connect(
            IMAPConfiguration(
                host: "127.0.0.1", port: tlsPort,
                security: .implicitTLS(ClientTLSConfiguration(additionalTrustPEM: server.certificatePEM))))
        try await session.login(.password(user: Self.user, password: password))
        return session
    }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The environment the tool runs with in tests: nothing inherited but PATH, so no outside
/// password, config or colour setting leaks in.
enum ToolEnvironment {
    static func make(_ directory: URL, password: String? = nil) -> [String: String] {
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory.path,
            "XDG_STATE_HOME": directory.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
            "TZ": "UTC",
            "LANG": "C.UTF-8",
        ]
        if let password { environment["MAILSEARCH_PASSWORD"] = password }
        return environment
    }
}
