import Foundation
import MockIMAPServer
import TestSupport
import Testing

/// Where the password comes from (never the command line) and where it never goes: not in any
/// output, JSON, error or `--debug` trace.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct SecretTests {
    @Test func thePasswordNeverAppearsInAnyOutput() async throws {
        let account = try await MockAccount.start(
            faults: [FaultRule(trigger: .command("UID STORE"), fault: .respond(.no, text: "read-only today"))])
        defer { Task { await account.stop() } }
        let uid = try #require(account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").first)
        var outputs: [ToolResult] = []
        for transport in [account.tlsArguments, account.plainArguments] {
            for command in [
                ["search", "--json", "from:luna"], ["search", "is:unread"], ["list", "--json", "-n", "5"],
                ["show", "--json", "\(uid)"], ["show", "\(uid)"], ["mailboxes", "--json"], ["pin", "\(uid)"],
                ["history"], ["suggest", "from:"],
            ] {
                let result = try await ToolProcess.run(
                    transport + ["--debug"] + command, environment: account.environment)
                outputs.append(result)
            }
        }
        // The trace is there, with the login redacted.
        #expect(outputs[0].status == 0, "\(outputs[0])")
        #expect(outputs[0].standardError.contains("debug: C: "), "\(outputs[0])")
        #expect(
            outputs.contains {
                $0.standardError.contains("AUTHENTICATE PLAIN ***") || $0.standardError.contains("LOGIN ***")
            })
        #expect(outputs.contains { $0.status == 75 })
        for result in outputs {
            #expect(!result.standardOutput.contains(account.password), "\(result)")
            #expect(!result.standardError.contains(account.password), "\(result)")
        }
        // Nor does the SASL PLAIN token that carries it.
        let token = Data("\0\(MockAccount.user)\0\(account.password)".utf8).base64EncodedString()
        #expect(!outputs.contains { $0.standardError.contains(token) || $0.standardOutput.contains(token) })
    }

    @Test func thePasswordIsNotInTheProcessArgumentsOrItsTrace() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let watch = try ToolProcess.start(
            account.tlsArguments + ["--debug", "watch"], environment: account.environment)
        #expect(await watch.waitForLine { $0.hasPrefix("Watching INBOX") } != nil)
        let arguments = try String(
            decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(watch.pid)/cmdline")), as: UTF8.self)
        #expect(arguments.contains("watch"))
        #expect(!arguments.contains(account.password))
        watch.send(SIGINT)
        let result = await watch.finished()
        #expect(result.status == 0, "\(result)")
        #expect(result.standardError.contains("debug: C: "))
        #expect(!result.standardError.contains(account.password))
        #expect(!result.standardOutput.contains(account.password))
    }

    @Test func aWrongPasswordIsNotEchoedEither() async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = "Wrong-Secret-123"
        let result = try await ToolProcess.run(account.plainArguments + ["--debug", "list"], environment: environment)
        #expect(result.status == 77)
        #expect(!result.standardError.contains("Wrong-Secret-123"))
        #expect(result.standardError.split(separator: "\n").filter { $0.hasPrefix("error: ") }.count == 1)
    }

    @Test func passwordCommandGivesItsFirstLine() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = nil
        let command = "printf '%s\\nsecond line\\n' '\(account.password)'"
        let result = try await ToolProcess.run(
            account.tlsArguments + ["--password-command", command, "search", "--json", "from:luna"],
            environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 1)

        let failing = try await ToolProcess.run(
            account.tlsArguments + ["--password-command", "exit 3", "list"], environment: environment)
        #expect(failing.status == 1)
        #expect(
            failing.errorLines == [
                "error: the password command \"exit\" (its arguments not shown) failed (exit status 3); "
                    + "run it in a shell to see why"
            ])
        let silent = try await ToolProcess.run(
            account.tlsArguments + ["--password-command", "true", "list"], environment: environment)
        #expect(silent.status == 1)
        #expect(silent.standardError.hasPrefix("error: the password command \"true\" printed nothing"))
    }

    @Test func onATerminalThePasswordIsAskedForWithoutEcho() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = nil
        let process = try ToolProcess.start(
            account.tlsArguments + ["search", "--json", "from:luna"], environment: environment, terminals: [0])
        #expect(await process.waitForError(containing: "Password for alice on 127.0.0.1: "))
        process.type(account.password + "\n")
        let result = await process.finished()
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 1)
        #expect(result.standardError == "Password for alice on 127.0.0.1: \n")
        #expect(
            !process.terminalEcho.contains(account.password),
            "the terminal echoed \(process.terminalEcho.debugDescription)")
    }

    @Test func withoutAPasswordSourceAndNoTerminalItSaysWhatToDo() async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = nil
        let result = try await ToolProcess.run(account.tlsArguments + ["list"], environment: environment)
        #expect(result.status == 64)
        #expect(result.errorLines.count == 1)
        #expect(result.standardError.hasPrefix("error: no password for alice on 127.0.0.1: set MAILSEARCH_PASSWORD"))
    }

    @Test func configFileAccountsWithFlagsOverridingThem() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let config = account.directory.appendingPathComponent("config/mailsearch")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let json = """
            { "defaultAccount": "work",
              "accounts": {
                "work": { "host": "127.0.0.1", "port": \(account.tlsPort), "user": "alice",
                          "caFile": "\(account.certificatePath)",
                          "passwordCommand": "printf %s '\(account.password)'", "pinFlag": "\\\\Flagged",
                          "timeout": 2.5e1 },
                "archive": { "host": "127.0.0.1", "port": \(account.tlsPort), "user": "alice",
                             "caFile": "\(account.certificatePath)", "mailbox": "Archive",
                             "passwordCommand": "printf %s '\(account.password)'" } } }
            """
        try Data(json.utf8).write(to: config.appendingPathComponent("config.json"))
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = nil
        let archiveCount = account.server.store.uids(user: MockAccount.user, mailbox: "Archive").count
        let inboxCount = account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").count

        let byDefault = try await ToolProcess.run(["list", "--json", "-n", "1000"], environment: environment)
        #expect(byDefault.status == 0, "\(byDefault)")
        #expect(byDefault.lines.count == inboxCount)
        let named = try await ToolProcess.run(
            ["--account", "archive", "list", "--json", "-n", "1000"], environment: environment)
        #expect(named.lines.count == archiveCount, "\(named)")
        let overridden = try await ToolProcess.run(
            ["--account", "archive", "list", "--json", "-n", "1000", "--mailbox", "INBOX"], environment: environment)
        #expect(overridden.lines.count == inboxCount, "\(overridden)")
        let unknown = try await ToolProcess.run(["--account", "home", "list"], environment: environment)
        #expect(unknown.status == 64)
        #expect(unknown.errorLines.count == 1)
        #expect(unknown.standardError.contains("there is no account \"home\" in "), "\(unknown)")
        #expect(unknown.standardError.contains("(it has: archive, work)"))

        try Data(#"{"accounts":{"work":{"hots":"x","password":"p"}}}"#.utf8).write(
            to: config.appendingPathComponent("config.json"))
        let misspelt = try await ToolProcess.run(["--account", "work", "list"], environment: environment)
        #expect(misspelt.status == 1)
        #expect(misspelt.errorLines.count == 1)
        #expect(
            misspelt.standardError.contains("unknown key \"hots\" in the account \"work\"; did you mean \"host\"?")
                || misspelt.standardError.contains("has a password; keep it in a password manager"), "\(misspelt)")

        try Data(#"{"accounts": {"work": {"host": "x",}}}"#.utf8).write(
            to: config.appendingPathComponent("config.json"))
        let broken = try await ToolProcess.run(["--account", "work", "list"], environment: environment)
        #expect(broken.status == 1)
        #expect(broken.errorLines.count == 1)
        #expect(broken.standardError.contains("config.json is not valid JSON ("), "\(broken)")
        #expect(broken.standardError.contains(" at byte 35); check its syntax"), "\(broken)")

        // A byte order mark is read past; an empty host is refused by name, before any lookup.
        try Data([0xEF, 0xBB, 0xBF] + Array(#"{"accounts": {"work": {"host": " ", "user": "me"}}}"#.utf8)).write(
            to: config.appendingPathComponent("config.json"))
        let blank = try await ToolProcess.run(["--account", "work", "list"], environment: environment)
        #expect(blank.status == 64, "\(blank)")
        #expect(blank.errorLines.count == 1)
        #expect(blank.standardError.contains("the account \"work\" in "), "\(blank)")
        #expect(blank.standardError.contains("config.json gives an empty host; write the IMAP server's name"))
        let long = try await ToolProcess.run(
            ["--account", "work", "--timeout", "86400000", "list"], environment: environment)
        #expect(long.status == 64, "\(long)")
        #expect(
            long.standardError.contains("--timeout expects a number of seconds above 0 and at most 86400 (a day)"),
            "\(long)")
    }

    /// The password command's child does not inherit MAILSEARCH_PASSWORD, and an error names the
    /// command's program without its arguments (a vault path, a scope).
    @Test func thePasswordCommandGetsNoPasswordAndErrorsHideItsArguments() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = "Inherited-Secret-42"
        // It prints the password only when it was not handed one.
        let command = "test -z \"$MAILSEARCH_PASSWORD\" && printf %s '\(account.password)'"
        let result = try await ToolProcess.run(
            account.tlsArguments + ["--password-command", command, "search", "--json", "from:luna"],
            environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 1)

        let failing = try await ToolProcess.run(
            account.tlsArguments + ["--password-command", "false vault/work/imap-Secret-Path", "list"],
            environment: environment)
        #expect(failing.status == 1)
        #expect(failing.errorLines.count == 1, "\(failing)")
        #expect(failing.standardError.contains("the password command \"false\" (its arguments not shown) failed"))
        #expect(!failing.standardError.contains("Secret-Path"), "\(failing)")
    }

    /// A config file (or its directory) that others can write, or that another user owns, is
    /// refused as ssh refuses one, and the command it names never runs.
    @Test func aConfigFileOthersCanWriteIsRefusedAndItsCommandNeverRuns() async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        let config = account.directory.appendingPathComponent("config/mailsearch")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let marker = account.directory.appendingPathComponent("the-command-ran")
        let file = config.appendingPathComponent("config.json")
        let json = """
            { "defaultAccount": "work",
              "accounts": { "work": { "host": "127.0.0.1", "port": \(account.tlsPort), "user": "alice",
                                      "caFile": "\(account.certificatePath)",
                                      "passwordCommand": "touch '\(marker.path)'; printf %s '\(account.password)'" } } }
            """
        try Data(json.utf8).write(to: file)
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = nil
        let modes: [(path: URL, mode: Int, says: String)] = [
            (file, 0o666, "can be written by other users"), (file, 0o620, "can be written by other users"),
            (config, 0o777, "its directory"),
        ]
        for (path, mode, says) in modes {
            let previous = try #require(
                try FileManager.default.attributesOfItem(atPath: path.path)[.posixPermissions] as? Int)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path.path)
            let refused = try await ToolProcess.run(["list", "--json"], environment: environment)
            try FileManager.default.setAttributes([.posixPermissions: previous], ofItemAtPath: path.path)
            #expect(refused.status == 64, "\(refused)")
            #expect(refused.errorLines.count == 1, "\(refused)")
            #expect(refused.standardError.contains(says), "\(refused)")
            #expect(refused.standardError.contains("chmod go-w"), "\(refused)")
            #expect(!FileManager.default.fileExists(atPath: marker.path), "the password command ran")
        }
        if geteuid() == 0 {
            #expect(chown(file.path, 65534, 65534) == 0)
            let theirs = try await ToolProcess.run(["list", "--json"], environment: environment)
            #expect(theirs.status == 64, "\(theirs)")
            #expect(theirs.standardError.contains("belongs to another user"), "\(theirs)")
            #expect(!FileManager.default.fileExists(atPath: marker.path), "the password command ran")
            #expect(chown(file.path, 0, 0) == 0)
        }
        // Back to the owner's alone: used, and its command runs.
        let accepted = try await ToolProcess.run(["list", "--json"], environment: environment)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(FileManager.default.fileExists(atPath: marker.path))
    }
}
