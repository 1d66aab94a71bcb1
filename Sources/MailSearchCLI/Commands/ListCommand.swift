import MailSearch

/// `mailsearch list`: the mailbox as the inbox lists it (every pinned message first, then the
/// rest, newest first), the first --limit rows, with progress on a terminal when there are
/// thousands.
public struct ListCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "list",
        abstract: "The inbox's first rows: every pinned message, then the newest.",
        discussion: """
            Lists the first --limit rows of the mailbox as the inbox shows it (messages marked
            deleted are left out): every pinned message of the mailbox first, then the rest,
            newest first.
            """,
        options: [Listing.limit.definition, Listing.json.definition] + AccountOptions.definitions)

    public var limit: Int
    public var json: Bool
    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        limit = try Listing.limit.read(from: arguments) ?? 50
        json = Listing.json.read(from: arguments)
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    public func run(context: CommandContext) async throws(CommandFailure) {
        let (limit, json) = (limit, json)
        // The people index is saved while the session logs out.
        // The people file is read while the server works; it is updated after the output.
        let snapshot = Task { await Listing.peopleSnapshot(context: context) }
        let people = try await OpenAccount.with(account, context: context) {
            (open) throws(CommandFailure) -> Task<Void, Never> in
            let shown: MessageList
            do throws(MailServiceError) {
                // The listing says which are pinned (one UID SEARCH of the pin flag in the same
                // flight), so the rows stream in the inbox's order.
                let list = try await open.service.listing()
                let pinned = Set(list.pinned)
                shown = MessageList(
                    ids: Array((list.pinned + list.ids.lazy.filter { !pinned.contains($0) }).prefix(limit)),
                    total: list.total, hidesDeleted: list.hidesDeleted)
            } catch {
                throw Failures.working(error)
            }
            let first = try await Listing.stream(
                shown, limit: limit, json: json, empty: "No messages in \(open.mailbox.name).", service: open.service,
                mailbox: open.mailbox.name,
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
