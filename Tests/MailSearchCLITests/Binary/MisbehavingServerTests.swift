import Foundation
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// Against a server that misbehaves, the tool neither hangs nor crashes: it exits with the
/// right code and one `error:` line, in bounded time and memory.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct MisbehavingServerTests {
    /// The most resident memory a failing run may reach (a literal of 99 GB was announced); the
    /// runs measure 28-63 MB here, the launcher's 10 MB included.
    static let memoryBoundKiB = 128 * 1024

    /// Runs the tool with its own peak memory measured (see `ToolProcess.run(measuringMemory:)`).
    static func run(
        _ arguments: [String], environment: [String: String], timeout: Duration = .seconds(90)
    ) async throws -> ToolResult {
        try await ToolProcess.run(arguments, environment: environment, timeout: timeout, measuringMemory: true)
    }

    func expectOneError(
        _ result: ToolResult, _ status: Int32, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        #expect(!result.timedOut, sourceLocation: sourceLocation)
        #expect(result.errorLines.count == 1, "\(result)", sourceLocation: sourceLocation)
        #expect(result.standardError.hasPrefix("error: "), "\(result)", sourceLocation: sourceLocation)
        let peak = result.maximumResidentKiB
        #expect(peak != nil, "the tool's peak memory was not measured", sourceLocation: sourceLocation)
        #expect((peak ?? .max) < Self.memoryBoundKiB, "\(peak ?? -1) KiB", sourceLocation: sourceLocation)
        print("\(result.standardError.prefix(60).split(separator: "\n").first ?? ""): peak \(peak ?? -1) KiB")
    }

    @Test func aStalledCommandTimesOutWith75() async throws {
        let account = try await MockAccount.start(faults: [FaultRule(trigger: .command("UID SORT"), fault: .stall)])
        defer { Task { await account.stop() } }
        let result = try await Self.run(
            account.tlsArguments + ["--timeout", "1", "search", "from:luna"], environment: account.environment,
            timeout: .seconds(60))
        expectOneError(result, 75)
        // The 1-second limit ended it (said by the error, not by a clock): the session's "did not
        // answer UID SORT for 1 second" or the connection's "sent nothing for 1 second", whichever
        // timer the stall reached first.
        #expect(result.standardError.contains(" for 1 second; "), "\(result)")
    }

    @Test func aConnectionDroppedMidLiteralExits75() async throws {
        let account = try await MockAccount.start(faults: [
            FaultRule(trigger: .command("UID FETCH"), fault: .closeInLiteral)
        ])
        defer { Task { await account.stop() } }
        let uid = try #require(account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").last)
        let result = try await Self.run(
            account.tlsArguments + ["--timeout", "30", "show", "\(uid)"], environment: account.environment)
        expectOneError(result, 75)
    }

    @Test func byeInTheMiddleOfASearchExits75() async throws {
        let account = try await MockAccount.start(
            faults: [FaultRule(trigger: .command("UID SORT"), fault: .respond(.bye, text: "server shutting down"))])
        defer { Task { await account.stop() } }
        let result = try await Self.run(
            account.plainArguments + ["search", "x"], environment: account.environment)
        expectOneError(result, 75)
        #expect(result.standardError.contains("server shutting down"), "\(result)")
    }

    /// A BYE in answer to SELECT, after a successful login, is a session the server ended (75),
    /// not a server that refuses to serve (69, which is for a greeting BYE).
    @Test func byeInAnswerToSelectAfterLoginExits75() async throws {
        let account = try await MockAccount.start(
            faults: [FaultRule(trigger: .command("SELECT"), fault: .respond(.bye, text: "mailbox moving, try later"))])
        defer { Task { await account.stop() } }
        let result = try await Self.run(account.plainArguments + ["list"], environment: account.environment)
        expectOneError(result, 75)
        #expect(result.standardError.contains("mailbox moving, try later"), "\(result)")
    }

    @Test func aDroppedConnectionIsRetriedOnce() async throws {
        // Only the first search breaks: the command reconnects, searches again and succeeds.
        let account = try await MockAccount.start(
            faults: [FaultRule(trigger: .command("UID SORT", occurrence: 1), fault: .closeAfter(bytes: 0))])
        defer { Task { await account.stop() } }
        let result = try await Self.run(
            account.tlsArguments + ["search", "--json", "from:luna"], environment: account.environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 1)
    }

    @Test(arguments: ["enormous literal", "endless line", "not IMAP"])
    func garbageMidCommandExits75(kind: String) async throws {
        let misbehaviour: ScriptedServer.Misbehaviour =
            kind == "enormous literal" ? .enormousLiteral : kind == "endless line" ? .endlessLine : .notIMAP
        let server = try ScriptedServer(misbehaviour)
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-scripted-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.run(
            [
                "--host", "127.0.0.1", "--port", "\(server.port)", "--user", "u", "--tls", "none",
                "--insecure-plaintext",
                "--timeout", "30", "list",
            ], environment: ToolEnvironment.make(directory, password: "pw"), timeout: .seconds(90))
        expectOneError(result, 75)
    }

    /// After a successful login the server has shown it speaks IMAP: garbage, or a line past
    /// the parser's limit, in answer to SELECT (still opening the mailbox) is a connection that
    /// broke mid-command (75), not a server that does not speak IMAP (69).
    @Test(arguments: ["endless line", "not IMAP"])
    func garbageAfterLoginExits75(kind: String) async throws {
        let server = try ScriptedServer(kind == "endless line" ? .endlessLine : .notIMAP, to: "SELECT")
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-scripted-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.run(
            [
                "--host", "127.0.0.1", "--port", "\(server.port)", "--user", "u", "--tls", "none",
                "--insecure-plaintext", "--timeout", "30", "list",
            ], environment: ToolEnvironment.make(directory, password: "pw"), timeout: .seconds(90))
        expectOneError(result, 75)
        #expect(result.standardError.contains("the connection broke mid-command"), "\(result)")
        #expect(!result.standardError.contains("IMAP port"), "\(result)")
    }

    @Test(arguments: [
        ("SSH-2.0-OpenSSH_9.6\r\n", "is this an IMAP port?"),
        ("* BYE too many connections from your address\r\n", "too many connections from your address"),
    ])
    func aServerThatIsNotIMAPOrRefusesExits69(greeting: String, message: String) async throws {
        let server = try ScriptedServer(.greeting(Array(greeting.utf8)))
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-scripted-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.run(
            [
                "--host", "127.0.0.1", "--port", "\(server.port)", "--user", "u", "--tls", "none",
                "--insecure-plaintext",
                "--timeout", "30", "list",
            ], environment: ToolEnvironment.make(directory, password: "pw"))
        expectOneError(result, 69)
        #expect(result.standardError.contains(message), "\(result)")
    }

    @Test func aSilentServerTimesOut() async throws {
        let server = try ScriptedServer(.greeting([]))
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-scripted-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.run(
            [
                "--host", "127.0.0.1", "--port", "\(server.port)", "--user", "u", "--tls", "none",
                "--insecure-plaintext",
                "--timeout", "1", "list",
            ], environment: ToolEnvironment.make(directory, password: "pw"), timeout: .seconds(30))
        expectOneError(result, 75)
    }

    @Test func implicitTLSToAPlainTextServerFailsTLSWith69() async throws {
        let server = try ScriptedServer(.greeting(Array("* OK hello\r\n".utf8)))
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-scripted-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.run(
            ["--host", "127.0.0.1", "--port", "\(server.port)", "--user", "u", "--timeout", "30", "list"],
            environment: ToolEnvironment.make(directory, password: "pw"))
        expectOneError(result, 69)
    }

    /// Server text reaches the terminal only as text: a NO or BYE whose text carries escape
    /// sequences (a title change, a screen clear, an OSC 52 clipboard write, a bidirectional
    /// override) prints one `error:` line without them, and the `--debug` trace shows them
    /// written out.
    @Test(arguments: [
        "TAG NO bad\u{1b}]0;TITLE\u{07}\u{1b}[2J\u{1b}]52;c;ZWNobyBoaQ==\u{07} \u{202e}txt.exe\u{2028}x\u{9b}31m\r\n",
        "* BYE going\u{1b}]0;TITLE\u{07}\u{1b}[2J\u{1b}]52;c;ZWNobyBoaQ==\u{07} \u{202e}txt.exe\u{2028}x\u{9b}31m\r\n",
    ])
    func serverTextWithEscapeSequencesIsNeverWrittenRaw(answer: String) async throws {
        let server = try ScriptedServer(.answer(answer))
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-scripted-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        for debug in [false, true] {
            let result = try await Self.run(
                [
                    "--host", "127.0.0.1", "--port", "\(server.port)", "--user", "u", "--tls", "none",
                    "--insecure-plaintext", "--timeout", "30",
                ] + (debug ? ["--debug"] : []) + ["list"],
                environment: ToolEnvironment.make(directory, password: "pw"))
            #expect(result.status != 0, "\(result)")
            let unsafe: [Unicode.Scalar] = ["\u{1b}", "\u{07}", "\u{202e}", "\u{2028}", "\u{9b}"]
            for scalar in unsafe {
                #expect(
                    !result.standardError.unicodeScalars.contains(scalar),
                    "\(scalar.escaped(asASCII: true)) in \(result)")
                #expect(!result.standardOutput.unicodeScalars.contains(scalar), "\(result)")
            }
            let errorLine = try #require(result.errorLines.last)
            #expect(errorLine.contains("TITLE"), "\(result)")
            if debug {
                #expect(result.standardError.contains("\\x1B]0;TITLE\\x07"), "\(result)")
            }
        }
    }
}
