import Foundation
import IMAPClient
import IMAPCore
import Synchronization
import TestSupport
import Testing
import Transport

/// A throwaway Dovecot (scripts/dovecot.sh) shared by this test process, with generated mail:
/// `alice` holds `Dovecot.largeMailboxSize` messages (searched, never changed), `bob` 300
/// (flags, IDLE and APPEND tests change them).
struct DovecotInstance: Sendable {
    let directory: String
    let imapPort: Int
    let imapsPort: Int
    let certificatePEM: [UInt8]

    func configuration(
        user: String = "alice", security: IMAPConfiguration.Security? = nil, logger: Logger = .disabled
    ) -> IMAPConfiguration {
        let tls = ClientTLSConfiguration(additionalTrustPEM: certificatePEM)
        let chosen = security ?? .implicitTLS(tls)
        let port: Int
        switch chosen {
        case .implicitTLS: port = imapsPort
        case .startTLS, .plainTextOnLoopback: port = imapPort
        }
        return IMAPConfiguration(
            host: "localhost", port: port, security: chosen,
            timeouts: .init(connect: .seconds(10), tlsHandshake: .seconds(10), commandInactivity: .seconds(60)),
            logger: logger)
    }

    /// A logged-in session of `user` with INBOX selected.
    func session(user: String = "alice", logger: Logger = .disabled) async throws -> IMAPSession {
        let session = try await IMAPSession.connect(configuration(user: user, logger: logger))
        try await session.login(.password(user: user, password: Dovecot.password))
        try await session.select("INBOX")
        return session
    }

    /// `doveadm search -u user mailbox INBOX query...`: Dovecot's own answer, as UIDs.
    func doveadmSearch(user: String = "alice", _ query: [String]) async throws -> [UInt32] {
        let output = try await Dovecot.run(
            Dovecot.script("dovecot.sh"), ["doveadm", directory, "search", "-u", user, "mailbox", "INBOX"] + query)
        return output.split(separator: "\n").compactMap { line in line.split(separator: " ").last.flatMap { UInt32($0) }
        }
    }
}

enum Dovecot {
    static let password = DovecotProcess.password
    /// How many messages alice has: `MAILSEARCH_DOVECOT_MESSAGES`, default 20,000.
    static let largeMailboxSize = Int(ProcessInfo.processInfo.environment["MAILSEARCH_DOVECOT_MESSAGES"] ?? "") ?? 20000

    static func script(_ name: String) -> String { DovecotProcess.script(name) }

    /// Whether the Dovecot tests can run (see `DovecotProcess.isAvailable`).
    static func isAvailable() throws -> Bool { try DovecotProcess.isAvailable() }

    private static let starter = Mutex<Task<DovecotInstance, any Error>?>(nil)

    /// The shared instance, started on first use and stopped when the test process ends.
    static func shared() async throws -> DovecotInstance {
        let task = starter.withLock { task -> Task<DovecotInstance, any Error> in
            if let task { return task }
            let started = Task { try await start() }
            task = started
            return started
        }
        return try await task.value
    }

    private static func start() async throws -> DovecotInstance {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mailsearch-maildirs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let alice = work.appendingPathComponent("alice").path
        let bob = work.appendingPathComponent("bob").path
        _ = try await run(
            "/usr/bin/env",
            ["python3", script("generate-maildir.py"), "--out", alice, "--count", "\(largeMailboxSize)", "--seed", "1"])
        _ = try await run(
            "/usr/bin/env", ["python3", script("generate-maildir.py"), "--out", bob, "--count", "300", "--seed", "2"])
        let process = try await DovecotProcess.start([
            "--users", "alice:\(password),bob:\(password),carol:\(password),dave:\(password),erin:\(password)",
            "--maildir-from", "alice=\(alice)",
            "--maildir-from", "bob=\(bob)",
        ])
        _ = try await process.script("index", ["alice"])
        _ = try await process.script("index", ["bob"])
        return DovecotInstance(
            directory: process.directory, imapPort: process.imapPort, imapsPort: process.imapsPort,
            certificatePEM: process.certificatePEM)
    }

    /// Runs a program without blocking the cooperative pool; returns its standard output.
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        try await TestProcess.run(executable, arguments)
    }
}
