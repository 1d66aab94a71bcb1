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
    func connect(port: Int, trust: [UInt8]?, serverName: String? = nil) async throws(IMAPError) -> IMAPSession {
        try await IMAPSession.connect(
            IMAPConfiguration(
                host: "localhost", port: port,
                security: .implicitTLS(
                    ClientTLSConfiguration(additionalTrustPEM: trust, serverNameOverride: serverName))
            ))
    }

    /// Connects to a server showing `certificate`, checking it against `serverName`: the error,
    /// or nil when the session was made.
    func failure(certificate: String, serverName: String? = nil) async throws -> IMAPError? {
        let server = try await server(certificate: certificate)
        defer { server.stop() }
        let trust = try await Self.caPEM
        do throws(IMAPError) {
            let session = try await connect(port: server.port, trust: trust, serverName: serverName)
            try await session.noop()
            await session.close()
            return nil
        } catch {
            return error
        }
    }

    /// A certificate that names the host only in its subject's common name, with no subject
    /// alternative name, is refused (RFC 6125 and the CA/Browser Forum: the SAN is what counts).
    @Test func aNameOnlyInTheCommonNameIsRefused() async throws {
        let error = try await failure(certificate: "cnonly.pem")
        #expect(error?.transportCode == .hostNameMismatch, "\(String(describing: error))")
        #expect(error?.message.contains("localhost") == true)
    }

    /// `*.example.org` names mail.example.org; `mail*.example.org` names nothing.
    @Test func aWildcardCountsOnlyAsAWholeLabel() async throws {
        #expect(try await failure(certificate: "wildcard.pem", serverName: "mail.example.org") == nil)
        let partial = try await failure(certificate: "partialwild.pem", serverName: "mail1.example.org")
        #expect(partial?.transportCode == .hostNameMismatch, "\(String(describing: partial))")
    }

    /// A blank name to check (or one a C string would cut short) would leave OpenSSL checking no
    /// name at all: it is refused before the handshake.
    @Test(arguments: ["", "  ", "\u{0}", "mail.example.org\u{0}.evil"])
    func aBlankServerNameIsRefused(serverName: String) async throws {
        let error = try await failure(certificate: "wildcard.pem", serverName: serverName)
        #expect(error?.transportCode == .tlsConfiguration, "\(String(describing: error))")
        #expect(error?.message.contains("blank or holds a NUL byte") == true)
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
            // A library error says what happened; the command line adds what to type
            // (issue 28, point 8: it used to say "pass --ca-file").
            #expect(!error.message.contains("--ca-file"), "\(error.message)")
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
