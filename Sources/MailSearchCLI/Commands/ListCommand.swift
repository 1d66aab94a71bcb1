import MailSearch

/// `mailsearch list`: the newest messages of the mailbox, pinned ones first (as the inbox shows
/// them), with progress on a terminal when there are thousands.
public struct ListCommand: AsyncParsableCommand, ConnectingCommand {
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

    /// `is:pinned`: the messages carrying the mailbox's pin flag.
    static let pinnedQuery = Query.term(.flag(.pinned))

    public func run(context: CommandContext) async throws(CommandFailure) {
        let (limit, json) = (limit, json)
        // The people index is saved while the session logs out.
        // The people file is read while the server works; it is updated after the output.
        let snapshot = Task { await Listing.peopleSnapshot(context: context) }
        let people = try await OpenAccount.with(account, context: context) {
            (open) throws(CommandFailure) -> Task<Void, Never> in
            let shown: MessageList
            do throws(MailServiceError) {
                let list = try await open.service.listing()
                // The pinned ones among the newest `limit` come first: the server says which
                // they are (one UID SEARCH of the pin flag), so the listing can stream.
                let pinned = Set(try await open.service.searching(Self.pinnedQuery).list.ids)
                let newest = list.ids.prefix(limit)
                shown = MessageList(
                    ids: newest.filter(pinned.contains) + newest.filter { !pinned.contains($0) }, total: list.total,
                    hidesDeleted: list.hidesDeleted)
            } catch {
                throw Failures.working(error)
            }
            let first = try await Listing.stream(
                shown, limit: limit, json: json, empty: "No messages in \(open.mailbox.name).", service: open.service,
                context: context)
            let settings = open.settings
            let known = await snapshot.value
            return Task {
                await Listing.rememberPeople(first, settings: settings, context: context, startingFrom: known)
            }
        }
        await people.value
    }
}
