import FoundationEssentials
import IMAPCore
import MailSearch

/// Searches answered from the local index: `search --offline` (no connection, no password), and
/// `search` on a mailbox that has an index (after a catch-up sync, with the server's compiled
/// query). Rows print as the server's search prints them, newest first.
enum IndexedSearch {
    /// The index's answer: the matching UIDs, or why the server must answer.
    enum Outcome {
        case uids([UInt32])
        case server(String)
    }

    static func reading<Value>(_ body: () async throws(StoreError) -> Value) async throws(CommandFailure) -> Value {
        do throws(StoreError) {
            return try await body()
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// The index of `settings`' account when it has `mailbox`; nil without one.
    static func index(
        _ settings: AccountSettings, mailbox: String, environment: [String: String]
    ) async throws(CommandFailure) -> (MessageIndex, MessageIndex.Mailbox)? {
        let path = try IndexLocation.path(settings, environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let index = try await BlockingWork.run { () throws(CommandFailure) in try IndexLocation.open(path) }
        guard let indexed = try await reading({ () throws(StoreError) in try await index.mailbox(mailbox) }) else {
            index.close()
            return nil
        }
        return (index, indexed)
    }

    /// Every match (ascending), or with `newest` only the newest that many (newest first): a
    /// person at a terminal is told how many matched in all; a program reading the output is
    /// not, and gets its rows without the older matches being read.
    static func answer(
        _ keys: [SearchKey], in mailbox: String, index: MessageIndex, now: Date, serverMatchesWords: Bool,
        newest: Int?
    ) async throws(CommandFailure) -> Outcome {
        let seconds = Int(now.timeIntervalSince1970)
        let answer = try await reading { () throws(StoreError) in
            if let newest {
                try await index.newest(
                    newest, matching: keys, in: mailbox, now: seconds, serverMatchesWords: serverMatchesWords)
            } else {
                try await index.search(keys, in: mailbox, now: seconds, serverMatchesWords: serverMatchesWords)
            }
        }
        switch answer {
        case .uids(let uids): return .uids(uids)
        case .serverDecides(let reason): return .server(reason)
        case .notIndexed: return .server("\(mailbox) has no local index")
        }
    }

    /// Whether the output says how many matched in all ("50 of 1816 shown"): for a person at a
    /// terminal only.
    static func countsAll(json: Bool, _ context: CommandContext) -> Bool {
        !json && context.standardOutput.isTerminal
    }

    /// Prints the newest `limit` of `uids` as the server's search prints them; returns them.
    @discardableResult
    static func print(
        _ uids: [UInt32], of mailbox: String, index: MessageIndex, pinFlag: Flag, limit: Int, json: Bool,
        query: String, context: CommandContext
    ) async throws(CommandFailure) -> [Email] {
        // `newestFirst` is cheap on what `newest` already ordered (its own order).
        let ordered = try await reading { () throws(StoreError) in try await index.newestFirst(uids, in: mailbox) }
        let newest = Array(ordered.prefix(limit))
        let emails = try await reading { () throws(StoreError) in
            try await index.emails(newest, in: mailbox, pinFlag: pinFlag)
        }
        let printer = ListingPrinter(
            json: json, rows: MessageRows.forStandardOutput(context),
            uidWidth: newest.map { String($0).count }.max() ?? 1, output: context.standardOutput)
        let printed = printer.print(emails)
        if !json {
            if printed == 0 {
                context.standardOutput.write("No messages match \"\(SearchHistory.normalized(query))\".\n")
            } else if countsAll(json: json, context) && uids.count > printed {
                context.standardOutput.write("\(printed) of \(uids.count) shown.\n")
            }
        }
        return emails
    }

    /// `search` on a mailbox that has an index: the index is caught up with the server (one
    /// EXAMINE when nothing changed, over a session of its own), then answers the query compiled
    /// for this server; nil when the mailbox has no index or only the server can answer.
    static func online(
        _ query: Query, open: OpenAccount, limit: Int, json: Bool, query text: String, context: CommandContext
    ) async throws(CommandFailure) -> [Email]? {
        let searchContext: SearchContext
        let compiled: CompiledSearch
        do throws(MailServiceError) {
            searchContext = try await open.service.searchContext()
        } catch {
            throw Failures.working(error)
        }
        do {
            compiled = try QueryCompiler.compile(query, context: searchContext)
        } catch {
            throw CommandFailure(error.message, exitCode: .queryError)
        }
        guard case .current = compiled.scope, compiled.warnings.isEmpty else { return nil }
        let mailbox = open.settings.mailbox
        guard let (index, _) = try await Self.index(open.settings, mailbox: mailbox, environment: context.environment)
        else { return nil }
        defer { index.close() }
        do throws(MailServiceError) {
            _ = try await open.service.syncIndex(index, mailboxes: [mailbox])
        } catch {
            throw Failures.working(error)
        }
        let outcome = try await answer(
            compiled.programKeys, in: mailbox, index: index, now: Date(), serverMatchesWords: searchContext.isGmail,
            newest: countsAll(json: json, context) ? nil : limit)
        guard case .uids(let uids) = outcome else { return nil }
        return try await print(
            uids, of: mailbox, index: index, pinFlag: searchContext.pinFlag.flag, limit: limit, json: json,
            query: text, context: context)
    }

    /// `search --offline`. The query compiles as for a plain IMAP4rev1 server (the server's
    /// capabilities are not known offline).
    static func offline(
        _ query: Query, text: String, account: AccountOptions, limit: Int, json: Bool, context: CommandContext
    ) async throws(CommandFailure) {
        let environment = context.environment
        let settings = try await BlockingWork.run { () throws(CommandFailure) -> AccountSettings in
            try AccountSettings.resolve(account, environment: environment)
        }
        let now = Date()
        let compiled: CompiledSearch
        do {
            compiled = try QueryCompiler.compile(
                query,
                context: SearchContext(
                    capabilities: [.imap4rev1], mailboxFlags: [.answered, .flagged, .deleted, .seen, .draft],
                    permanentFlags: nil, flagPolicy: FlagPolicy(pinKeyword: settings.pinKeyword), now: now,
                    timeZone: LocalZone.system.currentTimeZone(now: now)))
        } catch {
            throw CommandFailure(error.message, exitCode: .queryError)
        }
        let mailbox: String
        switch compiled.scope {
        case .current: mailbox = settings.mailbox
        case .mailbox(let name): mailbox = name
        case .allMailboxes:
            throw CommandFailure("in:all is not answered offline yet; leave out --offline", exitCode: .queryError)
        }
        guard let (index, indexed) = try await Self.index(settings, mailbox: mailbox, environment: environment) else {
            throw CommandFailure(
                "\(mailbox) has no local index for this account; run \"mailsearch sync --mailbox \(mailbox)\" first")
        }
        defer { index.close() }
        let outcome = try await answer(
            compiled.programKeys, in: mailbox, index: index, now: now, serverMatchesWords: false,
            newest: countsAll(json: json, context) ? nil : limit)
        guard case .uids(let uids) = outcome else {
            if case .server(let reason) = outcome {
                throw CommandFailure(
                    "the local index cannot answer this query exactly (\(reason)); leave out --offline",
                    exitCode: .queryError)
            }
            return
        }
        let age = indexed.syncedAt.map { IndexStatusCommand.age(Int(now.timeIntervalSince1970) - $0) + " old" }
        context.standardError.write(
            "note: answered from the local index of \(TerminalText.sanitized(mailbox)), \(age ?? "never synced")"
                + (indexed.resumeBelow != nil ? ", first sync not finished" : "") + "\n")
        try await print(
            uids, of: mailbox, index: index, pinFlag: settings.pinKeyword ?? .flagged, limit: limit, json: json,
            query: text, context: context)
    }
}
