import MailSearch

/// What `read`, `unread`, `pin` and `unpin` share: find which of the UIDs exist (one UID
/// SEARCH), change the flag with `UID STORE +FLAGS.SILENT`/`-FLAGS.SILENT` (UNCHANGEDSINCE with
/// CONDSTORE), and report what the server refused.
enum FlagChange {
    enum Kind: Sendable {
        case read, unread, pin, unpin
    }

    static let uidArgument = ArgumentDefinition(
        name: "uid", help: "UIDs or UID sets, as search and list show them (12 15:20 or 12,15:20).", isRepeating: true)

    static func run(
        _ kind: Kind, _ uids: UIDSet, account: AccountOptions, context: CommandContext
    ) async throws(CommandFailure) {
        try await OpenAccount.with(account, context: context) { (open) throws(CommandFailure) in
            let found: [Email.ID]
            let result: FlagChangeResult
            do {
                let existing = try await open.service.search(
                    try QueryParser.parse("uid:\(uids.text)").query, pageSize: 1)
                found = existing.list.ids
                guard !found.isEmpty else {
                    throw CommandFailure(
                        "there is no message with UID \(uids.text) in \(open.mailbox.name); \"mailsearch list\" shows the UIDs"
                    )
                }
                switch kind {
                case .read: result = try await open.service.setRead(true, for: found)
                case .unread: result = try await open.service.setRead(false, for: found)
                case .pin: result = try await open.service.setPinned(true, for: found)
                case .unpin: result = try await open.service.setPinned(false, for: found)
                }
            } catch let error as MailServiceError {
                throw Failures.working(error)
            } catch let error as QueryError {
                throw CommandFailure(error.message, exitCode: .usageError)
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("\(error)")
            }
            let changed = found.filter { result.refused[$0] == nil }.map(\.uid)
            if !changed.isEmpty {
                let count = changed.count == 1 ? "1 message" : "\(changed.count) messages"
                let line: String
                switch kind {
                case .read: line = "Marked \(count) read: \(compactUIDs(changed))"
                case .unread: line = "Marked \(count) unread: \(compactUIDs(changed))"
                case .pin: line = "Pinned \(count): \(compactUIDs(changed))"
                case .unpin: line = "Unpinned \(count): \(compactUIDs(changed))"
                }
                context.standardOutput.write(line + "\n")
            }
            let foundUIDs = Set(found.map(\.uid))
            let missing = uids.singles.filter { !foundUIDs.contains($0) }
            if let (id, reason) = result.refused.sorted(by: { $0.key.uid < $1.key.uid }).first {
                let others = result.refused.count > 1 ? " (and \(result.refused.count - 1) more)" : ""
                throw CommandFailure("UID \(id.uid)\(others) was not changed: \(reason)", exitCode: .temporaryFailure)
            }
            if !missing.isEmpty {
                throw CommandFailure(
                    "there is no message with UID \(compactUIDs(missing)) in \(open.mailbox.name); the others were changed"
                )
            }
        }
    }
}

/// `mailsearch read <uid>...`: sets `\Seen`.
public struct ReadCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "read", abstract: "Mark messages read (sets \\Seen).", arguments: [FlagChange.uidArgument],
        options: AccountOptions.definitions)
    var uids: UIDSet
    public var account: AccountOptions
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        uids = try UIDSet(arguments: arguments.arguments("uid"))
        account = try AccountOptions(parsing: arguments)
    }
    public func validate() throws(UsageError) { try account.validate() }
    public func run(context: CommandContext) async throws(CommandFailure) {
        try await FlagChange.run(.read, uids, account: account, context: context)
    }
}

/// `mailsearch unread <uid>...`: clears `\Seen`.
public struct UnreadCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "unread", abstract: "Mark messages unread (clears \\Seen).", arguments: [FlagChange.uidArgument],
        options: AccountOptions.definitions)
    var uids: UIDSet
    public var account: AccountOptions
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        uids = try UIDSet(arguments: arguments.arguments("uid"))
        account = try AccountOptions(parsing: arguments)
    }
    public func validate() throws(UsageError) { try account.validate() }
    public func run(context: CommandContext) async throws(CommandFailure) {
        try await FlagChange.run(.unread, uids, account: account, context: context)
    }
}

/// `mailsearch pin <uid>...`: sets the pin flag (`\Flagged`, or the configured keyword).
public struct PinCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "pin", abstract: "Pin messages (sets the pin flag, \\Flagged by default).",
        arguments: [FlagChange.uidArgument], options: AccountOptions.definitions)
    var uids: UIDSet
    public var account: AccountOptions
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        uids = try UIDSet(arguments: arguments.arguments("uid"))
        account = try AccountOptions(parsing: arguments)
    }
    public func validate() throws(UsageError) { try account.validate() }
    public func run(context: CommandContext) async throws(CommandFailure) {
        try await FlagChange.run(.pin, uids, account: account, context: context)
    }
}

/// `mailsearch unpin <uid>...`: clears the pin flag.
public struct UnpinCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "unpin", abstract: "Unpin messages (clears the pin flag).", arguments: [FlagChange.uidArgument],
        options: AccountOptions.definitions)
    var uids: UIDSet
    public var account: AccountOptions
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        uids = try UIDSet(arguments: arguments.arguments("uid"))
        account = try AccountOptions(parsing: arguments)
    }
    public func validate() throws(UsageError) { try account.validate() }
    public func run(context: CommandContext) async throws(CommandFailure) {
        try await FlagChange.run(.unpin, uids, account: account, context: context)
    }
}
