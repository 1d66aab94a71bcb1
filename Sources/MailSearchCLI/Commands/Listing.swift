import Foundation
import MailSearch

/// What `search` and `list` share: fetching up to `--limit` messages in pages (with progress on
/// a terminal), printing them as rows or JSON lines, and remembering the people in them.
enum Listing {
    static let limitOption = OptionDefinition.option(
        "limit", short: "n", value: "n", help: "Show at most this many messages (default 50).")
    static let jsonOption = OptionDefinition.flag("json", help: "Print one JSON object per message (JSON Lines).")
    /// The largest `--limit`.
    static let largestLimit = 1_000_000
    /// How many messages one page fetches when progress is shown.
    static let pageSize = 1000

    /// The first page from `first(pageSize)`, then further pages of its list until `limit`
    /// messages are in hand. With a progress bar that can draw (standard error is a terminal),
    /// the pages are fetched one by one and counted; otherwise in one go.
    static func collect(
        limit: Int, service: IMAPMailService, progress: ProgressBar,
        first: (Int) async throws(MailServiceError) -> EmailPage
    ) async throws(CommandFailure) -> (emails: [Email], page: EmailPage) {
        do {
            guard progress.isEnabled, limit > pageSize else {
                let page = try await first(limit)
                return (page.emails, page)
            }
            let page = try await first(pageSize)
            var emails = page.emails
            let wanted = min(limit, page.list.ids.count)
            var offset = pageSize
            progress.update(done: min(offset, wanted), total: wanted)
            while offset < wanted {
                let next = try await service.page(
                    of: page.list, offset: offset, pageSize: min(pageSize, wanted - offset))
                emails += next.emails
                offset += pageSize
                progress.update(done: min(offset, wanted), total: wanted)
            }
            progress.finish()
            return (emails, page)
        } catch {
            progress.finish()
            throw Failures.working(error)
        }
    }

    /// Prints `emails` as JSON lines or rows; `empty` is the line for no messages (rows only).
    static func print(
        _ emails: [Email], total: Int, json: Bool, empty: String, context: CommandContext
    ) {
        if json {
            context.standardOutput.write(EmailJSON.lines(emails))
            return
        }
        guard !emails.isEmpty else {
            context.standardOutput.write(empty + "\n")
            return
        }
        let rows = MessageRows.forStandardOutput(context)
        var text = rows.render(emails)
        if context.standardOutput.isTerminal && total > emails.count {
            text += "\(emails.count) of \(total) shown; --limit \(min(total, largestLimit)) shows them all.\n"
        }
        context.standardOutput.write(text)
    }

    /// Counts the people of `emails` for suggestions; a failure to save is a warning, not an error.
    static func rememberPeople(_ emails: [Email], settings: AccountSettings, context: CommandContext) async {
        let directory = SearchHistory.defaultDirectory(environment: context.environment)
        let key = settings.historyKey
        let shown = Array(emails.prefix(500))
        do {
            try await BlockingWork.run { () throws(CommandFailure) in
                try PeopleStore(directory: directory).record(shown, account: key)
            }
        } catch {
            context.standardError.write("warning: \(error.message)\n")
        }
    }
}
