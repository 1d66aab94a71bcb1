import MailSearchCLI
import TestSupport
import Testing

@Suite(.hangGuard) struct MailSearchToolTests {
    @Test func noCommandIsAUsageError() async {
        let run = await runTool([])
        #expect(run.status == .usageError)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "error: no command given; run \"mailsearch help\" for the list of commands\n")
    }

    @Test func unknownCommandIsAUsageError() async {
        let run = await runTool(["frobnicate", "--json"])
        #expect(run.status == .usageError)
        #expect(run.status.rawValue == 64)
        #expect(run.standardOutput.isEmpty)
        #expect(
            run.standardError
                == "error: unknown command \"frobnicate\"; run \"mailsearch help\" for the list of commands\n"
        )
    }

    @Test func misspeltSubcommandGetsASuggestion() async {
        let run = await runTool(["debug", "prase", "x"])
        #expect(run.status == .usageError)
        #expect(run.standardError == "error: unknown command \"debug prase\"; did you mean \"debug parse\"?\n")
    }

    @Test func groupWithoutSubcommand() async {
        let run = await runTool(["debug"])
        #expect(run.status == .usageError)
        #expect(
            run.standardError
                == "error: \"mailsearch debug\" needs a subcommand (parse); run \"mailsearch help debug\" for what each does\n"
        )
    }

    @Test func unknownOptionBeforeTheCommand() async {
        let run = await runTool(["--hepl"])
        #expect(run.status == .usageError)
        #expect(run.standardError == "error: unknown option \"--hepl\"; did you mean \"--help\"?\n")
    }

    @Test func missingFileArgument() async {
        let run = await runTool(["debug", "parse"])
        #expect(run.status == .usageError)
        #expect(run.standardOutput.isEmpty)
        #expect(
            run.standardError
                == "error: missing argument <file>; usage: mailsearch debug parse <file> "
                + "(\"mailsearch debug parse --help\" explains)\n")
    }

    @Test func unknownOptionOfACommand() async {
        let run = await runTool(["debug", "parse", "--jsn", "x"])
        #expect(run.status == .usageError)
        #expect(run.standardError.hasPrefix("error: unknown option \"--jsn\" for \"mailsearch debug parse\"; "))
    }

    @Test(arguments: [["--help"], ["-h"], ["help"]])
    func toolHelp(arguments: [String]) async {
        let run = await runTool(arguments)
        #expect(run.status == .success)
        #expect(run.standardError.isEmpty)
        let help = run.standardOutput
        #expect(help.hasPrefix("OVERVIEW: "))
        #expect(help.contains("\n\nUSAGE: mailsearch [<account options>] <command> [<options>]\n\nCOMMANDS:\n"))
        #expect(
            help.contains("\n  debug parse <file>    Parse raw server bytes; print each response as one JSON line.\n"))
        #expect(help.contains("\n  help [<command>]      "))
        #expect(help.hasSuffix("OPTIONS:\n  -h, --help            Show help information.\n"))
        // Every command of the spec is listed, and the account options.
        for command in [
            "search [<query> ...]", "list", "show <uid>", "read <uid> ...", "unread <uid> ...", "pin <uid> ...",
            "unpin <uid> ...", "history", "suggest [<prefix> ...]", "explain [<query> ...]", "watch", "mailboxes",
        ] {
            #expect(help.contains("\n  \(command)"), "\(command)")
        }
        for option in ["--host <host>", "--demo", "--ca-file <pem>", "--password-command <command>", "--timeout"] {
            #expect(help.contains("\n  \(option)"), "\(option)")
        }
    }

    @Test(arguments: [["help", "debug"], ["debug", "--help"], ["debug", "-h"]])
    func groupHelp(arguments: [String]) async {
        let run = await runTool(arguments)
        #expect(run.status == .success)
        #expect(
            run.standardOutput == """
                OVERVIEW: Tools for looking at IMAP traffic without a server.

                USAGE: mailsearch debug <subcommand>

                SUBCOMMANDS:
                  parse <file>          Parse raw server bytes; print each response as one JSON line.

                  See "mailsearch help debug <subcommand>" for the help of one subcommand.

                OPTIONS:
                  -h, --help            Show help information.

                """)
    }

    @Test(arguments: [
        ["help", "debug", "parse"], ["help", "debug parse"], ["debug", "parse", "--help"],
        ["debug", "parse", "x", "-h"],
    ])
    func commandHelp(arguments: [String]) async {
        let run = await runTool(arguments)
        #expect(run.status == .success)
        #expect(run.standardError.isEmpty)
        let help = run.standardOutput
        #expect(help.hasPrefix("OVERVIEW: Parse raw server bytes; print each response as one JSON line.\n\n"))
        #expect(help.contains("\n\nUSAGE: mailsearch debug parse <file>\n\n"))
        #expect(
            help.contains("ARGUMENTS:\n  <file>                A file of raw server bytes, or - for standard input.\n"))
        #expect(help.hasSuffix("OPTIONS:\n  -h, --help            Show help information.\n"))
    }

    @Test func helpOfAnUnknownCommand() async {
        let run = await runTool(["help", "nosuch"])
        #expect(run.status == .usageError)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasPrefix("error: unknown command \"nosuch\"; "))
        #expect(await runTool(["help", "debug", "parse", "more"]).status == .usageError)
    }

    @Test func doubleDashMakesHelpAFileName() async {
        let run = await runTool(["debug", "parse", "--", "--help"])
        #expect(run.status == .failure)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasPrefix("error: cannot read --help: "))
    }
}

/// A command registered from outside, as later commands will be: its options, validate() before
/// run(), and a failure's exit code.
@Suite(.hangGuard) struct CommandRegistryTests {
    struct Greet: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "greet", abstract: "Say hello.",
            arguments: [nameArgument.definition], options: [loudFlag.definition, timesOption.definition])
        static let nameArgument = PositionalArgument("name", help: "Who to greet.", isRepeating: true)
        static let loudFlag = FlagOption("loud", help: "Shout.")
        static let timesOption = ValueOption.integer("times", value: "n", in: 0...100, help: "How often (1-3).")

        var names: [String]
        var loud: Bool
        var times: Int

        init(parsing arguments: ParsedArguments) throws(UsageError) {
            names = Self.nameArgument.readAll(from: arguments)
            loud = Self.loudFlag.read(from: arguments)
            times = try Self.timesOption.read(from: arguments) ?? 1
        }

        func validate() throws(UsageError) {
            if times > 3 { throw UsageError("--times must be at most 3", hint: "say it fewer times") }
        }

        func run(context: CommandContext) throws(CommandFailure) {
            if names == ["nobody"] { throw CommandFailure("nobody answered", exitCode: .temporaryFailure) }
            let line = "hello, " + names.joined(separator: " and ")
            for _ in 0..<times { context.standardOutput.write((loud ? line.uppercased() : line) + "\n") }
        }
    }

    var tool: MailSearchTool {
        var registry = CommandRegistry.standard()
        registry.register(Greet.self)
        return MailSearchTool(abstract: "Test tool.", registry: registry)
    }

    @Test func runsWithOptionsAndArguments() async {
        let run = await runTool(["greet", "--times=2", "ann", "--loud", "--", "-bob-"], tool: tool)
        #expect(run.status == .success)
        #expect(run.lines == ["HELLO, ANN AND -BOB-", "HELLO, ANN AND -BOB-"])
    }

    @Test func validateRunsBeforeRun() async {
        let run = await runTool(["greet", "--times", "5", "ann"], tool: tool)
        #expect(run.status == .usageError)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "error: --times must be at most 3; say it fewer times\n")
    }

    @Test func failureExitCodeAndMessage() async {
        let run = await runTool(["greet", "nobody"], tool: tool)
        #expect(run.status == .temporaryFailure)
        #expect(run.status.rawValue == 75)
        #expect(run.standardError == "error: nobody answered\n")
    }

    @Test func listedInTheHelpWithItsOptions() async {
        #expect(await runTool(["--help"], tool: tool).standardOutput.contains("\n  greet <name> ...      Say hello.\n"))
        let help = await runTool(["help", "greet"], tool: tool).standardOutput
        #expect(help.contains("USAGE: mailsearch greet [<options>] <name> ...\n"))
        #expect(help.contains("  --loud                Shout.\n  --times <n>           How often (1-3).\n"))
    }
}
