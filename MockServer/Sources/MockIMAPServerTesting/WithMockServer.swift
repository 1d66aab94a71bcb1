public import MockIMAPServer
public import Transport

/// Runs `body` with a mock IMAP server started for it, and stops the server when `body` returns
/// or throws (its listeners closed, its sessions ended), so a failing test leaves nothing
/// running. The default server has one user, `alice` with password `secret`, the `full` profile,
/// a plain-text listener (STARTTLS) and an implicit-TLS one on free loopback ports, and a fresh
/// self-signed certificate (``MockIMAPServer/clientTLS`` trusts it).
///
/// ```swift
/// @Test(.hangGuard, .timeLimit(.minutes(1))) func pinsTheReport() async throws {
///     try await withMockServer { server in
///         try server.store.seed(user: "alice", from: .message(MessageBuilder(subject: "Report")))
///         // ... the code under test connects to 127.0.0.1:server.port(for: .implicitTLS)! ...
///         #expect(await server.store.waitForFlag(.flagged, user: "alice", uid: 1))
///     }
/// }
/// ```
public func withMockServer<Result>(
    _ configuration: MockIMAPServer.Configuration = MockIMAPServer.Configuration(
        users: [MockIMAPServer.User("alice", password: "secret")]),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (MockIMAPServer) async throws -> Result
) async throws -> Result {
    let server = try await MockIMAPServer.start(configuration)
    let result: Result
    do {
        result = try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
    return result
}

extension MockIMAPServer {
    /// A client TLS configuration that trusts this server's certificate, and only it: what a
    /// client under test connects with. Host names are verified as always;
    /// the default certificate is for `localhost` and `127.0.0.1`.
    public var clientTLS: ClientTLSConfiguration {
        ClientTLSConfiguration(additionalTrustPEM: certificatePEM, usesSystemTrustStore: false)
    }
}
