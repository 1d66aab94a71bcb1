import FoundationEssentials
import IMAPCore

/// An account's settings once the command line and the config file are merged: flags win over
/// the file. No secret is in here; `Secrets` gets it when connecting.
struct AccountSettings: Hashable, Sendable {
    /// Where the password or token comes from.
    enum SecretSource: Hashable, Sendable {
        /// `--password-command` on the command line.
        case passwordCommandFlag(String)
        /// `passwordCommand` in the config file (after `MAILSEARCH_PASSWORD`).
        case passwordCommandFile(String)
        /// `--oauth2-token-command`, or `oauth2TokenCommand` in the file.
        case oauth2TokenCommand(String)
        /// `MAILSEARCH_PASSWORD`, else a no-echo prompt on a terminal.
        case environmentOrPrompt
    }

    /// Whether this is the built-in demo mailbox.
    var isDemo: Bool
    /// The config file's account name, when one was used.
    var accountName: String?
    var host: String
    var port: Int?
    var user: String
    var tls: AccountOptions.TLSMode
    var mailbox: String
    var caFile: String?
    var secret: SecretSource
    /// The pin flag: `\Flagged` (nil) or a keyword.
    var pinKeyword: Flag?
    var timeout: Double
    var debug: Bool

    /// The default of `--timeout`.
    static let defaultTimeout = 30.0

    /// The name searches are remembered under: `demo`, or `user@host`.
    var historyKey: String { isDemo ? "demo" : "\(user)@\(host.lowercased())" }

    /// The demo account (its host and port are filled in once its server runs).
    static func demo(_ options: AccountOptions) -> AccountSettings {
        AccountSettings(
            isDemo: true, accountName: nil, host: "127.0.0.1", port: nil, user: DemoServer.user, tls: .implicit,
            mailbox: options.mailbox ?? "INBOX", caFile: nil, secret: .environmentOrPrompt,
            pinKeyword: (try? pinKeyword(options.pinFlag)) ?? nil, timeout: options.timeout ?? defaultTimeout,
            debug: options.debug)
    }

    /// The settings for `options` with the config file of `environment`.
    ///
    /// - Throws: exit code 64 when no account is named or a required value is missing; 1 when the
    ///   config file cannot be read.
    static func resolve(
        _ options: AccountOptions, environment: [String: String]
    ) throws(CommandFailure) -> AccountSettings {
        if options.demo { return demo(options) }
        let usesFile = options.account != nil || options.host == nil
        let file = usesFile ? try ConfigFile.load(environment: environment) : nil
        var entry = ConfigFile.Account()
        var accountName: String?
        if let name = options.account ?? (options.host == nil ? file?.defaultAccount : nil) {
            guard let file else {
                throw CommandFailure(
                    "--account \(name) needs \(ConfigFile.path(environment: environment)), which does not exist; "
                        + "create it (see \"mailsearch help\") or pass --host and --user",
                    exitCode: .usageError)
            }
            guard let found = file.accounts[name] else {
                let known = file.accounts.keys.sorted().joined(separator: ", ")
                throw CommandFailure(
                    "there is no account \"\(name)\" in \(file.path)"
                        + (known.isEmpty ? "" : " (it has: \(known))"), exitCode: .usageError)
            }
            entry = found
            accountName = name
        }
        guard let host = options.host ?? entry.host else {
            throw CommandFailure(
                "no account given; pass --host and --user, --account NAME (from config.json), or --demo to try the demo mailbox",
                exitCode: .usageError)
        }
        guard !host.allSatisfy(\.isWhitespace) else {
            let place = accountName.map { "the account \"\($0)\" in \(file?.path ?? "the config file")" } ?? "--host"
            throw CommandFailure(
                "\(place) gives an empty host; write the IMAP server's name, like imap.example.com",
                exitCode: .usageError)
        }
        guard let user = options.user ?? entry.user, !user.isEmpty else {
            throw CommandFailure(
                "no user name for \(host); pass --user (often your email address)", exitCode: .usageError)
        }
        let tls = options.tls ?? entry.tls ?? .implicit
        if tls == .none {
            do {
                try AccountOptions.checkPlainText(
                    host: host, insecurePlaintext: options.insecurePlaintext || (entry.insecurePlaintext ?? false))
            } catch {
                throw CommandFailure("\(error.message); \(error.hint ?? "")", exitCode: .usageError)
            }
        }
        let secret: SecretSource
        if let command = options.passwordCommand {
            secret = .passwordCommandFlag(command)
        } else if let command = options.oauth2TokenCommand {
            secret = .oauth2TokenCommand(command)
        } else if let command = entry.oauth2TokenCommand {
            secret = .oauth2TokenCommand(command)
        } else if let command = entry.passwordCommand {
            secret = .passwordCommandFile(command)
        } else {
            secret = .environmentOrPrompt
        }
        let pinKeyword: Flag?
        do {
            pinKeyword = try Self.pinKeyword(options.pinFlag ?? entry.pinFlag)
        } catch {
            throw CommandFailure(error.message, exitCode: .usageError)
        }
        return AccountSettings(
            isDemo: false, accountName: accountName, host: host, port: options.port ?? entry.port, user: user, tls: tls,
            mailbox: options.mailbox ?? entry.mailbox ?? "INBOX", caFile: options.caFile ?? entry.caFile,
            secret: secret,
            pinKeyword: pinKeyword, timeout: options.timeout ?? entry.timeout ?? defaultTimeout, debug: options.debug)
    }

    /// The settings when something names an account (`--demo`, `--host`, `--account`, or the
    /// config file's default account); nil when nothing does.
    static func resolveIfNamed(
        _ options: AccountOptions, environment: [String: String]
    ) throws(CommandFailure) -> AccountSettings? {
        if !options.demo && options.host == nil && options.account == nil {
            guard let file = try ConfigFile.load(environment: environment), file.defaultAccount != nil else {
                return nil
            }
        }
        return try resolve(options, environment: environment)
    }

    /// The pin keyword `text` names: nil for `\Flagged` (the default), else a keyword atom.
    static func pinKeyword(_ text: String?) throws(UsageError) -> Flag? {
        guard let text, !text.isEmpty else { return nil }
        if text.lowercased() == "\\flagged" { return nil }
        let atomSpecials = Set("(){ %*\"\\]")
        guard !text.hasPrefix("\\"), text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
            !text.contains(where: { atomSpecials.contains($0) })
        else {
            throw UsageError("the pin flag \"\(text)\" is neither \\Flagged nor a keyword such as $Pinned")
        }
        return Flag(text)
    }
}
