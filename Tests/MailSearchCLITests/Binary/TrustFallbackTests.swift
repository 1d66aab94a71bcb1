import Foundation
import TestSupport
import Testing
import Transport

/// `--ca-file` trusts a CA in addition to the system store. The tool verifies a server against
/// the file first and consults the system store only when that fails (so a start does not pay
/// for parsing the system bundle); a server only the system store vouches for still connects.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct TrustFallbackTests {
    @Test func aServerTheCAFileDoesNotVouchForIsVerifiedByTheSystemStore() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let unrelated = try ServerTLSConfiguration.selfSigned(hosts: ["unrelated.example"]).certificateChainPEM
        let unrelatedPath = account.directory.appendingPathComponent("unrelated.pem").path
        try Data(unrelated).write(to: URL(fileURLWithPath: unrelatedPath))
        let arguments = [
            "--host", "127.0.0.1", "--port", "\(account.tlsPort)", "--user", MockAccount.user, "--ca-file",
            unrelatedPath, "list", "--json", "--limit", "3",
        ]
        // The system store, here SSL_CERT_FILE holding the server's certificate (standing for a
        // public CA), vouches for the server.
        var environment = account.environment
        environment["SSL_CERT_FILE"] = account.certificatePath
        let trusted = try await ToolProcess.run(arguments, environment: environment)
        #expect(trusted.status == 0, "\(trusted)")
        #expect(trusted.lines.count == 3, "\(trusted)")

        // Neither the file nor the system store: refused, with the reason the full check gives.
        let refused = try await ToolProcess.run(arguments, environment: account.environment)
        #expect(refused.status == 69, "\(refused)")
        #expect(refused.errorLines == refused.errorLines.filter { $0.hasPrefix("error: ") })
        #expect(refused.standardError.contains("the certificate of 127.0.0.1 is not trusted (self-signed certificate)"))
    }
}
