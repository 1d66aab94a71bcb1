public import Foundation

/// A throwaway Dovecot started with scripts/dovecot.sh for a test, stopped by `stop()` or, at
/// the latest, when the test process ends.
public struct DovecotProcess: Sendable {
    public let directory: String
    public let imapPort: Int
    public let imapsPort: Int
    /// The PEM of Dovecot's self-signed certificate (trust it to connect).
    public let certificatePEM: [UInt8]

    /// The password of every user the tests create.
    public static let password = "secret"

    /// The repository root.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of a file in scripts/.
    public static func script(_ name: String) -> String { packageRoot.appendingPathComponent("scripts/\(name)").path }

    /// Whether the Dovecot tests can run. Without Dovecot they are skipped, unless
    /// `MAILSEARCH_REQUIRE_DOVECOT=1` (CI), where a missing Dovecot is a failure.
    public static func isAvailable() throws -> Bool {
        let installed = ["/usr/sbin/dovecot", "/usr/bin/dovecot", "/usr/local/sbin/dovecot"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        if !installed && ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_DOVECOT"] == "1" {
            throw TestProcessError(
                "Dovecot is required (MAILSEARCH_REQUIRE_DOVECOT=1) but not installed: apt-get install dovecot-imapd")
        }
        return installed
    }

    /// `dovecot.sh start` with `arguments` (users, `--maildir-from USER=PATH`...).
    public static func start(_ arguments: [String]) async throws -> DovecotProcess {
        let line = try await TestProcess.run(script("dovecot.sh"), ["start"] + arguments)
        var values: [String: String] = [:]
        for pair in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let directory = values["DOVECOT_DIR"], let imap = values["DOVECOT_IMAP_PORT"].flatMap({ Int($0) }),
            let imaps = values["DOVECOT_IMAPS_PORT"].flatMap({ Int($0) }), let ca = values["DOVECOT_CA"],
            let certificate = FileManager.default.contents(atPath: ca)
        else { throw TestProcessError("dovecot.sh start printed no environment line: \(line)") }
        // A watcher stops Dovecot when this process ends first. Alive means: the process exists
        // and is not a zombie (its parent may reap it late). It must not hold the test runner's
        // output pipes open, or the runner waits for it.
        try TestProcess.spawnDetached(
            "/bin/bash",
            [
                "-c",
                "while [ -e /proc/\(getpid()) ] && ! grep -q '^State:.*Z' /proc/\(getpid())/status"
                    + " && [ -d \"$1\" ]; do sleep 1; done; exec \"$0\" stop \"$1\" >/dev/null 2>&1",
                script("dovecot.sh"), directory,
            ])
        return DovecotProcess(
            directory: directory, imapPort: imap, imapsPort: imaps, certificatePEM: [UInt8](certificate))
    }

    /// Stops Dovecot and deletes its directory.
    public func stop() async {
        _ = try? await TestProcess.run(Self.script("dovecot.sh"), ["stop", directory])
    }

    /// `dovecot.sh` with this instance's directory after `command` (index, doveadm).
    public func script(_ command: String, _ arguments: [String]) async throws -> String {
        try await TestProcess.run(Self.script("dovecot.sh"), [command, directory] + arguments)
    }
}
