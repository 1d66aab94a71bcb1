import FoundationEssentials
import MailSearch
import Synchronization

/// What `search` and `list` share: fetching up to `--limit` messages as a stream (with progress
/// on a terminal), printing them as rows or JSON lines as they arrive, and remembering the
/// people in them.
enum Listing {
    /// The largest `--limit`.
    static let largestLimit = 1_000_000
    /// `--limit <n>`.
    static let limit = ValueOption.integer(
        "limit", short: "n", value: "n", in: 1...largestLimit, help: "Show at most this many messages (default 50).")
    /// `--json`.
    static let json = FlagOption("json", help: "Print one JSON object per message (JSON Lines).")
    /// Fetches the first `limit` messages of `list` and prints each batch as it arrives: JSON
    /// lines, or rows whose UID column is as wide as the widest UID shown (so the rows line up
    /// without holding them all; a message of another mailbox than `mailbox` shows
    /// `Archive:32`). `empty` is the line for no messages (rows only). Progress is
    /// drawn on standard error when it is a terminal (erased before rows are printed to the same
    /// terminal). Returns the first 500 messages printed, for the people index.
    static func stream(
        _ list: MessageList, limit: Int, json: Bool, empty: String, service: IMAPMailService, mailbox: String,
        context: CommandContext
    ) async throws(CommandFailure) -> [Email] {
        let count = min(limit, list.ids.count)
        let progress = ProgressBar(output: context.standardError, label: "messages")
        let rows = MessageRows.forStandardOutput(context, openMailbox: mailbox)
        let printer = ListingPrinter(
            json: json, rows: rows, uidWidth: rows.uidWidth(list.ids.prefix(count)), output: context.standardOutput)
        let clearsProgress = context.standardOutput.isTerminal
        do {
            try await service.emails(of: list, offset: 0, count: count) { emails in
                if clearsProgress { progress.clear() }
                let printed = printer.print(emails)
                progress.update(done: printed, total: count)
            }
        } catch {
            progress.finish()
            throw Failures.working(error)
        }
        progress.finish()
        let (printed, first) = printer.result
        if !json {
            if printed == 0 {
                context.standardOutput.write(empty + "\n")
            } else if context.standardOutput.isTerminal && list.total > printed {
                context.standardOutput.write(
                    "\(printed) of \(list.total) shown; --limit \(min(list.total, largestLimit)) shows them all.\n")
            }
        }
        return first
    }

    /// The people file as it is now, read off the cooperative pool: a command starts this (as
    /// `async let`) before it connects, so the file is decoded while the server works.
    static func peopleSnapshot(context: CommandContext) async -> PeopleStore.Snapshot? {
        let directory = SearchHistory.defaultDirectory(environment: context.environment)
        return try? await BlockingWork.run { () throws(CommandFailure) -> PeopleStore.Snapshot in
            PeopleStore(directory: directory).snapshot()
        }
    }

    /// Counts the people of `emails` for suggestions, starting from `snapshot` when the file
    /// has not changed since; a failure to save is a warning, not an error.
    static func rememberPeople(
        _ emails: [Email], settings: AccountSettings, context: CommandContext,
        startingFrom snapshot: PeopleStore.Snapshot? = nil
    ) async {
        let directory = SearchHistory.defaultDirectory(environment: context.environment)
        let key = settings.historyKey
        let shown = Array(emails.prefix(500))
        do {
            try await BlockingWork.run { () throws(CommandFailure) in
                try PeopleStore(directory: directory).record(shown, account: key, startingFrom: snapshot)
            }
        } catch {
            context.standardError.write("warning: \(TerminalText.sanitized(error.message))\n")
        }
    }
}

/// Prints the batches of a streamed listing and counts them.
final class ListingPrinter: Sendable {
    private struct State {
        var printed = 0
        var first: [Email] = []
    }

    private let json: Bool
    private let rows: MessageRows
    private let uidWidth: Int
    private let output: any OutputSink
    private let state = Mutex(State())

    init(json: Bool, rows: MessageRows, uidWidth: Int, output: any OutputSink) {
        self.json = json
        self.rows = rows
        self.uidWidth = uidWidth
        self.output = output
    }

    /// Prints `emails`; returns how many have been printed in all.
    func print(_ emails: [Email]) -> Int {
        guard !emails.isEmpty else { return state.withLock { $0.printed } }
        if json {
            output.write(EmailJSON.lines(emails))
        } else {
            output.write(emails.map { rows.row($0, uidWidth: uidWidth) + "\n" }.joined())
        }
        return state.withLock { state in
            state.printed += emails.count
            if state.first.count < 500 { state.first += emails.prefix(500 - state.first.count) }
            return state.printed
        }
    }

    /// How many were printed, and the first 500 of them.
    var result: (printed: Int, first: [Email]) { state.withLock { ($0.printed, $0.first) } }
}
