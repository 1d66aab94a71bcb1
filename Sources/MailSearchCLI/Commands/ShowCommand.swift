import JSONText
import MailMIME
import MailSearch

/// `mailsearch show <uid>` (or `show Archive:42`): the headers and text body of one message, fetched with
/// `BODY.PEEK[]`, so showing a message never marks it read.
public struct ShowCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "show",
        abstract: "Headers, text body and attachment list of one message; never marks it read.",
        arguments: [uidArgument.definition], options: [json.definition] + AccountOptions.definitions)

    static let uidArgument = PositionalArgument(
        "uid",
        help:
            "The message's UID, as search and list show it: 42, or Archive:42 for a message of another mailbox (the mailbox as \"mailsearch mailboxes\" shows it)."
    )
    static let json = FlagOption("json", help: "Print the message as one JSON object, with its text and attachments.")

    var message: MessageArguments
    public var json: Bool
    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        message = try MessageArguments(arguments: [try Self.uidArgument.read(from: arguments)], single: true)
        json = Self.json.read(from: arguments)
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    public func run(context: CommandContext) async throws(CommandFailure) {
        let (message, json) = (message, json)
        try await OpenAccount.with(account, context: context) { (open) throws(CommandFailure) in
            let (found, missing) = try await message.find(in: open)
            let content: MessageContent?
            if let id = found.first {
                do throws(MailServiceError) {
                    content = try await open.service.message(id)
                } catch {
                    throw Failures.working(error)
                }
            } else {
                content = nil
            }
            guard let content else {
                let what =
                    found.first.map { "UID \(MessageArguments.label($0, open: open.mailbox.name))" }
                    ?? MessageArguments.describe(missing, open: open.mailbox.name)
                throw CommandFailure("there is no message with \(what); \"mailsearch list\" shows the UIDs")
            }
            if json {
                var object = EmailJSON.object(content.email)
                object.append("text", .string(content.text))
                object.append("attachments", .array(content.attachments.map(Self.json)))
                var bytes: [UInt8] = []
                JSONWriter.write(.object(object), into: &bytes)
                context.standardOutput.write(bytes + [UInt8(ascii: "\n")])
                return
            }
            context.standardOutput.write(Self.text(of: content))
        }
    }

    /// `{"name":...,"type":...,"size":...,"sizeIsApproximate":...}`; the name is null when
    /// there is none.
    static func json(_ attachment: MessageAttachment) -> JSONValue {
        .object([
            "name": .string(attachment.name), "type": .string(attachment.mimeType),
            "size": .integer(Int64(attachment.size)), "sizeIsApproximate": .bool(attachment.isSizeApproximate),
        ])
    }

    /// The message for a person: the header fields, a blank line, the text (control characters
    /// taken out), the attachments when there are any, and a note when it was too large to
    /// fetch whole; ends with a newline. The terminal UI's reader shows the same.
    ///
    /// ```
    /// Attachments:
    ///   report.pdf  application/pdf  48.2 KB
    /// ```
    static func text(of content: MessageContent) -> String {
        var text = ""
        for field in content.headers {
            text += "\(field.name): \(TerminalText.sanitized(field.value))\n"
        }
        text += "\n" + TerminalText.sanitized(content.text, keepingLines: true)
        if !text.hasSuffix("\n") { text += "\n" }
        if !content.attachments.isEmpty {
            if !content.text.isEmpty { text += "\n" }
            text += "Attachments:\n"
            for attachment in content.attachments {
                let name = attachment.name.map { TerminalText.sanitized($0) } ?? "(no name)"
                text += "  \(name)  \(TerminalText.sanitized(attachment.mimeType))  \(attachment.sizeDescription)\n"
            }
        }
        if content.isTruncated {
            text +=
                "[the message is larger than \(IMAPMailService.largestShownMessage >> 20) MiB; the rest is not shown]\n"
        }
        return text
    }
}
