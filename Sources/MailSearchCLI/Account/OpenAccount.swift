import FoundationEssentials
import IMAPClient
import IMAPCore
import MailSearch
import SystemLayer
import Transport

/// A connected account: the service over the open mailbox, and what to close at the end (the
/// demo server when there is one).
struct OpenAccount: Sendable {
    let settings: AccountSettings
    let service: IMAPMailService
    let mailbox: MailboxDescription
    let demo: DemoServer?
    /// The account's local index, where lists keep the messages they showed (none for the demo
    /// or with `--no-cache`).
    let index: MessageIndex?
    /// Why the index could not be opened; nil when it was, or was not asked for.
    let indexProblem: String?

    /// How a one-shot command reconnects: once, quickly (a command that cannot finish says so
    /// instead of retrying for a minute).
    static let oneShotReconnects = MailboxConnection.ReconnectPolicy(
        initialDelay: .milliseconds(100), maximumDelay: .seconds(1), maximumAttempts: 2)

    /// `--retry-every`: how often a long-lived command (`tui`, `watch`) tries again while the
    /// server cannot be reached.
    static let retryEvery = ValueOption.integer(
        "retry-every", value: "seconds", in: 1...3600,
        help: "While the server cannot be reached, try again this often (default 30, at most 3600).")

    /// How a long-lived command reconnects: quickly at first, then every `seconds` (30 unless
    /// set with --retry-every), for as long as it runs.
    static func longLivedReconnects(
        _ arguments: ParsedArguments
    ) throws(UsageError)
        -> MailboxConnection
        .ReconnectPolicy
    {
        let seconds = try retryEvery.read(from: arguments) ?? 30
        return .untilClosed(retryingEvery: .seconds(seconds))
    }

    /// Resolves `options`, gets the secret, connects, logs in and opens the mailbox.
    ///
    /// - Throws: the failure with the exit code of docs/cli.md: 64 for a missing account or
    ///   secret, 69 unreachable or TLS, 77 login refused, 75 NO/BAD or a broken connection.
    static func open(
        _ options: AccountOptions, context: CommandContext,
        reconnectPolicy: MailboxConnection.ReconnectPolicy = oneShotReconnects, searchesOnOwnConnection: Bool = false
    ) async throws(CommandFailure) -> OpenAccount {
        let environment = context.environment
        // OpenSSL's one-time set-up runs beside reading the settings, files and secret, and on
        // into connecting: the connection's own TLS context waits inside OpenSSL for the set-up
        // to finish, so nothing waits for it before then.
        async let warmedUp: Void = OpenSSLLibrary.warmUp()
        var settings = try await BlockingWork.run { () throws(CommandFailure) -> AccountSettings in
            try AccountSettings.resolve(options, environment: environment)
        }
        // The index opens beside reading the secret and OpenSSL's set-up (none for the demo,
        // whose messages are made afresh in this process, nor with --no-cache).
        let resolved = settings
        async let opened = listingIndex(
            resolved, environment: environment, wanted: !resolved.isDemo && !options.noCache)
        let demo: DemoServer?
        let credentials: Credentials
        var trust: [UInt8]?
        if settings.isDemo {
            let server = try await DemoServer.start()
            settings.port = server.port
            credentials = .password(user: DemoServer.user, password: server.password)
            trust = server.certificatePEM
            demo = server
        } else {
            if let path = settings.caFile {
                trust = try await BlockingWork.run { () throws(CommandFailure) -> [UInt8] in
                    guard let bytes = FileManager.default.contents(atPath: path) else {
                        throw CommandFailure("cannot read the CA file \(path); check the path and its permissions")
                    }
                    return [UInt8](bytes)
                }
            }
            credentials = try await Secrets.credentials(for: settings, environment: environment)
            demo = nil
        }
        let configuration = Self.configuration(settings, trust: trust, demo: demo != nil, log: context.standardError)
        let (index, indexProblem) = await opened
        let service = IMAPMailService(
            configuration: configuration, credentials: credentials, mailbox: settings.mailbox,
            flagPolicy: FlagPolicy(pinKeyword: settings.pinKeyword), reconnectPolicy: reconnectPolicy,
            timeZone: LocalZone.system.currentTimeZone(), index: index,
            searchesOnOwnConnection: searchesOnOwnConnection)
        do {
            let mailbox = try await service.open()
            await warmedUp
            return OpenAccount(
                settings: settings, service: service, mailbox: mailbox, demo: demo, index: index,
                indexProblem: indexProblem)
        } catch {
            await service.close()
            index?.close()
            await demo?.stop()
            throw Failures.connecting(error)
        }
    }

    /// The account's index, opened (made when missing) for lists to keep what they show, or why
    /// it cannot be. The summary cache that came before it (`summaries.sqlite` beside it, a file
    /// `index drop` did not remove) is removed: one local store of messages, not two.
    static func listingIndex(
        _ settings: AccountSettings, environment: [String: String], wanted: Bool = true
    ) async -> (MessageIndex?, String?) {
        guard wanted else { return (nil, nil) }
        do throws(CommandFailure) {
            return try await BlockingWork.run { () throws(CommandFailure) -> (MessageIndex?, String?) in
                let path: String
                do throws(CommandFailure) {
                    path = try IndexLocation.path(settings, environment: environment)
                } catch {
                    return (nil, error.message)
                }
                let index: MessageIndex
                do throws(CommandFailure) {
                    index = try IndexLocation.open(path)
                } catch {
                    return (nil, error.message)
                }
                // Its directory is ours now (0700, not a link): what an earlier version kept there goes.
                let previous = PrivateFiles.directory(of: path) + "/summaries.sqlite"
                for suffix in ["", "-wal", "-shm"] {
                    do throws(PrivateFileError) {
                        try PrivateFiles.remove(previous + suffix)
                    } catch {
                        return (index, "the old message cache \(error)")
                    }
                }
                return (index, nil)
            }
        } catch {
            return (nil, error.message)
        }
    }

    /// Runs `body` with the account open, and closes it (LOGOUT) however `body` ends.
    static func with<Value: Sendable>(
        _ options: AccountOptions, context: CommandContext,
        reconnectPolicy: MailboxConnection.ReconnectPolicy = oneShotReconnects,
        _ body: (OpenAccount) async throws(CommandFailure) -> Value
    ) async throws(CommandFailure) -> Value {
        let account = try await open(options, context: context, reconnectPolicy: reconnectPolicy)
        do {
            let value = try await body(account)
            await account.close(warningsTo: context.standardError)
            return value
        } catch {
            await account.close(warningsTo: context.standardError)
            throw error
        }
    }

    /// Logs out (after the index writes), closes the index, stops the demo server, and says
    /// when the index could not keep what the lists showed.
    func close(warningsTo output: (any OutputSink)? = nil) async {
        await service.close()
        index?.close()
        await demo?.stop()
        guard let output else { return }
        if let indexProblem {
            // Without an index every message is fetched whole; with one, the problem was the old cache's.
            let consequence = index == nil ? "; messages are fetched whole from the server each time" : ""
            output.write("warning: \(TerminalText.sanitized(indexProblem))\(consequence)\n")
        }
        if let storeProblem = await service.localStoreProblem {
            output.write(
                "warning: \(TerminalText.sanitized(storeProblem)); messages are fetched whole from the server each time\n"
            )
        }
    }

    /// The session's configuration for `settings`: certificates always verified (the system store
    /// plus `trust`), plain text only to loopback.
    static func configuration(
        _ settings: AccountSettings, trust: [UInt8]?, demo: Bool, log: any OutputSink
    ) -> IMAPConfiguration {
        let tls = ClientTLSConfiguration(additionalTrustPEM: trust, usesSystemTrustStore: !demo)
        let security: IMAPConfiguration.Security
        switch settings.tls {
        case .implicit: security = .implicitTLS(tls)
        case .starttls: security = .startTLS(tls)
        case .none: security = .plainTextOnLoopback
        }
        let timeout = Duration.milliseconds(Int64(settings.timeout * 1000))
        let timeouts = IMAPConfiguration.Timeouts(
            connect: timeout, tlsHandshake: timeout, greeting: timeout, commandInactivity: timeout)
        let logger =
            settings.debug
            ? Logger(label: "imap", level: .trace, handler: TraceToStandardError(output: log)) : Logger.disabled
        var configuration = IMAPConfiguration(
            host: settings.host, port: settings.port, security: security, timeouts: timeouts,
            clientIdentity: [IDParameter(key: "name", value: "mailsearch")], logger: logger)
        // A command ends once its last answer is in: LOGOUT is written and the connection
        // closed without a round trip for the server's goodbye.
        configuration.waitsForLogoutAnswer = false
        return configuration
    }
}

/// `--debug`: the session's redacted protocol trace and events, one `debug:` line each on
/// standard error. (The session replaces LOGIN and AUTHENTICATE arguments with `***` before a
/// message is built, so no secret reaches here.)
struct TraceToStandardError: LogHandler {
    let output: any OutputSink

    func log(level: LogLevel, message: String, label: String) {
        // Server text is shown, never acted on: escapes and line breaks are written out.
        let line = TerminalText.escaped(message)
        output.write("debug: \(line)\n")
    }
}
