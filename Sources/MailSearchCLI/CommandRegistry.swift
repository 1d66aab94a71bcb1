/// The commands a tool knows, looked up by the words after the tool's name. Commands with
/// several words (`debug parse`) form groups (`debug`) that have their own help.
///
/// Adding a command is one line: `registry.register(SearchCommand.self)`; parsing, `--help`,
/// `help <command>` and the command list follow from its `configuration`.
public struct CommandRegistry {
    /// A group of commands that share a first word, with its help text.
    public struct Group: Hashable, Sendable {
        /// The words of the group (`debug`).
        public var name: String
        public var abstract: String

        public init(name: String, abstract: String) {
            self.name = name
            self.abstract = abstract
        }

        public var path: [String] { name.split(separator: " ").map(String.init) }
    }

    /// A registered command with its name's words, worked out once: a command's
    /// `configuration` builds every option's definition, and finding a command among twenty
    /// by each one's configuration cost a whole search about a millisecond.
    private struct Entry {
        var command: any ParsableCommand.Type
        var path: [String]
    }

    private var entries: [Entry] = []

    /// The registered commands, in the order the help lists them.
    public var commands: [any ParsableCommand.Type] { entries.map(\.command) }
    /// The groups that have an abstract.
    public private(set) var groups: [Group] = []
    /// Options accepted before any command (`mailsearch --demo search ...`): the account options.
    public var globalOptions: [OptionDefinition] = []

    /// An empty registry.
    public init() {}

    /// Every command of docs/cli.md, in the order the help lists them, with the account
    /// options accepted before any command.
    public static func standard() -> CommandRegistry {
        var registry = CommandRegistry()
        registry.globalOptions = AccountOptions.definitions
        registry.register(SearchCommand.self)
        registry.register(ListCommand.self)
        registry.register(ShowCommand.self)
        registry.register(FlagCommand<FlagChange.Read>.self)
        registry.register(FlagCommand<FlagChange.Unread>.self)
        registry.register(FlagCommand<FlagChange.Pin>.self)
        registry.register(FlagCommand<FlagChange.Unpin>.self)
        registry.register(HistoryCommand.self)
        registry.register(SuggestCommand.self)
        registry.register(ExplainCommand.self)
        registry.register(WatchCommand.self)
        registry.register(TUICommand.self)
        registry.register(MailboxesCommand.self)
        registry.register(SyncCommand.self)
        registry.register(group: Group(name: "index", abstract: "The local index: what it holds, or drop it."))
        registry.register(IndexStatusCommand.self)
        registry.register(IndexDropCommand.self)
        registry.register(group: Group(name: "debug", abstract: "Tools for looking at IMAP traffic without a server."))
        registry.register(DebugParseCommand.self)
        return registry
    }

    /// Adds `command`. Its name must not be taken, and must not be `help`.
    public mutating func register(_ command: any ParsableCommand.Type) {
        let path = command.configuration.path
        precondition(!path.isEmpty && path != ["help"], "a command needs a name other than help")
        precondition(!entries.contains { $0.path == path }, "command \(path.joined(separator: " ")) registered twice")
        entries.append(Entry(command: command, path: path))
    }

    /// Gives the group `group.name` its help text.
    public mutating func register(group: Group) {
        groups.removeAll { $0.path == group.path }
        groups.append(group)
    }

    /// What a list of command words names.
    public enum Resolution {
        /// A command, named by the first `wordCount` words.
        case command(any ParsableCommand.Type, wordCount: Int)
        /// A group, named by the first `wordCount` words, without one of its commands after it.
        case group([String], wordCount: Int)
    }

    /// The command or group that `words` start with. Stops at the first option (`-x`).
    ///
    /// - Throws: `UsageError` when a word names no command (`unknown command "serch"`), with a
    ///   suggestion when one is close.
    public func resolve(_ words: [String], toolName: String) throws(UsageError) -> Resolution? {
        var path: [String] = []
        for word in words {
            if word.hasPrefix("-") && word != "-" { break }
            let candidate = path + [word]
            if let entry = entries.first(where: { $0.path == candidate }) {
                return .command(entry.command, wordCount: candidate.count)
            }
            if isGroup(candidate) {
                path = candidate
                continue
            }
            let choices = children(of: path).map(\.word)
            let named = (path + [word]).joined(separator: " ")
            let helpCommand = (["\(toolName) help"] + path).joined(separator: " ")
            let hint =
                nearestCandidate(to: word, in: choices).map {
                    "did you mean \"\((path + [$0]).joined(separator: " "))\"?"
                }
                ?? "run \"\(helpCommand)\" for the list of commands"
            throw UsageError("unknown command \"\(named)\"", hint: hint)
        }
        return path.isEmpty ? nil : .group(path, wordCount: path.count)
    }

    /// Whether `path` is the beginning of a longer command's name.
    public func isGroup(_ path: [String]) -> Bool {
        entries.contains { $0.path.count > path.count && Array($0.path.prefix(path.count)) == path }
    }

    /// The abstract of the group `path`.
    public func abstract(ofGroup path: [String]) -> String? {
        groups.first { $0.path == path }?.abstract
    }

    /// The next words after `path`: one entry per command or subgroup, in registration order.
    public func children(of path: [String]) -> [(word: String, command: (any ParsableCommand.Type)?)] {
        var result: [(word: String, command: (any ParsableCommand.Type)?)] = []
        for entry in entries {
            let (command, commandPath) = (entry.command, entry.path)
            guard commandPath.count > path.count, Array(commandPath.prefix(path.count)) == path else { continue }
            let word = commandPath[path.count]
            if result.contains(where: { $0.word == word }) { continue }
            result.append((word, commandPath.count == path.count + 1 ? command : nil))
        }
        return result
    }
}
