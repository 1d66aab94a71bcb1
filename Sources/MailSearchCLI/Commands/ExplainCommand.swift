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
        arguments: [
            ArgumentDefinition(
                name: "query", help: "The search, in the query language.", isOptional: true, isRepeating: true)
        ],
        options: [
            .option(
                "capabilities", value: "list",
                help: "The server's capabilities (\"IMAP4rev1 LITERAL+ SORT ...\"); default IMAP4rev1."),
            .option("today", value: "date", help: "The day relative dates count from (YYYY-MM-DD)."),
            .option("pin-flag", value: "flag", help: "The pin flag: \\Flagged (default) or a keyword ($Pinned)."),
        ])

    public var query: String
    var capabilities: Set<Capability>
    var today: IMAPDate?
    var pinKeyword: Flag?

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        query = arguments.arguments("query").joined(separator: " ")
        if let list = arguments.value("capabilities") {
            let names = list.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "(" || $0 == ")" })
            guard !names.isEmpty else {
                throw UsageError("--capabilities is empty", hint: "list them like \"IMAP4rev1 LITERAL+ SORT\"")
            }
            capabilities = Set(names.map { Capability(String($0)) })
        } else {
            capabilities = [.imap4rev1]
        }
        if let text = arguments.value("today") {
            let parts = text.split(separator: "-").map { Int($0) }
            guard parts.count == 3, parts.allSatisfy({ $0 != nil }),
                let day = IMAPDate(year: parts[0]!, month: parts[1]!, day: parts[2]!)
            else {
                throw UsageError("--today expects a date like 2024-03-15, not \"\(text)\"")
            }
            today = day
        }
        pinKeyword = try AccountSettings.pinKeyword(arguments.value("pin-flag"))
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
