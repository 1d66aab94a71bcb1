import IMAPClient
import IMAPCore
import JSONText
import MailSearch

/// `mailsearch watch`: stays connected (IDLE, or NOOP polling where the server has no IDLE)
/// and prints each change as it happens: new mail, expunges, flags changed by other clients. A
/// dropped connection is re-established (and said so); Ctrl-C logs out and exits 0.
public struct WatchCommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "watch",
        abstract: "Stay connected (IDLE) and print each change as it happens, until Ctrl-C.",
        discussion: """
            Prints one line per change: "new: <row>", "expunged: UID n", "changed: UID n is
            read, pinned (flags)", and the connection's state ("connection: ..."). With --json,
            one object per change with an "event" key. The first line says what is watched.
            A lost connection is tried again for as long as watch runs ("connection: Offline:
            retrying every 30 s" while the server cannot be reached, "connection: reconnected"
            when it is back); a refused login or certificate ends it.
            """,
        options: [json.definition, OpenAccount.retryEvery.definition] + AccountOptions.definitions)

    static let json = FlagOption("json", help: "Print one JSON object per change.")

    public var json: Bool
    public var account: AccountOptions
    /// How the connection is re-established (--retry-every).
    var reconnects: MailboxConnection.ReconnectPolicy

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        json = Self.json.read(from: arguments)
        reconnects = try OpenAccount.longLivedReconnects(arguments)
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    private enum Outcome: Sendable {
        case interrupted
        case ended
        case failed(CommandFailure)
    }

    public func run(context: CommandContext) async throws(CommandFailure) {
        let signals = TerminationSignals()
        let sources = signals.startCatching()
        defer { TerminationSignals.stopCatching(sources) }
        let json = json
        try await OpenAccount.with(account, context: context, reconnectPolicy: reconnects) {
            (open) throws(CommandFailure) in
            let events = open.service.events()
            let count: Int
            do throws(MailServiceError) {
                // The first listing gives the session its UID map and starts listening.
                let page = try await open.service.list(pageSize: 1)
                count = page.list.total
            } catch {
                throw Failures.working(error)
            }
            // The mailbox's local index, where it has one, follows the changes watched; each
            // catch-up is told (listened to before the first, which following starts).
            let catchUps = open.service.indexUpdates()
            let index = try await open.followIndex(environment: context.environment)
            let printer = EventPrinter(
                json: json, rows: MessageRows.forStandardOutput(context), pinFlag: open.mailbox.pinFlag,
                mailbox: open.mailbox.name, output: context.standardOutput)
            printer.started(host: open.settings.host, count: count)
            let outcome = await withTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    await signals.wait()
                    return .interrupted
                }
                if index != nil {
                    group.addTask {
                        for await update in catchUps { printer.print(update) }
                        // Only the end of the watch ends the catch-ups: wait for the others.
                        await signals.wait()
                        return .interrupted
                    }
                }
                group.addTask {
                    for await event in events {
                        if let failure = printer.print(event) { return .failed(failure) }
                    }
                    return .ended
                }
                let first = await group.next() ?? .ended
                group.cancelAll()
                return first
            }
            await open.stopFollowing(index)
            switch outcome {
            case .interrupted: return
            case .ended:
                if signals.hasFired { return }
                throw CommandFailure("the server ended the session", exitCode: .temporaryFailure)
            case .failed(let failure): throw failure
            }
        }
    }
}

/// Writes `watch`'s lines.
struct EventPrinter: Sendable {
    let json: Bool
    let rows: MessageRows
    let pinFlag: Flag
    let mailbox: String
    let output: any OutputSink

    func started(host: String, count: Int) {
        if json {
            emit(["event": "watching", "mailbox": .string(mailbox), "messages": .integer(Int64(count))])
        } else {
            output.write(
                "Watching \(TerminalText.sanitized(mailbox)) on \(host) (\(count) messages); press Ctrl-C to stop.\n")
        }
    }

    /// Prints `event`; returns the failure that ends the watch, if it is one.
    func print(_ event: MailServiceEvent) -> CommandFailure? {
        switch event {
        case .arrived(let emails):
            for email in emails.reversed() {
                if json {
                    emit(["event": "arrived", "message": .object(EmailJSON.object(email))])
                } else {
                    output.write("new: " + rows.row(email, uidWidth: 1) + "\n")
                }
            }
        case .expunged(let ids):
            for id in ids {
                if json {
                    emit(["event": "expunged", "uid": .number(id.uid), "mailbox": .string(id.mailbox)])
                } else {
                    output.write("expunged: UID \(id.uid)\n")
                }
            }
        case .flagsChanged(let id, let flags):
            let read = flags.contains(.seen)
            let pinned = flags.contains(pinFlag)
            if json {
                emit([
                    "event": "flags", "uid": .number(id.uid), "mailbox": .string(id.mailbox), "read": .bool(read),
                    "pinned": .bool(pinned), "flags": .array(flags.map { .string($0.description) }),
                ])
            } else {
                let list = flags.map(\.description).joined(separator: " ")
                output.write(
                    "changed: UID \(id.uid) is \(read ? "read" : "unread"), \(pinned ? "pinned" : "not pinned") (\(list))\n"
                )
            }
        case .reloadNeeded(let reason):
            if json {
                emit(["event": "reload", "reason": .string(reason)])
            } else {
                output.write("reload: \(TerminalText.sanitized(reason))\n")
            }
        case .connectionLost(let reason):
            if json {
                emit(["event": "connectionLost", "reason": .string(reason)])
            } else {
                output.write("connection: \(TerminalText.sanitized(reason))\n")
            }
        case .connectionRestored:
            if json { emit(["event": "connectionRestored"]) } else { output.write("connection: reconnected\n") }
        case .alert(let text):
            let clean = TerminalText.sanitized(text)
            if json { emit(["event": "alert", "text": .string(text)]) } else { output.write("alert: \(clean)\n") }
        case .failed(let error):
            return Failures.working(error)
        }
        return nil
    }

    /// Prints a catch-up of the followed index: `index: in step, 280 messages (1 added, 0
    /// changed, 0 removed)`, or `index: not caught up: <reason>`.
    func print(_ update: IndexUpdate) {
        switch update {
        case .caughtUp(let summary):
            if json {
                emit([
                    "event": "indexed", "mailbox": .string(summary.mailbox),
                    "messages": .integer(Int64(summary.messages)), "added": .integer(Int64(summary.added)),
                    "changed": .integer(Int64(summary.changed)), "removed": .integer(Int64(summary.removed)),
                ])
            } else {
                output.write(
                    "index: in step, \(summary.messages) messages (\(summary.added) added, \(summary.changed) changed, "
                        + "\(summary.removed) removed)\n")
            }
        case .failed(let reason):
            if json {
                emit(["event": "indexFailed", "reason": .string(reason)])
            } else {
                output.write("index: not caught up: \(TerminalText.sanitized(reason))\n")
            }
        }
    }

    private func emit(_ object: JSONObject) {
        var bytes: [UInt8] = []
        JSONWriter.write(.object(object), into: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        output.write(bytes)
    }
}
