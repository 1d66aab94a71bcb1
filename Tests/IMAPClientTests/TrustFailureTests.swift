import Foundation
import IMAPClient
import IMAPCore
import TestSupport
import Testing
import Transport

/// Certificates made with the `openssl` command-line tool (scripts/make-test-certificates.sh),
/// served over implicit TLS: each trust failure has its own clear error.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct TrustFailureTests {
    struct Certificates {
        let directory: URL
        func pem(_ name: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
        }
    }

    /// Made once, for every test of the suite.
    static let made = Task { () async throws -> Certificates in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mailsearch-certs-\(UUID().uuidString)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-test-certificates.sh")
        _ = try await TestProcess.run("/bin/bash", [script.path, directory.path])
        return Certificates(directory: directory)
    }

    static var certificates: Certificates { get async throws { try await made.value } }

    func server(certificate: String) async throws -> ScriptedServer {
        let certificates = try await Self.certificates
        let tls = ServerTLSConfiguration(
            certificateChainPEM: try certificates.pem(certificate), privateKeyPEM: try certificates.pem("leaf.key"))
        return try ScriptedServer(tls: tls) { line, connection in
            await connection.send("\(ScriptedServer.split(line).tag) OK done\r\n")
        }
    }

    /// The test CA's certificate.
    static var caPEM: [UInt8] { get async throws { try await certificates.pem("ca.pem") } }

    /// Connects trusting `trust` (a CA's PEM) besides the system's roots.
    func connect(port: Int, trust: [UInt8]?) async throws(IMAPError) -> IMAPSession {
        try await IMAPSession.connect(
            IMAPConfiguration(
                host: "localhost", port: port, security: .implicitTLS(ClientTLSConfiguration(additionalTrustPEM: trust))
            ))
    }

    @Test func certificateSignedByATrustedCAConnects() async throws {
        let server = try await server(certificate: "good.pem")
        let session = try await connect(port: server.port, trust: try await Self.caPEM)
        try await session.noop()
        await session.close()
        server.stop()
    }

    @Test func certificateFromAnUnknownCA() async throws {
        let server = try await server(certificate: "good.pem")
        do {
            _ = try await connect(port: server.port, trust: nil)
            Issue.record("connected")
        } catch {
            #expect(error.code == .tls)
            #expect(error.transportCode == .certificateUntrusted)
            #expect(error.message.contains("not trusted"))
            #expect(error.message.contains("--ca-file"))
        }
        server.stop()
    }

    @Test func certificateForAnotherHostName() async throws {
        let server = try await server(certificate: "otherhost.pem")
        let trust = try await Self.caPEM
        do {
            _ = try await connect(port: server.port, trust: trust)
            Issue.record("connected")
        } catch {
            #expect(error.code == .tls)
            #expect(error.transportCode == .hostNameMismatch)
            #expect(error.message.contains("localhost"))
        }
        server.stop()
    }

    @Test func expiredCertificate() async throws {
        let server = try await server(certificate: "expired.pem")
        let trust = try await Self.caPEM
        do {
            _ = try await connect(port: server.port, trust: trust)
            Issue.record("connected")
        } catch {
            #expect(error.code == .tls)
            #expect(error.transportCode == .certificateExpired)
            #expect(error.message.contains("expired"))
        }
        server.stop()
    }
}
