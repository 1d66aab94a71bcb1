import Foundation
import IMAPClient
import IMAPCore
import TestSupport
import Transport

/// A throwaway Dovecot (scripts/dovecot.sh) serving one Maildir as alice's INBOX, for comparing
/// the mock server's views of messages with a real server's.
struct DovecotMailbox: Sendable {
    let process: DovecotProcess
    var directory: String { process.directory }
    var imapPort: Int { process.imapPort }
    /// The implicit-TLS port and the PEM of Dovecot's self-signed certificate.
    var imapsPort: Int { process.imapsPort }
    var certificatePEM: [UInt8] { process.certificatePEM }

    static let password = DovecotProcess.password

    static func script(_ name: String) -> String { DovecotProcess.script(name) }

    static func isAvailable() throws -> Bool { try DovecotProcess.isAvailable() }

    /// Starts Dovecot with `maildir` as alice's INBOX; it is stopped by `stop()`, or when the test
    /// process ends, whichever comes first.
    static func start(maildir: String) async throws -> DovecotMailbox {
        DovecotMailbox(process: try await DovecotProcess.start(["--maildir-from", "alice=\(maildir)"]))
    }

    /// Stops Dovecot and deletes its directory.
    func stop() async { await process.stop() }

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
        try await TestProcess.run(executable, arguments)
    }
}
