import SystemLayer
import Transport

/// The `mailsearch` command line: finds the command the words name, parses its options, and runs
/// it, turning every problem into one `error: ...` line on standard error and an exit code.
///
/// ```swift
/// let status = MailSearchTool.standard().main(arguments: ["debug", "parse", "capture.txt"],
///                                              context: .standard())
/// ```
public struct MailSearchTool {
    /// The name the help and messages use.
    public var name: String
    /// The OVERVIEW line of the tool's help.
    public var abstract: String
    /// The commands it runs.
    public var registry: CommandRegistry

    public init(name: String = "mailsearch", abstract: String, registry: CommandRegistry) {
        self.name = name
        self.abstract = abstract
        self.registry = registry
    }

    /// The tool with the commands that work today.
    public static func standard() -> MailSearchTool {
        MailSearchTool(
            abstract: "Apple Mail's search for a real IMAP mailbox, from a terminal.", registry: .standard())
    }

    /// Runs the command line `arguments` (without the program name) and ends the process with
    /// its exit code (``end(_:)``) on the thread the command finished on. Returning to the
    /// program's top level first would hop to the main actor, whose queue a dispatch thread
    /// started for the purpose serves: a thread's start between the last output and the exit.
    public func run(arguments: [String], context: CommandContext) async -> Never {
        Self.end(await main(arguments: arguments, context: context))
    }

    /// Runs the command line `arguments` (without the program name) and returns the exit code.
    ///
    /// Commands that only compute (`explain`, `debug parse`) run on a thread of their own, so a
    /// read of standard input never blocks the cooperative pool; commands that talk to a server
    /// are awaited.
    public func main(arguments: [String], context: CommandContext) async -> ExitCode {
        let prepared: Prepared
        do {
            prepared = try prepare(arguments, context: context)
        } catch {
            let hint = error.hint ?? "run \"\(name) help\" for usage"
            context.standardError.write("error: \(TerminalText.sanitized("\(error.message); \(hint)"))\n")
            return .usageError
        }
        switch prepared {
        case .done(let status):
            return status
        case .run(let instance):
            // OpenSSL's set-up (a few milliseconds) runs beside reading settings and secrets.
            if Self.connects(instance) { OpenSSLLibrary.beginWarmUp() }
            do {
                if let command = instance as? any AsyncParsableCommand {
                    try await command.run(context: context)
                } else {
                    try await BlockingWork.run { () throws(CommandFailure) in try instance.run(context: context) }
                }
                return .success
            } catch {
                context.standardError.write("error: \(Self.oneLine(error.message))\n")
                return error.exitCode
            }
        }
    }

    /// Whether `command` opens the account (a ``ConnectingCommand``).
    static func connects(_ command: any ParsableCommand.Type) -> Bool {
        command is any ConnectingCommand.Type
    }

    /// Whether this parsed command opens the account: a ``ConnectingCommand`` that connects
    /// this time (not `search --offline`, which only reads the index).
    static func connects(_ instance: any ParsableCommand) -> Bool {
        (instance as? any ConnectingCommand)?.connects ?? false
    }

    /// Ends the process with `status` at once (`_exit`, not `exit`).
    ///
    /// Nothing is left to flush: the tool writes its output with write(2) as it goes (no stdio
    /// buffer), and a command saves and syncs its files before it returns. What `exit` would add
    /// is the C++ and Foundation runtimes' static destructors, about a millisecond of a short
    /// command, and the `atexit` handler that restores a full-screen terminal, which this does
    /// itself.
    public static func end(_ status: ExitCode) -> Never {
        RawTerminal.restoreActiveTerminal(matching: nil)
        exitImmediately(status.rawValue)
    }

    /// `message` as one line a terminal only shows: line breaks become one space, and every
    /// other control character, bidirectional mark or separator (a server's NO text can carry
    /// `ESC ] 0 ;` title changes or OSC 52 clipboard writes) becomes a space too.
    static func oneLine(_ message: String) -> String {
        TerminalText.sanitized(
            message.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).joined(separator: " "))
    }

    private var formatter: HelpFormatter { HelpFormatter(toolName: name) }

    /// What the command line asks for: help already printed (or a group's usage error), or a
    /// command ready to run.
    private enum Prepared {
        case done(ExitCode)
        case run(any ParsableCommand)
    }

    private func prepare(_ arguments: [String], context: CommandContext) throws(UsageError) -> Prepared {
        let (leading, consumed) = try leadingOptions(arguments, context: context)
        guard let leading else { return .done(.success) }
        let words = Array(arguments.dropFirst(consumed))
        guard let first = words.first else {
            throw UsageError("no command given", hint: "run \"\(name) help\" for the list of commands")
        }
        if first == "help" { return .done(try help(Array(words.dropFirst()), context: context)) }

        switch try registry.resolve(words, toolName: name) {
        case nil:
            throw UsageError("no command given", hint: "run \"\(name) help\" for the list of commands")
        case .group(let path, let wordCount):
            let rest = words.dropFirst(wordCount)
            if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
                context.standardOutput.write(formatter.groupHelp(path, registry: registry))
                return .done(.success)
            }
            let group = path.joined(separator: " ")
            let choices = registry.children(of: path).map(\.word).joined(separator: ", ")
            throw UsageError(
                "\"\(name) \(group)\" needs a subcommand (\(choices))",
                hint: "run \"\(name) help \(group)\" for what each does")
        case .command(let command, let wordCount):
            return try prepare(command, Array(words.dropFirst(wordCount)), leading: leading, context: context)
        }
    }

    /// The account options before the command (`--demo`, `--host H`), and how many words they
    /// took; nil options when `--help` was among them (the tool's help is printed).
    private func leadingOptions(
        _ arguments: [String], context: CommandContext
    ) throws(UsageError) -> (ParsedArguments?, Int) {
        var parsed = ParsedArguments()
        var position = 0
        while position < arguments.count {
            let word = arguments[position]
            guard word.hasPrefix("-"), word != "-", word != "--" else { break }
            position += 1
            if word == "-h" || word == "--help" {
                context.standardOutput.write(formatter.toolHelp(abstract: abstract, registry: registry))
                return (nil, position)
            }
            let body = word.hasPrefix("--") ? word.dropFirst(2) : word.dropFirst()
            let optionName = String(body.prefix { $0 != "=" })
            let inlineValue = body.count > optionName.count ? String(body.dropFirst(optionName.count + 1)) : nil
            guard word.hasPrefix("--"), let definition = registry.globalOptions.first(where: { $0.name == optionName })
            else {
                let suggestion = nearestCandidate(to: optionName, in: registry.globalOptions.map(\.name) + ["help"])
                throw UsageError(
                    "unknown option \"\(word)\"",
                    hint: suggestion.map { "did you mean \"--\($0)\"?" } ?? "run \"\(name) help\" for usage")
            }
            switch definition.kind {
            case .flag:
                if inlineValue != nil { throw UsageError("\(definition.synopsis) takes no value (in \"\(word)\")") }
                parsed.flagCounts[definition.name, default: 0] += 1
            case .value:
                if let inlineValue {
                    parsed.optionValues[definition.name, default: []].append(inlineValue)
                } else if position < arguments.count, !arguments[position].hasPrefix("-") || arguments[position] == "-"
                {
                    parsed.optionValues[definition.name, default: []].append(arguments[position])
                    position += 1
                } else {
                    throw UsageError("missing value for \(definition.synopsis)")
                }
            }
        }
        return (parsed, position)
    }

    private func prepare(
        _ command: any ParsableCommand.Type, _ words: [String], leading: ParsedArguments, context: CommandContext
    ) throws(UsageError) -> Prepared {
        let configuration = command.configuration
        let commandName = "\(name) \(configuration.name)"
        do {
            let outcome = try ArgumentParser.parse(
                words, options: configuration.options, arguments: configuration.arguments, commandName: commandName)
            guard case .parsed(var parsed) = outcome else {
                context.standardOutput.write(formatter.commandHelp(configuration))
                return .done(.success)
            }
            // Options before the command come first, so the same option after it wins.
            for (option, values) in leading.optionValues {
                parsed.optionValues[option] = values + (parsed.optionValues[option] ?? [])
            }
            for (flag, count) in leading.flagCounts { parsed.flagCounts[flag, default: 0] += count }
            let instance = try command.init(parsing: parsed)
            try instance.validate()
            return .run(instance)
        } catch {
            throw UsageError(
                error.message,
                hint: error.hint ?? "usage: \(name) \(configuration.usageLine) (\"\(commandName) --help\" explains)")
        }
    }

    /// `help`, `help <group>`, `help <command>`.
    private func help(_ words: [String], context: CommandContext) throws(UsageError) -> ExitCode {
        let outcome = try ArgumentParser.parse(
            words, options: [], arguments: HelpCommand.configuration.arguments, commandName: "\(name) help")
        guard case .parsed(let parsed) = outcome else {
            context.standardOutput.write(formatter.commandHelp(HelpCommand.configuration))
            return .success
        }
        let words = HelpCommand.commandArgument.readAll(from: parsed)
        let path = words.flatMap { $0.split(separator: " ").map(String.init) }
        if path.isEmpty {
            context.standardOutput.write(formatter.toolHelp(abstract: abstract, registry: registry))
            return .success
        }
        if path == ["help"] {
            context.standardOutput.write(formatter.commandHelp(HelpCommand.configuration))
            return .success
        }
        switch try registry.resolve(path, toolName: name) {
        case .command(let command, let wordCount) where wordCount == path.count:
            context.standardOutput.write(formatter.commandHelp(command.configuration))
        case .group(let groupPath, _):
            context.standardOutput.write(formatter.groupHelp(groupPath, registry: registry))
        case .command, nil:
            throw UsageError(
                "unknown command \"\(path.joined(separator: " "))\"",
                hint: "run \"\(name) help\" for the list of commands")
        }
        return .success
    }
}
