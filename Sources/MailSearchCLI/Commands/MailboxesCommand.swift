import JSONText
import MailSearch

/// `mailsearch mailboxes`: every mailbox of the account with its message and unread counts.
public struct MailboxesCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "mailboxes",
        abstract: "The account's mailboxes with message and unread counts.",
        options: [json.definition] + AccountOptions.definitions)

    static let json = FlagOption("json", help: "Print one JSON object per mailbox.")

    public var json: Bool
    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        json = Self.json.read(from: arguments)
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    public func run(context: CommandContext) async throws(CommandFailure) {
        let json = json
        try await OpenAccount.with(account, context: context) { (open) throws(CommandFailure) in
            let mailboxes: [MailboxSummary]
            do throws(MailServiceError) {
                mailboxes = try await open.service.mailboxes()
            } catch {
                throw Failures.working(error)
            }
            if json {
                var bytes: [UInt8] = []
                for mailbox in mailboxes {
                    var object = JSONObject()
                    object.append("name", .string(mailbox.name))
                    object.append("displayName", .string(mailbox.displayName))
                    object.append("messages", mailbox.messageCount.map { .integer(Int64($0)) } ?? .null)
                    object.append("unread", mailbox.unreadCount.map { .integer(Int64($0)) } ?? .null)
                    object.append("attributes", .array(mailbox.attributes.map { .string($0) }))
                    JSONWriter.write(.object(object), into: &bytes)
                    bytes.append(UInt8(ascii: "\n"))
                }
                context.standardOutput.write(bytes)
                return
            }
            let nameWidth = min(
                40, mailboxes.map { TerminalText.width(of: TerminalText.sanitized($0.displayName)) }.max() ?? 0)
            let countWidth = mailboxes.compactMap { $0.messageCount.map { String($0).count } }.max() ?? 1
            var text = ""
            for mailbox in mailboxes {
                let name = TerminalText.padded(TerminalText.sanitized(mailbox.displayName), to: nameWidth)
                guard let messages = mailbox.messageCount else {
                    text += "\(name)  (not selectable)\n"
                    continue
                }
                let count =
                    String(repeating: " ", count: max(0, countWidth - String(messages).count)) + String(messages)
                text += "\(name)  \(count) \(messages == 1 ? "message " : "messages")"
                if let unread = mailbox.unreadCount, unread > 0 { text += ", \(unread) unread" }
                text += "\n"
            }
            context.standardOutput.write(text)
        }
    }
}
