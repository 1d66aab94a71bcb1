import MailSearch
import Testing

/// This file imports MailSearch alone (top-level names need their module imported in the file
/// that names them): configuring an account with an extra trusted CA, a pin keyword and a
/// fail-fast reconnect policy, and searching, compile with that one import (issue 28, point 1).
@Suite struct OneImportTests {
    @Test func anAccountIsConfiguredWithOneImport() async throws {
        var configuration = IMAPConfiguration(
            host: "127.0.0.1", port: 1,
            security: .implicitTLS(ClientTLSConfiguration(additionalTrustPEM: Array("not a PEM".utf8))))
        configuration.timeouts = .init(connect: .seconds(2), tlsHandshake: .seconds(2), commandInactivity: .seconds(2))
        let service = IMAPMailService(
            configuration: configuration, credentials: .password(user: "me", password: "secret"),
            flagPolicy: FlagPolicy(pinKeyword: Flag("$Pinned")),
            reconnectPolicy: MailboxConnection.ReconnectPolicy(maximumAttempts: 1))
        do {
            _ = try await service.search("from:alice has:attachment")
            Issue.record("searched a closed port")
        } catch {
            #expect(error.category == .tls || error.category == .unreachable, "\(error)")
        }
        await service.close()
    }
}
