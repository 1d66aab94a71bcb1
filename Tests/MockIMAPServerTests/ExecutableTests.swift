import Foundation
import IMAPClient
import IMAPCore
import Synchronization
import TestSupport
import Testing
import Transport

/// `mock-imap-server` as a subprocess: the READY line, serving, SIGTERM, usage errors.
@Suite(.hangGuard) struct MockServerExecutableTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The executable, next to the test bundle in the build products directory.
    static var executable: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("mock-imap-server") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    /// A running server process whose output pipes are read (never left to the test runner).
    struct Child: Sendable {
        let process: TestChild

        init(_ arguments: [String], environment: [String: String] = [:]) throws {
            guard let executable = MockServerExecutableTests.executable else {
                throw SetupError(description: "mock-imap-server is not built next to the tests")
            }
            // A runner that dies must not leave a server behind.
            process = try TestChild(executable.path, arguments + ["--exit-with-parent"], environment: environment)
        }

        var standardOutput: String { process.standardOutput }
        var standardError: String { process.standardError }

        /// The first line of standard output, waiting up to `timeout` for it.
        func firstLine(timeout: Duration = .seconds(60)) async throws -> String {
            guard await process.waitForLine(timeout: timeout),
                let line = standardOutput.split(separator: "\n", omittingEmptySubsequences: false).first
            else {
                throw SetupError(description: "no line from mock-imap-server; stderr: \(standardError)")
            }
            return String(line)
        }

        /// Waits for the process to end and its output to be read; its exit status.
        func exitStatus(timeout: Duration = .seconds(60)) async throws -> Int32 {
            guard let status = await process.waitForExit(timeout: timeout) else {
                process.send(SIGKILL)
                throw SetupError(description: "mock-imap-server did not exit")
            }
            return status
        }
    }

    @Test func printsReadyServesAndStopsOnSIGTERM() async throws {
        let certificate = FileManager.default.temporaryDirectory.appendingPathComponent("mock-ca-\(UUID()).pem").path
        defer { try? FileManager.default.removeItem(atPath: certificate) }
        let child = try Child([
            "--listen", "127.0.0.1:0", "--tls-listen", "127.0.0.1:0", "--user", "alice:secret", "--user", "bob:pw:tok",
            "--demo", "--cert-out", certificate, "--profile", "full",
        ])
        defer { child.process.send(SIGTERM) }
        let line = try await child.firstLine()
        let pattern = #/^READY imap=127\.0\.0\.1:(\d+) imaps=127\.0\.0\.1:(\d+) cert=(.+)$/#
        guard let match = line.wholeMatch(of: pattern), let imap = Int(match.1), let imaps = Int(match.2) else {
            Issue.record("not a READY line: \(line)")
            return
        }
        #expect(String(match.3) == certificate)
        let pem = try [UInt8](Data(contentsOf: URL(fileURLWithPath: certificate)))
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
        let tls = ClientTLSConfiguration(additionalTrustPEM: pem, usesSystemTrustStore: false)
        for (port, security) in [(imaps, IMAPConfiguration.Security.implicitTLS(tls)), (imap, .startTLS(tls))] {
            let session = try await IMAPSession.connect(
                IMAPConfiguration(host: "localhost", port: port, security: security))
            try await session.login(.password(user: "alice", password: "secret"))
            let inbox = try await session.select("INBOX")
            #expect(inbox.messageCount > 100)
            #expect(try await session.search([.from("amazon.com")]).count >= 2)
            await session.logout()
        }
        let bob = try await IMAPSession.connect(
            IMAPConfiguration(host: "localhost", port: imaps, security: .implicitTLS(tls)))
        try await bob.login(.oauth2(user: "bob", token: "tok"))
        await bob.logout()
        child.process.send(SIGTERM)
        #expect(try await child.exitStatus() == 0)
        #expect(child.standardOutput.split(separator: "\n").count == 1)
        #expect(child.standardError.isEmpty)
    }

    @Test func seedsFromAPathAndStopsOnSIGINT() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-exe-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mbox = directory.appendingPathComponent("mail.mbox")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("From a@b Sat Jan  3 01:05:34 2024\nSubject: from the mbox\n\nhello\n".utf8).write(to: mbox)
        let child = try Child(["--listen", "127.0.0.1:0", "--seed", mbox.path, "--allow-plaintext-auth"])
        defer { child.process.send(SIGTERM) }
        let line = try await child.firstLine()
        #expect(line.hasPrefix("READY imap=127.0.0.1:") && !line.contains("imaps=") && !line.contains("cert="))
        let port = Int(line.split(separator: ":").last ?? "") ?? 0
        let connection = try await NetworkConnection.connect(host: "127.0.0.1", port: port, security: .plainText)
        let client = RawClient(connection: connection)
        _ = try await client.readLine()
        try await client.login()
        _ = try await client.command("s", "SELECT INBOX")
        #expect(try await client.numbers("a", "SEARCH SUBJECT mbox") == [1])
        client.close()
        child.process.send(SIGINT)
        #expect(try await child.exitStatus() == 0)
    }

    struct UsageCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let usageCases = [
        UsageCase(arguments: ["--bogus"], message: "error: unknown option \"--bogus\""),
        UsageCase(arguments: ["--listen", "nowhere"], message: "error: --listen takes HOST:PORT"),
        UsageCase(arguments: ["--profile", "outlook"], message: "error: unknown profile \"outlook\""),
        UsageCase(arguments: ["--user", ":nobody"], message: "error: --user takes"),
        UsageCase(
            arguments: ["--user", "nopassword"],
            message: "error: --user nopassword needs a password: pass --password-file FILE or set MOCK_IMAP_PASSWORD"),
        UsageCase(arguments: ["--user", "carol", "--password-file", "/nonexistent"], message: "error: cannot read"),
        UsageCase(arguments: ["--max-connections", "0"], message: "error: --max-connections takes a number above 0"),
        // Default credentials are for loopback only.
        UsageCase(
            arguments: ["--listen", "0.0.0.0:0"],
            message: "error: 0.0.0.0:0 is not a loopback address, and the default account alice/secret is for "
                + "loopback only: pass --user NAME with --password-file FILE or MOCK_IMAP_PASSWORD\n"),
        UsageCase(arguments: ["--tls-listen", "[::]:0"], message: "error: [::]:0 is not a loopback address"),
        UsageCase(arguments: ["--listen", "192.0.2.1:0"], message: "error: 192.0.2.1:0 is not a loopback address"),
        UsageCase(arguments: ["--cert", "a.pem"], message: "error: --cert and --key go together"),
    ]

    @Test(arguments: usageCases) func usageErrorsExit64(_ usage: UsageCase) async throws {
        let child = try Child(usage.arguments)
        #expect(try await child.exitStatus() == 64)
        #expect(child.standardError.hasPrefix(usage.message), "\(child.standardError)")
        #expect(child.standardError.split(separator: "\n").count == 1)
        #expect(child.standardOutput.isEmpty)
    }

    /// A password that never appears in the server's arguments (what `ps` shows).
    @Test(arguments: [true, false]) func passwordFromAFileOrTheEnvironment(fromFile: Bool) async throws {
        let password = "pw-\(UUID().uuidString.prefix(8))"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mock-pw-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: file))
        // Beyond loopback, with --user NAME: no default account, so the server starts.
        var arguments = ["--listen", "0.0.0.0:0", "--user", "carol", "--allow-plaintext-auth"]
        if fromFile { arguments += ["--password-file", file] }
        let child = try Child(arguments, environment: fromFile ? [:] : ["MOCK_IMAP_PASSWORD": password])
        defer { child.process.send(SIGTERM) }
        let line = try await child.firstLine()
        #expect(line.hasPrefix("READY imap=0.0.0.0:"), "\(line)")
        let port = Int(line.split(separator: ":").last ?? "") ?? 0
        let connection = try await NetworkConnection.connect(host: "127.0.0.1", port: port, security: .plainText)
        let client = RawClient(connection: connection)
        _ = try await client.readLine()
        #expect(try await client.command("w", "LOGIN carol wrong").tagged.hasPrefix("w NO "))
        #expect(try await client.command("p", "LOGIN alice secret").tagged.hasPrefix("p NO "))
        #expect(try await client.command("l", "LOGIN carol \(password)").tagged.hasPrefix("l OK "))
        client.close()
        child.process.send(SIGTERM)
        #expect(try await child.exitStatus() == 0)
        #expect(child.standardError.isEmpty, "\(child.standardError)")
    }

    @Test func aPasswordOnTheCommandLineOffLoopbackIsWarnedAbout() async throws {
        let child = try Child(["--listen", "0.0.0.0:0", "--user", "carol:visible"])
        defer { child.process.send(SIGTERM) }
        #expect(try await child.firstLine().hasPrefix("READY imap=0.0.0.0:"))
        child.process.send(SIGTERM)
        #expect(try await child.exitStatus() == 0)
        #expect(child.standardError.hasPrefix("warning: a --user NAME:PASSWORD password shows in ps"))
    }

    @Test func startFailureIsOneErrorLine() async throws {
        let child = try Child(["--seed", "/nonexistent/path"])
        #expect(try await child.exitStatus() == 1)
        #expect(child.standardError == "error: /nonexistent/path does not exist\n")
    }

    @Test func helpPrintsOverviewUsageAndOptions() async throws {
        let child = try Child(["--help"])
        #expect(try await child.exitStatus() == 0)
        let help = child.standardOutput
        #expect(help.contains("OVERVIEW:") && help.contains("USAGE:") && help.contains("OPTIONS:"))
        #expect(help.contains("--tls-listen"))
    }
}
