import FoundationEssentials
import IMAPClient
import IMAPCore
import MailSearch

/// `mailsearch explain <query>`: the exact IMAP command line(s) the query becomes, without
/// connecting. By default for an IMAP4rev1 server with nothing more; `--capabilities` names
/// another server's capabilities (as its CAPABILITY response lists them).
///
/// ```
/// $ mailsearch explain from:alice is:unread
/// UID SEARCH FROM "alice" UNSEEN UNDELETED
/// $ mailsearch explain --capabilities "IMAP4rev1 LITERAL+" subject:パリ
/// UID SEARCH CHARSET UTF-8 SUBJECT {6+}
/// パリ UNDELETED
/// $ mailsearch explain --capabilities "IMAP4rev1 SORT" from:bob
/// UID SORT (REVERSE ARRIVAL) UTF-8 FROM "bob" UNDELETED
/// # if the server refuses the charset (BADCHARSET), instead:
/// UID SORT (REVERSE ARRIVAL) US-ASCII FROM "bob" UNDELETED
/// ```
///
/// The lines are those of the `SearchPlan` the session runs (`IMAPSession.search`), encoded as
/// the session encodes them.
public struct ExplainCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        name: "explain",
        abstract: "The IMAP command(s) a query becomes, without connecting.",
        discussion: """
            Prints each line the client would send (without the tag). A literal's bytes start a
            line of their own after the {n} that announces them. What is sent instead when the
            server refuses the charset follows a line that starts with #. Relative dates count
            from today in this machine's time zone, or from --today.
            """,
        usage: "explain [<options>] [--] <query> ...",
        arguments: [SearchCommand.queryArgument.definition],
        options: [capabilitiesOption.definition, todayOption.definition, pinFlagOption.definition])

    static let capabilitiesOption = ValueOption<Set<Capability>>(
        "capabilities", value: "list",
        help: "The server's capabilities (\"IMAP4rev1 LITERAL+ SORT ...\"); default IMAP4rev1."
    ) { (list) throws(UsageError) in
        let names = list.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "(" || $0 == ")" })
        guard !names.isEmpty else {
            throw UsageError("--capabilities is empty", hint: "list them like \"IMAP4rev1 LITERAL+ SORT\"")
        }
        return Set(names.map { Capability(String($0)) })
    }
    static let todayOption = ValueOption<IMAPDate>(
        "today", value: "date", help: "The day relative dates count from (YYYY-MM-DD)."
    ) { (text) throws(UsageError) in
        let parts = text.split(separator: "-").map { Int($0) }
        guard parts.count == 3, parts.allSatisfy({ $0 != nil }),
            let day = IMAPDate(year: parts[0]!, month: parts[1]!, day: parts[2]!)
        else {
            throw UsageError("--today expects a date like 2024-03-15, not \"\(text)\"")
        }
        return day
    }
    static let pinFlagOption = ValueOption<String>(
        "pin-flag", value: "flag", help: "The pin flag: \\Flagged (default) or a keyword ($Pinned).")

    public var query: String
    var capabilities: Set<Capability>
    var today: IMAPDate?
    var pinKeyword: Flag?

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        query = SearchCommand.queryArgument.readAll(from: arguments).joined(separator: " ")
        capabilities = try Self.capabilitiesOption.read(from: arguments) ?? [.imap4rev1]
        today = try Self.todayOption.read(from: arguments)
        pinKeyword = try AccountSettings.pinKeyword(Self.pinFlagOption.read(from: arguments))
    }

    /// The compiler's view of a server with `capabilities`: what the session would ENABLE there
    /// counts as enabled.
    var context: SearchContext {
        SearchContext(
            capabilities: capabilities, enabledCapabilities: Set(IMAPSession.enabledAtLogin(offered: capabilities)),
            permanentFlags: pinKeyword == nil ? nil : [.seen, .flagged, .wildcard],
            flagPolicy: FlagPolicy(pinKeyword: pinKeyword),
            today: today ?? SearchContext.day(of: Date(), in: .current))
    }

    public func run(context: CommandContext) throws(CommandFailure) {
        let lines: [String]
        do {
            lines = try explain(query, context: self.context)
        } catch {
            throw CommandFailure(error.message, exitCode: .queryError)
        }
        context.standardOutput.write(lines.map { $0 + "\n" }.joined())
    }
}
