import MailSearch

/// `mailsearch read|unread|pin|unpin <uid>...`: one command, parameterised by the change it
/// makes. It finds which of the UIDs exist (one UID SEARCH per mailbox named, see
/// ``MessageArguments``), changes the flag with `UID STORE +FLAGS`/`-FLAGS`
/// (UNCHANGEDSINCE with CONDSTORE) in each message's own mailbox, and reports what the server
/// refused.
public struct FlagCommand<Change: FlagChangeKind>: AsyncParsableCommand, ConnectingCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: Change.change.name, abstract: Change.change.abstract, arguments: [uid.definition],
            options: AccountOptions.definitions)
    }

    static var uid: PositionalArgument {
        PositionalArgument(
            "uid",
            help:
                "UIDs or UID sets, as search and list show them (12 15:20 or 12,15:20); MAILBOX:UIDS for another mailbox's (Archive:32 or Archive:32,40:45; the mailbox as \"mailsearch mailboxes\" shows it, and may contain ':').",
            isRepeating: true)
    }

    var messages: MessageArguments
    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        messages = try MessageArguments(arguments: Self.uid.readAll(from: arguments))
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    public func run(context: CommandContext) async throws(CommandFailure) {
        let (change, messages) = (Change.change, messages)
        try await OpenAccount.with(account, context: context) { (open) throws(CommandFailure) in
            let openName = open.mailbox.name
            let (found, missing) = try await messages.find(in: open)
            guard !found.isEmpty else {
                throw CommandFailure(
                    "there is no message with \(MessageArguments.describe(missing, open: openName)); \"mailsearch list\" shows the UIDs"
                )
            }
            let result: FlagChangeResult
            do throws(MailServiceError) {
                result = try await change.apply(to: found, on: open.service)
            } catch {
                throw Failures.working(error)
            }
            let changed = found.filter { result.refused[$0] == nil }
            if !changed.isEmpty {
                let count = changed.count == 1 ? "1 message" : "\(changed.count) messages"
                context.standardOutput.write(
                    change.report(count: count, uids: MessageArguments.labels(changed, open: openName)) + "\n")
            }
            let refused = result.refused.sorted { ($0.key.mailbox, $0.key.uid) < ($1.key.mailbox, $1.key.uid) }
            if let (id, reason) = refused.first {
                let others = refused.count > 1 ? " (and \(refused.count - 1) more)" : ""
                throw CommandFailure(
                    "UID \(MessageArguments.label(id, open: openName))\(others) was not changed: \(reason)",
                    exitCode: .temporaryFailure)
            }
            if !missing.isEmpty {
                throw CommandFailure(
                    "there is no message with \(MessageArguments.describe(missing, open: openName)); the others were changed"
                )
            }
        }
    }
}

/// The change a ``FlagCommand`` makes: which flag, set or cleared, and how the command is
/// named and reports.
public enum FlagChange: Sendable, CaseIterable {
    /// `read`: sets `\Seen`.
    case read
    /// `unread`: clears `\Seen`.
    case unread
    /// `pin`: sets the pin flag (`\Flagged`, or the configured keyword).
    case pin
    /// `unpin`: clears the pin flag.
    case unpin

    /// The command's name.
    var name: String {
        switch self {
        case .read: return "read"
        case .unread: return "unread"
        case .pin: return "pin"
        case .unpin: return "unpin"
        }
    }

    /// The command's abstract.
    var abstract: String {
        switch self {
        case .read: return "Mark messages read (sets \\Seen)."
        case .unread: return "Mark messages unread (clears \\Seen)."
        case .pin: return "Pin messages (sets the pin flag, \\Flagged by default)."
        case .unpin: return "Unpin messages (clears the pin flag)."
        }
    }

    /// The line printed for the messages changed (`Marked 2 messages read: 12,15`).
    func report(count: String, uids: String) -> String {
        switch self {
        case .read: return "Marked \(count) read: \(uids)"
        case .unread: return "Marked \(count) unread: \(uids)"
        case .pin: return "Pinned \(count): \(uids)"
        case .unpin: return "Unpinned \(count): \(uids)"
        }
    }

    /// Makes the change on the server.
    func apply(to ids: [Email.ID], on service: IMAPMailService) async throws(MailServiceError) -> FlagChangeResult {
        switch self {
        case .read: return try await service.setRead(true, for: ids)
        case .unread: return try await service.setRead(false, for: ids)
        case .pin: return try await service.setPinned(true, for: ids)
        case .unpin: return try await service.setPinned(false, for: ids)
        }
    }
}

/// Names one ``FlagChange`` as a type, so each change is a command type of its own for the
/// registry (`FlagCommand<FlagChange.Pin>`).
public protocol FlagChangeKind: Sendable {
    /// The change.
    static var change: FlagChange { get }
}

extension FlagChange {
    /// `mailsearch read`.
    public enum Read: FlagChangeKind { public static let change = FlagChange.read }
    /// `mailsearch unread`.
    public enum Unread: FlagChangeKind { public static let change = FlagChange.unread }
    /// `mailsearch pin`.
    public enum Pin: FlagChangeKind { public static let change = FlagChange.pin }
    /// `mailsearch unpin`.
    public enum Unpin: FlagChangeKind { public static let change = FlagChange.unpin }
}
