import FoundationEssentials
import JSONText
import MailSearch

/// Where an account's local index lives: `$XDG_CACHE_HOME/mailsearch/index-<user@host>.sqlite`.
enum IndexLocation {
    static func path(_ settings: AccountSettings, environment: [String: String]) throws(CommandFailure) -> String {
        guard let path = MessageIndex.defaultPath(account: settings.historyKey, environment: environment) else {
            throw CommandFailure("neither XDG_CACHE_HOME nor HOME is set; the local index needs a place to live")
        }
        return path
    }

    /// The index path of the account `options` name, resolved off the cooperative pool.
    static func path(of options: AccountOptions, environment: [String: String]) async throws(CommandFailure) -> String {
        try await BlockingWork.run { () throws(CommandFailure) -> String in
            try path(try AccountSettings.resolve(options, environment: environment), environment: environment)
        }
    }

    static func open(_ path: String) throws(CommandFailure) -> MessageIndex {
        do throws(StoreError) {
            return try MessageIndex(path: path)
        } catch {
            throw CommandFailure(
                error.isBusy ? "another mailsearch holds the local index; try again when it is done" : error.message,
                exitCode: error.isBusy ? .temporaryFailure : .failure)
        }
    }
}

/// `mailsearch sync [--all] [--json]`: the local index of the mailbox (or of every selectable
/// mailbox) brought in step with the server.
public struct SyncCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "sync",
        abstract: "Bring the local index of the mailbox up to date with the server.",
        discussion: """
            The first run indexes every message, newest first, so the newest mail is searchable
            first; later runs fetch only what changed (one round trip when nothing did). The
            index lives in $XDG_CACHE_HOME/mailsearch/ (default ~/.cache), mode 0600, and can
            always be rebuilt from the server. A sync that is killed goes on from where it
            stopped the next time.
            """,
        options: [all.definition, json.definition] + AccountOptions.definitions)

    static let all = FlagOption("all", help: "Every selectable mailbox, not only --mailbox's.")
    static let json = FlagOption("json", help: "Print one JSON object per mailbox.")

    public var all: Bool
    public var json: Bool
    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        all = Self.all.read(from: arguments)
        json = Self.json.read(from: arguments)
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    public func run(context: CommandContext) async throws(CommandFailure) {
        let (all, json) = (all, json)
        try await OpenAccount.with(account, context: context) { (open) throws(CommandFailure) in
            let path = try IndexLocation.path(open.settings, environment: context.environment)
            let index = try await BlockingWork.run { () throws(CommandFailure) in try IndexLocation.open(path) }
            defer { index.close() }
            var names = [open.settings.mailbox]
            if all {
                do throws(MailServiceError) {
                    names = try await open.service.mailboxes().filter { $0.messageCount != nil }.map(\.name)
                } catch {
                    throw Failures.working(error)
                }
            }
            let bar = ProgressBar(output: context.standardError, label: "indexing")
            let summaries: [IndexSync.Summary]
            do throws(MailServiceError) {
                summaries = try await open.service.syncIndex(index, mailboxes: names) { _, done, total in
                    bar.update(done: done, total: total)
                }
            } catch {
                bar.clear()
                throw Failures.working(error)
            }
            bar.finish()
            for summary in summaries {
                if json {
                    var object = JSONObject()
                    object.append("mailbox", .string(summary.mailbox))
                    object.append("messages", .integer(Int64(summary.messages)))
                    object.append("added", .integer(Int64(summary.added)))
                    object.append("changed", .integer(Int64(summary.changed)))
                    object.append("removed", .integer(Int64(summary.removed)))
                    object.append("inStep", .bool(summary.wasInStep))
                    object.append("method", .string(summary.method.rawValue))
                    object.append("seconds", .fraction(Self.seconds(summary.duration)))
                    var bytes: [UInt8] = []
                    JSONWriter.write(.object(object), into: &bytes)
                    bytes.append(UInt8(ascii: "\n"))
                    context.standardOutput.write(bytes)
                } else {
                    let name = TerminalText.sanitized(summary.mailbox)
                    context.standardOutput.write(
                        "\(name): \(summary.messages) messages indexed (\(summary.added) added, "
                            + "\(summary.changed) changed, \(summary.removed) removed) in "
                            + "\(Self.seconds(summary.duration)) s\n")
                }
            }
        }
    }

    /// `duration` in seconds, to the hundredth.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) + Double(attoseconds) / 1e18) * 100).rounded() / 100
    }
}

/// `mailsearch index status [--json]`: what the local index holds, per mailbox; nothing is
/// sent to the server.
public struct IndexStatusCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        name: "index status",
        abstract: "What the local index holds, per mailbox (no connection).",
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
        let path = try await IndexLocation.path(of: account, environment: context.environment)
        guard FileManager.default.fileExists(atPath: path) else {
            context.standardOutput.write(json ? "" : "No local index; run \"mailsearch sync\" to make one.\n")
            return
        }
        let index = try await BlockingWork.run { () throws(CommandFailure) in try IndexLocation.open(path) }
        defer { index.close() }
        let mailboxes: [MessageIndex.Mailbox]
        do throws(StoreError) {
            mailboxes = try await index.mailboxes()
        } catch {
            throw CommandFailure(error.message)
        }
        let bytes = index.bytesOnDisk()
        for mailbox in mailboxes {
            if json {
                var object = JSONObject()
                object.append("mailbox", .string(mailbox.name))
                object.append("messages", .integer(Int64(mailbox.messageCount)))
                object.append("uidValidity", .integer(Int64(mailbox.uidValidity)))
                object.append(
                    "highestModSeq",
                    mailbox.highestModificationSequence.map { .integer(Int64(bitPattern: $0)) } ?? .null)
                object.append("lastSync", mailbox.syncedAt.map { .integer(Int64($0)) } ?? .null)
                object.append("complete", .bool(mailbox.resumeBelow == nil && mailbox.syncedAt != nil))
                var line: [UInt8] = []
                JSONWriter.write(.object(object), into: &line)
                line.append(UInt8(ascii: "\n"))
                context.standardOutput.write(line)
            } else {
                let modseq = mailbox.highestModificationSequence.map { "\($0)" } ?? "none"
                let synced =
                    mailbox.syncedAt.map { Self.age(Int(Date.now.timeIntervalSince1970) - $0) + " ago" } ?? "never"
                let state = mailbox.resumeBelow != nil ? ", first sync not finished" : ""
                context.standardOutput.write(
                    "\(TerminalText.sanitized(mailbox.name)): \(mailbox.messageCount) messages, "
                        + "UIDVALIDITY \(mailbox.uidValidity), HIGHESTMODSEQ \(modseq), last sync \(synced)\(state)\n")
            }
        }
        if !json { context.standardOutput.write("\(path): \(bytes) bytes on disk\n") }
    }

    /// `42 s`, `5 min`, `3 h`, `2 days`.
    static func age(_ seconds: Int) -> String {
        let seconds = max(0, seconds)
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" }
        if seconds < 86400 { return "\(seconds / 3600) h" }
        return "\(seconds / 86400) days"
    }
}

/// `mailsearch index drop [--mailbox NAME]`: deletes the local index (of one mailbox); nothing
/// of the mail stays in the file.
public struct IndexDropCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        name: "index drop",
        abstract: "Delete the local index, or one mailbox's part of it (--mailbox).",
        options: AccountOptions.definitions)

    public var account: AccountOptions

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    public func run(context: CommandContext) async throws(CommandFailure) {
        let path = try await IndexLocation.path(of: account, environment: context.environment)
        guard FileManager.default.fileExists(atPath: path) else {
            context.standardOutput.write("No local index to drop.\n")
            return
        }
        if let mailbox = account.mailbox {
            let index = try await BlockingWork.run { () throws(CommandFailure) in try IndexLocation.open(path) }
            defer { index.close() }
            do throws(StoreError) {
                try await index.drop(mailbox: mailbox)
            } catch {
                throw CommandFailure(error.message)
            }
            context.standardOutput.write("Dropped the local index of \(TerminalText.sanitized(mailbox)).\n")
            return
        }
        try await BlockingWork.run { () throws(CommandFailure) in
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                do {
                    try FileManager.default.removeItem(atPath: path + suffix)
                } catch {
                    throw CommandFailure("cannot remove \(path + suffix): \(error)")
                }
            }
        }
        context.standardOutput.write("Dropped the local index (\(path)).\n")
    }
}
