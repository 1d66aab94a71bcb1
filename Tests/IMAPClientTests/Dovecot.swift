import Foundation
import IMAPClient
import IMAPCore
import Synchronization
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
    static let password = "secret"
    /// How many messages alice has: `MAILSEARCH_DOVECOT_MESSAGES`, default 20,000.
    static let largeMailboxSize = Int(ProcessInfo.processInfo.environment["MAILSEARCH_DOVECOT_MESSAGES"] ?? "") ?? 20000

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func script(_ name: String) -> String { packageRoot.appendingPathComponent("scripts/\(name)").path }

    /// Whether the Dovecot tests can run. Without Dovecot they are skipped, unless
    /// `MAILSEARCH_REQUIRE_DOVECOT=1` (CI), where a missing Dovecot is a failure.
    static func isAvailable() throws -> Bool {
        let installed = ["/usr/sbin/dovecot", "/usr/bin/dovecot", "/usr/local/sbin/dovecot"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        if !installed && ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_DOVECOT"] == "1" {
            throw IMAPError(
                .unsupported,
                "Dovecot is required (MAILSEARCH_REQUIRE_DOVECOT=1) but not installed: apt-get install dovecot-imapd")
        }
        return installed
    }

    private static let starter = Mutex<Task<DovecotInstance, any Error>?>(nil)

    /// The shared instance, started on first use and stopped when the process exits.
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
        let alice = work.appendingPathComponent("alice").path
        let bob = work.appendingPathComponent("bob").path
        _ = try await run(
            "/usr/bin/env",
            ["python3", script("generate-maildir.py"), "--out", alice, "--count", "\(largeMailboxSize)", "--seed", "1"])
        _ = try await run(
            "/usr/bin/env", ["python3", script("generate-maildir.py"), "--out", bob, "--count", "300", "--seed", "2"])
        let line = try await run(
            script("dovecot.sh"),
            [
                "start", "--users", "alice:\(password),bob:\(password),carol:\(password)", "--maildir-from",
                "alice=\(alice)", "--maildir-from", "bob=\(bob)",
            ])
        var values: [String: String] = [:]
        for pair in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let directory = values["DOVECOT_DIR"], let imap = values["DOVECOT_IMAP_PORT"].flatMap({ Int($0) }),
            let imaps = values["DOVECOT_IMAPS_PORT"].flatMap({ Int($0) }), let ca = values["DOVECOT_CA"]
        else { throw IMAPError(.connection, "dovecot.sh start printed no environment line: \(line)") }
        // Stop Dovecot when this test process ends, however it ends: a watcher outlives it.
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/bash")
        watcher.arguments = [
            "-c",
            // Alive means: the process exists and is not a zombie (its parent may reap it late).
            "while [ -e /proc/\(getpid()) ] && ! grep -q '^State:.*Z' /proc/\(getpid())/status; do sleep 1; done; "
                + "exec \"$0\" stop \"$1\" >/dev/null 2>&1",
            script("dovecot.sh"), directory,
        ]
        // It must not hold the test runner's output pipes open, or the runner waits for it.
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        _ = try? await run(script("dovecot.sh"), ["index", directory, "alice"])
        _ = try? await run(script("dovecot.sh"), ["index", directory, "bob"])
        try? FileManager.default.removeItem(at: work)
        return DovecotInstance(
            directory: directory, imapPort: imap, imapsPort: imaps,
            certificatePEM: [UInt8](try Data(contentsOf: URL(fileURLWithPath: ca))))
    }

    /// Runs a program without blocking the cooperative pool; returns its standard output.
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let collected = Mutex(Data())
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            collected.withLock { $0.append(data) }
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        output.fileHandleForReading.readabilityHandler = nil
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        let stdout = collected.withLock { data -> Data in
            data.append(rest)
            return data
        }
        guard process.terminationStatus == 0 else {
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw IMAPError(
                .connection,
                "\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.first ?? "") failed: \(stderr)")
        }
        return String(decoding: stdout, as: UTF8.self)
    }
}
