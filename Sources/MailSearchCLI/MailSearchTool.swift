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

    /// Runs the command line `arguments` (without the program name) and returns the exit code.
    public func main(arguments: [String], context: CommandContext) -> ExitCode {
        do {
            return try dispatch(arguments, context: context)
        } catch {
            context.standardError.write("error: \(error.message); \(error.hint ?? "run \"\(name) help\" for usage")\n")
            return .usageError
        }
    }

    private var formatter: HelpFormatter { HelpFormatter(toolName: name) }

    private func dispatch(_ arguments: [String], context: CommandContext) throws(UsageError) -> ExitCode {
        // Options before the command: only the help exists so far; account options go here.
        let leadingOptions = arguments.prefix { $0.hasPrefix("-") && $0 != "-" }
        for word in leadingOptions {
            if word == "-h" || word == "--help" {
                context.standardOutput.write(formatter.toolHelp(abstract: abstract, registry: registry))
                return .success
            }
            let suggestion = nearestCandidate(to: String(word.drop { $0 == "-" }), in: ["help"])
            throw UsageError(
                "unknown option \"\(word)\"",
                hint: suggestion.map { "did you mean \"--\($0)\"?" } ?? "run \"\(name) help\" for usage")
        }
        let words = Array(arguments.dropFirst(leadingOptions.count))
        guard let first = words.first else {
            throw UsageError("no command given", hint: "run \"\(name) help\" for the list of commands")
        }
        if first == "help" { return try help(Array(words.dropFirst()), context: context) }

        switch try registry.resolve(words, toolName: name) {
        case nil:
            throw UsageError("no command given", hint: "run \"\(name) help\" for the list of commands")
        case .group(let path, let wordCount):
            let rest = words.dropFirst(wordCount)
            if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
                context.standardOutput.write(formatter.groupHelp(path, registry: registry))
                return .success
            }
            let group = path.joined(separator: " ")
            let choices = registry.children(of: path).map(\.word).joined(separator: ", ")
            throw UsageError(
                "\"\(name) \(group)\" needs a subcommand (\(choices))",
                hint: "run \"\(name) help \(group)\" for what each does")
        case .command(let command, let wordCount):
            return try run(command, Array(words.dropFirst(wordCount)), context: context)
        }
    }

    private func run(
        _ command: any ParsableCommand.Type, _ words: [String], context: CommandContext
    ) throws(UsageError) -> ExitCode {
        let configuration = command.configuration
        let commandName = "\(name) \(configuration.name)"
        let instance: any ParsableCommand
        do {
            let outcome = try ArgumentParser.parse(
                words, options: configuration.options, arguments: configuration.arguments, commandName: commandName)
            guard case .parsed(let parsed) = outcome else {
                context.standardOutput.write(formatter.commandHelp(configuration))
                return .success
            }
            instance = try command.init(parsing: parsed)
            try instance.validate()
        } catch {
            throw UsageError(
                error.message,
                hint: error.hint ?? "usage: \(name) \(configuration.usageLine) (\"\(commandName) --help\" explains)")
        }
        do {
            try instance.run(context: context)
            return .success
        } catch {
            context.standardError.write("error: \(error.message)\n")
            return error.exitCode
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
        let path = parsed.arguments("command").flatMap { $0.split(separator: " ").map(String.init) }
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
