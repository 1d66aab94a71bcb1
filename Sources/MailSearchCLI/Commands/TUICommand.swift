import IMAPClient
import MailSearch

/// `mailsearch tui`: the inbox and search screen of the design documents, full-screen in the
/// terminal, driven by the same `InboxViewModel` the library's tests prove (issue 10).
///
/// The account is opened before the screen takes over the terminal, so a password prompt, an
/// unreachable server or a refused login are reported like any other command's (exit codes of
/// docs/cli.md). The terminal is restored on `q`, Ctrl-C, SIGTERM, SIGHUP and on errors; ended
/// by a signal, the tool exits with 128 + its number.
public struct TUICommand: AsyncParsableCommand, ConnectingCommand {
    public static let configuration = CommandConfiguration(
        name: "tui",
        abstract: "The inbox and search screen of the design documents, full-screen.",
        discussion: """
            The inbox, pinned messages first, then newest first; new mail, expunges and flags
            changed elsewhere appear as they happen. Keys: j/k or arrows move, PgUp/PgDn page,
            g/G first/last, Enter opens a message (never marking it read), u Read/Unread,
            p Pin/Unpin, / searches the server (recent searches and suggestions while typing,
            and with a local index, from "mailsearch sync" or the demo's own, the newest
            matches on every key; Tab or arrows and Enter take a suggestion; Enter asks the
            server; Esc returns to the inbox as it was),
            R checks for mail, ? shows every key, q quits. Needs a terminal; no colours with
            NO_COLOR set. A lost connection is tried again for as long as the screen is open
            (the status row says "Offline: retrying every 30 s" until it is back).
            """,
        options: [OpenAccount.retryEvery.definition] + AccountOptions.definitions)

    public var account: AccountOptions
    /// How the connection is re-established (--retry-every).
    var reconnects: MailboxConnection.ReconnectPolicy

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        reconnects = try OpenAccount.longLivedReconnects(arguments)
        account = try AccountOptions(parsing: arguments)
    }

    public func validate() throws(UsageError) { try account.validate() }

    public func run(context: CommandContext) async throws(CommandFailure) {
        guard RawTerminal.isAvailable() else {
            throw CommandFailure(
                "mailsearch tui needs a terminal on standard input and output; in scripts use \"list\" or \"search\"",
                exitCode: .usageError)
        }
        let noColor = context.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        // The screen stays open for as long as a person likes: reconnect as `watch` does.
        // Searches on a connection of their own: one left with Esc never holds up the next.
        let open = try await OpenAccount.open(
            account, context: context, reconnectPolicy: reconnects, searchesOnOwnConnection: true)
        let history = InboxViewModel.HistoryStorage.file(
            account: open.settings.historyKey,
            directory: SearchHistory.defaultDirectory(environment: context.environment))
        // Results while typing come from the local index, kept in step while the screen is open.
        let typeAhead = try await open.followIndex(environment: context.environment)
        let outcome: TerminalUI.Outcome
        do throws(RawTerminal.SetupError) {
            outcome = try await TerminalUI.run(service: open.service, history: history, colors: !noColor)
        } catch {
            await Self.end(typeAhead, open)
            throw CommandFailure("cannot use the terminal full-screen: \(error.message)")
        }
        await Self.end(typeAhead, open)
        // Ended by a signal: the status a shell expects of a program the signal ended, 128 + its
        // number (143 for SIGTERM, 129 SIGHUP, 130 SIGINT), with the terminal already restored.
        if case .terminated(let number) = outcome { MailSearchTool.end(ExitCode(rawValue: 128 + number)) }
    }

    /// The screen is over: the index is let go, and the account closes.
    private static func end(_ index: MessageIndex?, _ open: OpenAccount) async {
        await open.stopFollowing(index)
        await open.close()
    }
}
