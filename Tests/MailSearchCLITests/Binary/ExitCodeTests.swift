import Foundation
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// Each exit code of docs/cli.md from the built binary, each failure as exactly one `error:`
/// line on standard error and nothing on standard output.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct ExitCodeTests {
    /// A run that failed: the status and its one error line.
    func expectFailure(
        _ result: ToolResult, _ status: Int32, _ prefix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        #expect(!result.timedOut, sourceLocation: sourceLocation)
        #expect(result.errorLines.count == 1, "\(result)", sourceLocation: sourceLocation)
        #expect(result.standardError.hasPrefix("error: " + prefix), "\(result)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty, "\(result)", sourceLocation: sourceLocation)
    }

    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-exit-\(UUID())")

    @Test(arguments: [
        (["frobnicate"], "unknown command \"frobnicate\""),
        (["search", "--jsno", "x"], "unknown option \"--jsno\" for \"mailsearch search\"; did you mean \"--json\"?"),
        (["--hots", "x", "list"], "unknown option \"--hots\"; did you mean \"--host\"?"),
        (["show"], "missing argument <uid>"),
        (["read"], "missing argument <uid> ..."),
        (["list", "--limit", "0"], "--limit expects a whole number from 1 to 1000000, not \"0\""),
        (
            ["--host", "imap.example.com", "--user", "u", "--tls", "none", "list"],
            "--tls none is refused for imap.example.com"
        ),
        (["--host", "127.0.0.1", "--user", "u", "--tls", "none", "list"], "--tls none sends the password unencrypted"),
        (["--host", "imap.example.com", "--tls", "sometimes", "list"], "--tls expects implicit, starttls or none"),
        (
            ["--demo", "--host", "imap.example.com", "list"],
            "--demo uses the built-in demo server, so --host does not apply"
        ),
        (["list"], "no account given; pass --host and --user"),
        (["--account", "work", "list"], "--account work needs "),
        (["--host", "imap.example.com", "list", "--user", "u", "--port", "99999"], "--port expects a whole number"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) async throws {
        let result = try await ToolProcess.run(arguments, environment: ToolEnvironment.make(Self.directory))
        expectFailure(result, 64, message)
    }

    @Test(arguments: [
        (#"from:"alice"#, "unterminated quote starting at column 6"),
        ("(from:a OR from:b", #"unbalanced "(" at column 1"#),
        ("after:2024-02-30", #"invalid date "2024-02-30" (column 7)"#),
    ])
    func queryThatDoesNotParseExits65BeforeConnecting(query: String, message: String) async throws {
        // Port 1 refuses connections: a query error must come first, without connecting.
        let result = try await ToolProcess.run(
            ["--host", "127.0.0.1", "--port", "1", "--user", "u", "search", query],
            environment: ToolEnvironment.make(Self.directory, password: "x"))
        expectFailure(result, 65, message)
        let explained = try await ToolProcess.run(
            ["explain", query], environment: ToolEnvironment.make(Self.directory))
        expectFailure(explained, 65, message)
    }

    @Test func queryTheServerCannotRunExits65() async throws {
        let account = try await MockAccount.start(profile: .imap4rev1, demo: false)
        defer { Task { await account.stop() } }
        let result = try await ToolProcess.run(
            account.tlsArguments + ["search", "raw:foo"], environment: account.environment)
        expectFailure(result, 65, "raw: works only on Gmail")
    }

    @Test func unreachableHostExits69() async throws {
        // A port nobody listens on: bound without listen(), so a connection is refused and no
        // other test's server can take the port while the tool starts (a port closed after
        // noting it was taken by another listener in a full run).
        let reserved = try ReservedPort()
        defer { reserved.close() }
        let port = reserved.port
        let refused = try await ToolProcess.run(
            ["--host", "127.0.0.1", "--port", "\(port)", "--user", "u", "list"],
            environment: ToolEnvironment.make(Self.directory, password: "x"))
        expectFailure(refused, 69, "127.0.0.1:\(port) refused the connection")
        let unknown = try await ToolProcess.run(
            ["--host", "no-such-host.invalid", "--user", "u", "list"],
            environment: ToolEnvironment.make(Self.directory, password: "x"))
        expectFailure(unknown, 69, "cannot find the host no-such-host.invalid")
    }

    @Test func untrustedCertificateExits69() async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        let arguments = ["--host", "127.0.0.1", "--port", "\(account.tlsPort)", "--user", MockAccount.user, "list"]
        let result = try await ToolProcess.run(arguments, environment: account.environment)
        expectFailure(result, 69, "the certificate of 127.0.0.1 is not trusted (")
        #expect(result.standardError.contains("pass --ca-file with its CA"))
    }

    @Test func certificateForAnotherHostExits69() async throws {
        let other = try await MockIMAPServer.start(
            .init(
                listeners: [.implicitTLS()], tls: .selfSigned(hosts: ["mail.other.example"]),
                users: [.init(MockAccount.user, password: "pw")]))
        defer { Task { await other.stop() } }
        let directory = Self.directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pem = directory.appendingPathComponent("other.pem").path
        try Data(other.certificatePEM).write(to: URL(fileURLWithPath: pem))
        let result = try await ToolProcess.run(
            [
                "--host", "127.0.0.1", "--port", "\(other.port(for: .implicitTLS) ?? 0)", "--user", MockAccount.user,
                "--ca-file", pem, "list",
            ], environment: ToolEnvironment.make(directory, password: "pw"))
        expectFailure(result, 69, "the certificate of the server is not for 127.0.0.1")
    }

    @Test func plainTextPortWithImplicitTLSExits69() async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        let result = try await ToolProcess.run(
            [
                "--host", "127.0.0.1", "--port", "\(account.plainPort)", "--user", MockAccount.user, "--timeout", "30",
                "list",
            ],
            environment: account.environment)
        #expect(result.status == 69, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
    }

    @Test(arguments: ["tls", "plain"])
    func wrongPasswordExits77(transport: String) async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = "not-the-password"
        let result = try await ToolProcess.run(
            (transport == "tls" ? account.tlsArguments : account.plainArguments) + ["list"], environment: environment)
        expectFailure(result, 77, "")
        #expect(!result.standardError.contains("not-the-password"))
    }

    @Test func serverNOExits75() async throws {
        let account = try await MockAccount.start(
            faults: [
                FaultRule(trigger: .command("UID SORT"), fault: .respond(.no, text: "search backend unavailable"))
            ])
        defer { Task { await account.stop() } }
        let result = try await ToolProcess.run(
            account.tlsArguments + ["search", "from:luna"], environment: account.environment)
        expectFailure(result, 75, "")
        #expect(result.standardError.contains("search backend unavailable"), "\(result)")
    }

    @Test func serverBADExits75() async throws {
        let account = try await MockAccount.start(
            faults: [FaultRule(trigger: .command("UID STORE"), fault: .respond(.bad, text: "no thanks"))])
        defer { Task { await account.stop() } }
        let uid = try #require(account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").first)
        let result = try await ToolProcess.run(
            account.tlsArguments + ["pin", "\(uid)"], environment: account.environment)
        expectFailure(result, 75, "UID \(uid) was not changed: the server refused to set \\Flagged")
    }

    @Test func missingMailboxExits75() async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        let result = try await ToolProcess.run(
            account.tlsArguments + ["--mailbox", "No Such Box", "list"], environment: account.environment)
        expectFailure(result, 75, "")
    }
}
