/// Renders help in swift-argument-parser's layout: OVERVIEW, USAGE, then the sections that
/// apply (COMMANDS, SUBCOMMANDS, ARGUMENTS), then OPTIONS.
struct HelpFormatter {
    /// The tool's name (`mailsearch`).
    var toolName: String

    static let helpOption = FlagOption("help", short: "h", help: "Show help information.").definition

    /// The tool's help: every command, one row each.
    func toolHelp(abstract: String, registry: CommandRegistry) -> String {
        var rows = registry.commands.map { command -> (String, String) in
            let configuration = command.configuration
            let label = ([configuration.name] + configuration.arguments.map(\.synopsis)).joined(separator: " ")
            return (label, configuration.abstract)
        }
        rows.append(("help [<command>]", HelpCommand.configuration.abstract))
        var sections = [
            "OVERVIEW: \(abstract)",
            "USAGE: \(toolName) [<account options>] <command> [<options>]",
            "COMMANDS:\n" + table(rows) + "\n\n  See \"\(toolName) help <command>\" for the help of one command.",
        ]
        if !registry.globalOptions.isEmpty {
            sections.append(
                "ACCOUNT OPTIONS (before the command, or after it):\n"
                    + table(registry.globalOptions.map { ($0.helpLabel, $0.help) }))
        }
        sections.append("OPTIONS:\n" + table([(Self.helpOption.helpLabel, Self.helpOption.help)]))
        return render(sections)
    }

    /// The help of a group: its subcommands.
    func groupHelp(_ path: [String], registry: CommandRegistry) -> String {
        let name = path.joined(separator: " ")
        let rows = registry.children(of: path).map { child -> (String, String) in
            guard let command = child.command else {
                return (child.word, registry.abstract(ofGroup: path + [child.word]) ?? "")
            }
            let configuration = command.configuration
            return (
                ([child.word] + configuration.arguments.map(\.synopsis)).joined(separator: " "), configuration.abstract
            )
        }
        return render([
            "OVERVIEW: \(registry.abstract(ofGroup: path) ?? "The \(name) commands.")",
            "USAGE: \(toolName) \(name) <subcommand>",
            "SUBCOMMANDS:\n" + table(rows)
                + "\n\n  See \"\(toolName) help \(name) <subcommand>\" for the help of one subcommand.",
            "OPTIONS:\n" + table([(Self.helpOption.helpLabel, Self.helpOption.help)]),
        ])
    }

    /// The help of one command.
    func commandHelp(_ configuration: CommandConfiguration) -> String {
        var sections = ["OVERVIEW: \(configuration.abstract)"]
        if let discussion = configuration.discussion { sections.append(discussion) }
        sections.append("USAGE: \(toolName) \(configuration.usageLine)")
        if !configuration.arguments.isEmpty {
            sections.append("ARGUMENTS:\n" + table(configuration.arguments.map { ($0.synopsis, $0.help) }))
        }
        let options = configuration.options + [Self.helpOption]
        sections.append("OPTIONS:\n" + table(options.map { ($0.helpLabel, $0.help) }))
        return render(sections)
    }

    private func render(_ sections: [String]) -> String {
        sections.joined(separator: "\n\n") + "\n"
    }

    /// Two columns: the label indented by 2 and padded to 24, then the text. A longer label puts
    /// its text on the next line.
    private func table(_ rows: [(String, String)]) -> String {
        let width = 24
        return rows.map { label, text in
            let indented = "  " + label
            if text.isEmpty { return indented }
            if indented.count + 2 <= width {
                return indented + String(repeating: " ", count: width - indented.count) + text
            }
            return indented + "\n" + String(repeating: " ", count: width) + text
        }.joined(separator: "\n")
    }
}

/// `help [<command>]`: the help of the tool, of a group, or of one command. The tool handles it
/// itself (it needs the registry); this type carries its help text.
enum HelpCommand {
    static let configuration = CommandConfiguration(
        name: "help",
        abstract: "Show the help of the tool or of one command.",
        arguments: [commandArgument.definition])

    static let commandArgument = PositionalArgument(
        "command", help: "The command to explain (\"debug parse\").", isOptional: true, isRepeating: true)
}
