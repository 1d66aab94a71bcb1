import JSONText
import MailSearch

/// `mailsearch history [--clear]`: the account's recent searches, newest first, from
/// `$XDG_STATE_HOME/mailsearch/history.json`; nothing is sent to the server.
public struct HistoryCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        name: "history",
        abstract: "Recent searches, newest first (--clear forgets them).",
        discussion: """
            Searches are remembered per account (the demo mailbox is an account of its own),
            at most 20, in $XDG_STATE_HOME/mailsearch/history.json (default ~/.local/state).
            """,
        options: [clear.definition, json.definition] + AccountOptions.definitions)

    static let clear = FlagOption("clear", help: "Forget this account's searches.")
    static let json = FlagOption("json", help: "Print each search as a JSON string, one per line.")

    public var clear: Bool
    public var json: Bool
    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        clear = Self.clear.read(from: arguments)
        json = Self.json.read(from: arguments)
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) {
        try account.validate()
        if clear && json { throw UsageError("--clear prints nothing to format as JSON", hint: "leave out --json") }
    }

    public func run(context: CommandContext) throws(CommandFailure) {
        let settings = try AccountSettings.resolve(account, environment: context.environment)
        let directory = SearchHistory.defaultDirectory(environment: context.environment)
        var history: SearchHistory
        do {
            history = try SearchHistory(account: settings.historyKey, directory: directory)
            if let warning = history.warning {
                context.standardError.write("warning: \(TerminalText.sanitized(warning.message))\n")
            }
            if clear {
                let count = history.entries.count
                try history.clear()
                context.standardOutput.write("Forgot \(count == 1 ? "1 search" : "\(count) searches").\n")
                return
            }
        } catch {
            throw CommandFailure(error.message)
        }
        var bytes: [UInt8] = []
        for entry in history.entries {
            if json {
                JSONWriter.writeString(entry, into: &bytes)
            } else {
                bytes += Array(TerminalText.sanitized(entry).utf8)
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        context.standardOutput.write(bytes)
    }
}

/// `mailsearch suggest <prefix>`: completions for a partly typed query, one per line: recent
/// searches that start with it, operator completions, then people seen in the account's mail
/// after `from:`/`to:`. Local only.
public struct SuggestCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        name: "suggest",
        abstract: "Completions for a partly typed query, one per line.",
        discussion: """
            At most 10: recent searches starting with the prefix, operator completions
            (fr -> from:, is: -> is:unread ...), and after from: or to: the addresses and names
            seen in this account's mail (by search and list), most frequent first.
            """,
        usage: "suggest [<options>] [--] <prefix> ...",
        arguments: [prefixArgument.definition], options: AccountOptions.definitions)

    static let prefixArgument = PositionalArgument(
        "prefix", help: "What has been typed so far.", isOptional: true, isRepeating: true)

    public var prefix: String
    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        prefix = Self.prefixArgument.readAll(from: arguments).joined(separator: " ")
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    public func run(context: CommandContext) throws(CommandFailure) {
        var history: [String] = []
        var people = PeopleIndex()
        if let settings = try AccountSettings.resolveIfNamed(account, environment: context.environment) {
            let directory = SearchHistory.defaultDirectory(environment: context.environment)
            do {
                history = try SearchHistory(account: settings.historyKey, directory: directory).entries
            } catch {
                throw CommandFailure(error.message)
            }
            people = PeopleStore(directory: directory).index(account: settings.historyKey)
        }
        let suggestions = Suggestions.suggest(for: prefix, history: history, people: people)
        context.standardOutput.write(suggestions.map { TerminalText.sanitized($0.text) + "\n" }.joined())
    }
}
