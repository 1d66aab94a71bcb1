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

    static let certificates: Result<Certificates, any Error> = Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mailsearch-certs-\(UUID().uuidString)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-test-certificates.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, directory.path]
        try TestProcess.launching { try process.run() }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw IMAPError(.tls, "make-test-certificates.sh failed") }
        return Certificates(directory: directory)
    }

    func server(certificate: String) throws -> ScriptedServer {
        let certificates = try Self.certificates.get()
        let tls = ServerTLSConfiguration(
            certificateChainPEM: try certificates.pem(certificate), privateKeyPEM: try certificates.pem("leaf.key"))
        return try ScriptedServer(tls: tls) { line, connection in
            await connection.send("\(ScriptedServer.split(line).tag) OK done\r\n")
        }
    }

    func connect(port: Int, trustingCA: Bool) async throws(IMAPError) -> IMAPSession {
        let trust = trustingCA ? try? Self.certificates.get().pem("ca.pem") : nil
        return try await IMAPSession.connect(
            IMAPConfiguration(
                host: "localhost", port: port, security: .implicitTLS(ClientTLSConfiguration(additionalTrustPEM: trust))
            ))
    }

    @Test func certificateSignedByATrustedCAConnects() async throws {
        let server = try server(certificate: "good.pem")
        let session = try await connect(port: server.port, trustingCA: true)
        try await session.noop()
        await session.close()
        server.stop()
    }

    @Test func certificateFromAnUnknownCA() async throws {
        let server = try server(certificate: "good.pem")
        do {
            _ = try await connect(port: server.port, trustingCA: false)
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
        let server = try server(certificate: "otherhost.pem")
        do {
            _ = try await connect(port: server.port, trustingCA: true)
            Issue.record("connected")
        } catch {
            #expect(error.code == .tls)
            #expect(error.transportCode == .hostNameMismatch)
            #expect(error.message.contains("localhost"))
        }
        server.stop()
    }

    @Test func expiredCertificate() async throws {
        let server = try server(certificate: "expired.pem")
        do {
            _ = try await connect(port: server.port, trustingCA: true)
            Issue.record("connected")
        } catch {
            #expect(error.code == .tls)
            #expect(error.transportCode == .certificateExpired)
            #expect(error.message.contains("expired"))
        }
        server.stop()
    }
}
