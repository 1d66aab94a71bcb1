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

    /// The index of `settings`' account; nil when it has none.
    static func index(
        _ settings: AccountSettings, environment: [String: String]
    ) async throws(CommandFailure) -> MessageIndex? {
        let path = try IndexLocation.path(settings, environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try await BlockingWork.run { () throws(CommandFailure) in try IndexLocation.open(path) }
    }

    /// The index of `settings`' account when it has `mailbox`; nil without one.
    static func index(
        _ settings: AccountSettings, mailbox: String, environment: [String: String]
    ) async throws(CommandFailure) -> (MessageIndex, MessageIndex.Mailbox)? {
        guard let index = try await index(settings, environment: environment) else { return nil }
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

    /// Prints the newest `limit` of `matches` (UIDs by mailbox) as the server's search prints
    /// them, newest first across the mailboxes; rows of a mailbox other than `openMailbox` show
    /// it (`Archive:32`). Returns what it printed.
    @discardableResult
    static func print(
        _ matches: [String: [UInt32]], openMailbox: String, index: MessageIndex, pinFlag: Flag, limit: Int,
        json: Bool, query: String, context: CommandContext
    ) async throws(CommandFailure) -> [Email] {
        // `newestFirst` is cheap on what `newest` already ordered (its own order).
        let ordered = try await reading { () throws(StoreError) in try await index.newestFirst(matches) }
        let newest = Array(ordered.prefix(limit))
        var found: [String: [UInt32: Email]] = [:]
        for (mailbox, uids) in Dictionary(grouping: newest, by: \.mailbox) {
            let emails = try await reading { () throws(StoreError) in
                try await index.emails(uids.map(\.uid), in: mailbox, pinFlag: pinFlag)
            }
            found[mailbox] = Dictionary(emails.map { ($0.uid, $0) }) { first, _ in first }
        }
        let emails = newest.compactMap { found[$0.mailbox]?[$0.uid] }
        let rows = MessageRows.forStandardOutput(context, openMailbox: openMailbox)
        let printer = ListingPrinter(
            json: json, rows: rows, uidWidth: rows.uidWidth(emails.map(\.id)), output: context.standardOutput)
        let printed = printer.print(emails)
        let total = matches.values.reduce(0) { $0 + $1.count }
        if !json {
            if printed == 0 {
                context.standardOutput.write("No messages match \"\(SearchHistory.normalized(query))\".\n")
            } else if countsAll(json: json, context) && total > printed {
                context.standardOutput.write("\(printed) of \(total) shown.\n")
            }
        }
        return emails
    }

    /// `search` with an index of the mailboxes searched: the index is caught up with the server
    /// (the open mailbox on the service's connection, with no command when nothing changed; the
    /// others over a session of their own), then answers the
    /// query compiled for this server. `in:all` is answered locally when the index holds every
    /// selectable mailbox the server lists (one LIST more). Nil when a mailbox searched has no
    /// index or only the server can answer: the server is asked.
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
        guard compiled.warnings.isEmpty else { return nil }
        // The demo without an index file indexes the mailboxes searched in memory, now.
        guard let (index, inMemory) = try await accountIndex(open.settings, environment: context.environment)
        else { return nil }
        defer { index.close() }
        let indexed = Set(try await reading { () throws(StoreError) in try await index.mailboxes() }.map(\.name))
        let targets: [String]
        switch compiled.scope {
        case .current: targets = [open.settings.mailbox]
        case .mailbox(let name): targets = [name]
        case .allMailboxes:
            do throws(MailServiceError) {
                targets = try await open.service.mailboxes(counting: false).filter(\.isSelectable).map(\.name)
            } catch {
                throw Failures.working(error)
            }
        }
        guard !targets.isEmpty, inMemory || targets.allSatisfy(indexed.contains) else { return nil }
        do throws(MailServiceError) {
            _ = try await open.service.syncIndex(index, mailboxes: targets)
        } catch {
            throw Failures.working(error)
        }
        let answers = try await answers(
            compiled.programKeys, in: targets, index: index, now: Date(), serverMatchesWords: searchContext.isGmail,
            newest: countsAll(json: json, context) ? nil : limit)
        guard case .matches(let matches) = answers else { return nil }
        return try await print(
            matches, openMailbox: open.settings.mailbox, index: index, pinFlag: searchContext.pinFlag.flag,
            limit: limit, json: json, query: text, context: context)
    }

    /// The index of `settings`' account, or for the demo without one a new one in memory
    /// (`inMemory`), so that what the index does can be tried without an account; nil otherwise.
    static func accountIndex(
        _ settings: AccountSettings, environment: [String: String]
    ) async throws(CommandFailure) -> (index: MessageIndex, inMemory: Bool)? {
        if let file = try await index(settings, environment: environment) { return (file, false) }
        guard settings.isDemo else { return nil }
        do throws(StoreError) {
            return (try MessageIndex(path: MessageIndex.inMemory), true)
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// The answers in `mailboxes`, or the first reason only the server can answer.
    enum Answers {
        case matches([String: [UInt32]])
        case server(String)
    }

    /// Asks `index` for `keys` in each of `mailboxes` (see ``answer(_:in:index:now:serverMatchesWords:newest:)``).
    static func answers(
        _ keys: [SearchKey], in mailboxes: [String], index: MessageIndex, now: Date, serverMatchesWords: Bool,
        newest: Int?
    ) async throws(CommandFailure) -> Answers {
        var matches: [String: [UInt32]] = [:]
        for mailbox in mailboxes {
            switch try await answer(
                keys, in: mailbox, index: index, now: now, serverMatchesWords: serverMatchesWords, newest: newest)
            {
            case .uids(let uids): matches[mailbox] = uids
            case .server(let reason): return .server(reason)
            }
        }
        return .matches(matches)
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
        let mailbox: String?
        switch compiled.scope {
        case .current: mailbox = settings.mailbox
        case .mailbox(let name): mailbox = name
        case .allMailboxes: mailbox = nil
        }
        let index: MessageIndex
        if let file = try await Self.index(settings, environment: environment) {
            index = file
        } else if settings.isDemo {
            index = try await demoIndex(account, mailbox: mailbox, context: context)
        } else {
            throw notIndexed(mailbox ?? settings.mailbox)
        }
        defer { index.close() }
        // `in:all`: every mailbox of the index (those `sync --all` or `sync --mailbox` took).
        let known = try await reading { () throws(StoreError) in try await index.mailboxes() }
        let targets = mailbox.map { name in known.filter { $0.name == name } } ?? known
        guard !targets.isEmpty else { throw notIndexed(mailbox ?? settings.mailbox) }
        let answers = try await answers(
            compiled.programKeys, in: targets.map(\.name), index: index, now: now, serverMatchesWords: false,
            newest: countsAll(json: json, context) ? nil : limit)
        guard case .matches(let matches) = answers else {
            if case .server(let reason) = answers {
                throw CommandFailure(
                    "the local index cannot answer this query exactly (\(reason)); leave out --offline",
                    exitCode: .queryError)
            }
            return
        }
        let seconds = Int(now.timeIntervalSince1970)
        let ages = targets.map { indexed in
            TerminalText.sanitized(indexed.name) + ", "
                + (indexed.syncedAt.map { IndexStatusCommand.age(seconds - $0) + " old" } ?? "never synced")
                + (indexed.resumeBelow != nil ? ", first sync not finished" : "")
        }
        context.standardError.write(
            "note: answered from the local index of " + ages.joined(separator: "; ") + "\n")
        try await print(
            matches, openMailbox: settings.mailbox, index: index, pinFlag: settings.pinKeyword ?? .flagged,
            limit: limit, json: json, query: text, context: context)
    }

    /// For the demo without an index file (`--demo search --offline`): `mailbox` (nil: every
    /// mailbox) of the built-in mailbox indexed in memory, as `sync` would write them, so the
    /// offline search can be tried without an account.
    private static func demoIndex(
        _ account: AccountOptions, mailbox: String?, context: CommandContext
    ) async throws(CommandFailure) -> MessageIndex {
        let index = try await reading { () throws(StoreError) in try MessageIndex(path: MessageIndex.inMemory) }
        do {
            try await OpenAccount.with(account, context: context) { (open) throws(CommandFailure) in
                do throws(MailServiceError) {
                    let names =
                        if let mailbox { [mailbox] } else {
                            try await open.service.mailboxes(counting: false).filter(\.isSelectable).map(\.name)
                        }
                    _ = try await open.service.syncIndex(index, mailboxes: names)
                } catch {
                    throw Failures.working(error)
                }
            }
        } catch {
            index.close()
            throw error
        }
        return index
    }

    private static func notIndexed(_ mailbox: String) -> CommandFailure {
        CommandFailure(
            "\(mailbox) has no local index for this account; run \"mailsearch sync --mailbox \(mailbox)\" first")
    }
}
