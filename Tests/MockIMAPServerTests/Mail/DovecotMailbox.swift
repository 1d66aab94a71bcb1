import Foundation
import IMAPClient
import IMAPCore
import Synchronization
import Transport

/// Foundation's `Process.run()` on Linux is not safe to call from two threads at once (it has
/// crashed in memcpy when two suites started helpers together), so the tests start processes
/// one at a time.
private let processLaunch = Mutex(())

func launchingProcess(_ body: () throws -> Void) throws {
    try processLaunch.withLock { _ in try body() }
}

/// A throwaway Dovecot (scripts/dovecot.sh) serving one Maildir as alice's INBOX, for comparing
/// the mock server's views of messages with a real server's.
struct DovecotMailbox: Sendable {
    let directory: String
    let imapPort: Int
    /// The implicit-TLS port and the PEM of the CA that signed Dovecot's certificate.
    let imapsPort: Int
    let certificatePEM: [UInt8]

    static let password = "secret"

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

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

    /// Starts Dovecot with `maildir` as alice's INBOX; it is stopped by `stop()`, or when the test
    /// process ends, whichever comes first.
    static func start(maildir: String) async throws -> DovecotMailbox {
        // Dovecot's master must get SIGTERM when stopped, but a process started from a
        // dispatch worker thread inherits its blocked signal mask; clear it on the way.
        let line = try await run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
                script("dovecot.sh"), "start", "--maildir-from", "alice=\(maildir)",
            ])
        var values: [String: String] = [:]
        for pair in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let directory = values["DOVECOT_DIR"], let port = values["DOVECOT_IMAP_PORT"].flatMap({ Int($0) }),
            let imapsPort = values["DOVECOT_IMAPS_PORT"].flatMap({ Int($0) }), let ca = values["DOVECOT_CA"],
            let certificate = FileManager.default.contents(atPath: ca)
        else {
            throw IMAPError(.connection, "dovecot.sh start printed no environment line: \(line)")
        }
        // A watcher stops Dovecot if this process ends first. It must not hold the test
        // runner's output pipes open, or the runner waits for it.
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/bash")
        watcher.arguments = [
            "-c",
            "while [ -e /proc/\(getpid()) ] && ! grep -q '^State:.*Z' /proc/\(getpid())/status"
                + " && [ -d \"$1\" ]; do sleep 1; done; exec \"$0\" stop \"$1\" >/dev/null 2>&1",
            script("dovecot.sh"), directory,
        ]
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try launchingProcess { try watcher.run() }
        return DovecotMailbox(
            directory: directory, imapPort: port, imapsPort: imapsPort, certificatePEM: [UInt8](certificate))
    }

    /// Stops Dovecot and deletes its directory.
    func stop() async {
        _ = try? await Self.run(Self.script("dovecot.sh"), ["stop", directory])
    }

    /// A logged-in session with INBOX selected read-only.
    func session() async throws -> IMAPSession {
        let configuration = IMAPConfiguration(
            host: "127.0.0.1", port: imapPort, security: .plainTextOnLoopback,
            timeouts: .init(connect: .seconds(10), tlsHandshake: .seconds(10), commandInactivity: .seconds(60)))
        let session = try await IMAPSession.connect(configuration)
        try await session.login(.password(user: "alice", password: Self.password))
        try await session.select("INBOX", readOnly: true)
        return session
    }

    /// A logged-in session over implicit TLS (trusting only Dovecot's CA), INBOX selected read-only.
    func tlsSession() async throws -> IMAPSession {
        let tls = ClientTLSConfiguration(additionalTrustPEM: certificatePEM, usesSystemTrustStore: false)
        let configuration = IMAPConfiguration(
            host: "localhost", port: imapsPort, security: .implicitTLS(tls),
            timeouts: .init(connect: .seconds(10), tlsHandshake: .seconds(10), commandInactivity: .seconds(60)))
        let session = try await IMAPSession.connect(configuration)
        try await session.login(.password(user: "alice", password: Self.password))
        try await session.select("INBOX", readOnly: true)
        return session
    }

    /// Runs a program without blocking the cooperative pool; returns its standard output.
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
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
                try launchingProcess { try process.run() }
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
