import FoundationEssentials
import IMAPCore
import MailSearch

/// `search --offline`: the query answered from the local index alone; no connection, no
/// password. The query compiles as for a plain IMAP4rev1 server (the server's capabilities are
/// not known offline), and the index answers it with IMAP's rules, newest first.
enum OfflineSearch {
    static func run(
        _ query: Query, text: String, account: AccountOptions, limit: Int, json: Bool, context: CommandContext
    ) async throws(CommandFailure) {
        let environment = context.environment
        let settings = try await BlockingWork.run { () throws(CommandFailure) -> AccountSettings in
            try AccountSettings.resolve(account, environment: environment)
        }
        let path = try IndexLocation.path(settings, environment: environment)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("there is no local index for this account; run \"mailsearch sync\" first")
        }
        let index = try await BlockingWork.run { () throws(CommandFailure) in try IndexLocation.open(path) }
        defer { index.close() }
        let now = Date()
        let zone = LocalZone.system.currentTimeZone(now: now)
        let pinFlag = settings.pinKeyword ?? .flagged
        let compiled: CompiledSearch
        do {
            compiled = try QueryCompiler.compile(
                query,
                context: SearchContext(
                    capabilities: [.imap4rev1], mailboxFlags: [.answered, .flagged, .deleted, .seen, .draft],
                    permanentFlags: nil, flagPolicy: FlagPolicy(pinKeyword: settings.pinKeyword), now: now,
                    timeZone: zone))
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
        func reading<Value>(_ body: () async throws(StoreError) -> Value) async throws(CommandFailure) -> Value {
            do throws(StoreError) {
                return try await body()
            } catch {
                throw CommandFailure(error.message)
            }
        }
        guard let indexed = try await reading({ () throws(StoreError) in try await index.mailbox(mailbox) }) else {
            throw CommandFailure(
                "\(mailbox) has no local index; run \"mailsearch sync --mailbox \(mailbox)\" first")
        }
        let keys = compiled.programKeys
        let answer = try await reading { () throws(StoreError) in
            try await index.search(keys, in: mailbox, now: Int(now.timeIntervalSince1970))
        }
        guard case .uids(let uids) = answer else {
            if case .serverDecides(let reason) = answer {
                throw CommandFailure(
                    "the local index cannot answer this query exactly (\(reason)); leave out --offline",
                    exitCode: .queryError)
            }
            throw CommandFailure("\(mailbox) has no local index; run \"mailsearch sync\" first")
        }
        let age = indexed.syncedAt.map { IndexStatusCommand.age(Int(now.timeIntervalSince1970) - $0) + " old" }
        context.standardError.write(
            "note: answered from the local index of \(TerminalText.sanitized(mailbox)), \(age ?? "never synced")"
                + (indexed.resumeBelow != nil ? ", first sync not finished" : "") + "\n")
        let newest = Array(uids.reversed().prefix(limit))
        let emails = try await reading { () throws(StoreError) in
            try await index.emails(newest, in: mailbox, pinFlag: pinFlag)
        }
        let printer = ListingPrinter(
            json: json, rows: MessageRows.forStandardOutput(context),
            uidWidth: newest.map { String($0).count }.max() ?? 1, output: context.standardOutput)
        let printed = printer.print(emails)
        if !json {
            if printed == 0 {
                context.standardOutput.write("No messages match \"\(SearchHistory.normalized(text))\".\n")
            } else if context.standardOutput.isTerminal && uids.count > printed {
                context.standardOutput.write("\(printed) of \(uids.count) shown.\n")
            }
        }
    }
}
