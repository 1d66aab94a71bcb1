import FoundationEssentials
import MailSearch

/// `mailsearch search <query>`: the search runs on the server (UID SORT or SEARCH), newest
/// first; the query is parsed before connecting (a query that does not parse exits 65 and
/// nothing is sent), and recorded in the history once it was sent.
public struct SearchCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "search",
        abstract: "Search the mailbox on the server, newest first.",
        discussion: """
            The query language of Gmail, with Apple Mail's meaning of a bare word (sender,
            recipients, subject or body): from:alice is:unread, has:attachment after:2024-03-01,
            "quarterly report" OR invoice, -is:read. Several arguments are joined with spaces;
            put -- before a query that starts with -. "mailsearch explain <query>" shows the
            IMAP command a query becomes.
            """,
        usage: "search [<options>] [--] <query> ...",
        arguments: [Self.queryArgument.definition],
        options: [Listing.limit.definition, Listing.json.definition, offline.definition, server.definition]
            + AccountOptions.definitions)

    static let offline = FlagOption(
        "offline", help: "Answer from the local index without connecting (run \"mailsearch sync\" first).")
    static let server = FlagOption("server", help: "Ask the server's search (the default today).")

    /// `<query> ...`: the words of the query.
    static let queryArgument = PositionalArgument(
        "query", help: "The search, in the query language.", isOptional: true, isRepeating: true)

    public var query: String
    public var limit: Int
    public var json: Bool
    public var offline: Bool
    public var server: Bool
    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        query = Self.queryArgument.readAll(from: arguments).joined(separator: " ")
        limit = try Listing.limit.read(from: arguments) ?? 50
        json = Listing.json.read(from: arguments)
        offline = Self.offline.read(from: arguments)
        server = Self.server.read(from: arguments)
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) {
        try account.validate()
        if offline && server { throw UsageError("--offline and --server contradict each other", hint: "give one") }
    }

    /// `--offline` reads the index alone: OpenSSL is not set up.
    var connects: Bool { !offline }

    public func run(context: CommandContext) async throws(CommandFailure) {
        let parsed: ParsedQuery
        do {
            parsed = try QueryParser.parse(query)
        } catch {
            throw CommandFailure(error.message, exitCode: .queryError)
        }
        for hint in parsed.hints { context.standardError.write("note: \(hint.message)\n") }
        if offline {
            try await IndexedSearch.offline(
                parsed.query, text: query, account: account, limit: limit, json: json, context: context)
            return
        }
        let (limit, query, json, server) = (limit, query, json, server)
        // The history (an fsync) is saved while the messages are fetched, and the people index
        // while the session logs out: neither waits for the other.
        // The people file is read while the server works; it is updated after the output.
        let snapshot = Task { await Listing.peopleSnapshot(context: context) }
        let people = try await OpenAccount.with(account, context: context) {
            (open) throws(CommandFailure) -> Task<Void, Never> in
            if !server,
                let first = try await IndexedSearch.online(
                    parsed.query, open: open, limit: limit, json: json, query: query, context: context)
            {
                let settings = open.settings
                await Self.record(query, settings, context)
                let known = await snapshot.value
                return Task {
                    await Listing.rememberPeople(first, settings: settings, context: context, startingFrom: known)
                }
            }
            let found: (list: MessageList, warnings: [String])
            do throws(MailServiceError) {
                found = try await open.service.searching(parsed.query)
            } catch {
                let failure = Failures.working(error)
                if failure.exitCode == .temporaryFailure { await Self.record(query, open.settings, context) }
                throw failure
            }
            let settings = open.settings
            let recording = Task { await Self.record(query, settings, context) }
            for warning in found.warnings {
                context.standardError.write("warning: \(TerminalText.sanitized("\(warning)"))\n")
            }
            let first: [Email]
            do throws(CommandFailure) {
                first = try await Listing.stream(
                    found.list, limit: limit, json: json,
                    empty: query.allSatisfy(\.isWhitespace)
                        ? "No messages in \(open.mailbox.name)."
                        : "No messages match \"\(SearchHistory.normalized(query))\".", service: open.service,
                    mailbox: open.mailbox.name,
                    context: context)
            } catch {
                await recording.value
                throw error
            }
            await recording.value
            let known = await snapshot.value
            return Task {
                await Listing.rememberPeople(first, settings: settings, context: context, startingFrom: known)
            }
        }
        await people.value
    }

    /// Records a search that parsed and was sent (never the empty query); a history that
    /// cannot be saved is a warning.
    static func record(_ query: String, _ settings: AccountSettings, _ context: CommandContext) async {
        let directory = SearchHistory.defaultDirectory(environment: context.environment)
        let key = settings.historyKey
        do throws(CommandFailure) {
            let warning = try await BlockingWork.run { () throws(CommandFailure) -> String? in
                do throws(SearchHistoryError) {
                    var history = try SearchHistory(account: key, directory: directory)
                    try history.record(query)
                    return history.warning?.message
                } catch {
                    throw CommandFailure(error.message)
                }
            }
            if let warning { context.standardError.write("warning: \(TerminalText.sanitized("\(warning)"))\n") }
        } catch {
            context.standardError.write("warning: \(TerminalText.sanitized(error.message))\n")
        }
    }
}
