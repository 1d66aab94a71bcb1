import Foundation
import IMAPClient
import IMAPCore
import MockIMAPServer
import Testing
import Transport

/// A mock server for one client test, on free loopback ports, with alice and bob.
enum MockServerFixture {
    /// The profile the client suite runs under: `MAILSEARCH_MOCK_PROFILE` (`full`, `imap4rev1`,
    /// `gmail-like`, `exchange-like`), `full` when unset. `.ci/run` runs the whole suite under
    /// each; a test that needs a capability a profile lacks says so with `requires(_:)`.
    static let profile: Profile = {
        let name = ProcessInfo.processInfo.environment["MAILSEARCH_MOCK_PROFILE"] ?? "full"
        guard let profile = Profile(rawValue: name) else {
            fatalError("MAILSEARCH_MOCK_PROFILE=\(name) is not a profile: \(Profile.allCases.map(\.rawValue))")
        }
        return profile
    }()

    /// Whether the suite's profile announces `capability` (for `.enabled(if:)` on the tests of
    /// a behaviour that only exists with it).
    static func announces(_ capability: Capability) -> Bool { profile.capabilities.contains(capability) }

    /// The command a client search becomes under the suite's profile (SORT when the server
    /// has it, else SEARCH): what a fault aimed at "the search" must name.
    static var searchCommand: String { announces(.sort) ? "UID SORT" : "UID SEARCH" }

    static func start(profile: Profile = MockServerFixture.profile) async throws -> MockIMAPServer {
        try await MockIMAPServer.start(
            .init(
                listeners: [.plain(), .implicitTLS()], tls: .selfSigned(hosts: ["localhost", "127.0.0.1"]),
                profile: profile,
                users: [.init("alice", password: "secret"), .init("bob", password: "hunter2")]))
    }

    /// A small message numbered `index`.
    static func message(_ index: Int, from: String = "sender") -> [UInt8] {
        Array(
            """
            From: \(from) \(index) <\(from)\(index)@example.com>\r
            To: alice@example.com\r
            Subject: message \(index)\r
            Date: Mon, 4 Mar 2024 10:00:00 +0000\r
            Message-ID: <\(index)@example.com>\r
            \r
            Body of message \(index).\r

            """.utf8)
    }

    /// Seeds `count` messages into alice's INBOX.
    static func seed(_ server: MockIMAPServer, count: Int, user: String = "alice") throws {
        for index in 1...count { _ = try server.store.seed(user: user, from: .raw(message(index))) }
    }
}

extension MockIMAPServer {
    /// A client configuration for this server (implicit TLS, trusting its certificate).
    func clientConfiguration() -> IMAPConfiguration {
        let tls = ClientTLSConfiguration(additionalTrustPEM: certificatePEM, usesSystemTrustStore: false)
        return IMAPConfiguration(
            host: "localhost", port: port(for: .implicitTLS)!, security: .implicitTLS(tls),
            timeouts: .init(connect: .seconds(30), tlsHandshake: .seconds(30), commandInactivity: .seconds(60)))
    }

    /// A logged-in session, INBOX selected.
    func loggedInSession(
        user: String = "alice", password: String = "secret", configure: (inout IMAPConfiguration) -> Void = { _ in }
    ) async throws -> IMAPSession {
        var configuration = clientConfiguration()
        configure(&configuration)
        let session = try await IMAPSession.connect(configuration)
        try await session.login(.password(user: user, password: password))
        try await session.select("INBOX")
        return session
    }
}

/// A one-shot signal a test task can wait for (instead of sleeping).
actor Signal {
    private var raised = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func raise() {
        raised = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    func wait() async {
        if raised { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    var isRaised: Bool { raised }
}
