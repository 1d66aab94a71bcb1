import MailSearch

/// `mailsearch list`: the newest messages of the mailbox, pinned ones first (as the inbox shows
/// them), with progress on a terminal when there are thousands.
public struct ListCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        name: "list",
        abstract: "The newest messages, pinned ones first.",
        discussion: """
            Lists the newest --limit messages of the mailbox (messages marked deleted are left
            out); the pinned ones among them come first, then the rest, newest first.
            """,
        options: [Listing.limitOption, Listing.jsonOption] + AccountOptions.definitions)

    public var limit: Int
    public var json: Bool
    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        limit = try arguments.integer("limit", in: 1...Listing.largestLimit) ?? 50
        json = arguments.flag("json")
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    public func run(context: CommandContext) async throws(CommandFailure) {
        let (limit, json) = (limit, json)
        try await OpenAccount.with(account, context: context) { (open) throws(CommandFailure) in
            let progress = ProgressBar(output: context.standardError, label: "messages")
            let result = try await Listing.collect(limit: limit, service: open.service, progress: progress) {
                (size) throws(MailServiceError) in try await open.service.list(pageSize: size)
            }
            let pinnedFirst = result.emails.filter(\.isPinned) + result.emails.filter { !$0.isPinned }
            Listing.print(
                pinnedFirst, total: result.page.list.total, json: json, empty: "No messages in \(open.mailbox.name).",
                context: context)
            await Listing.rememberPeople(result.emails, settings: open.settings, context: context)
        }
    }
}
