/// The account options of docs/cli.md ("Accounts and secrets"), as given on the command line
/// (before the command or after it). They are checked on their own here; `AccountSettings`
/// merges them with the config file when the command runs.
public struct AccountOptions: Hashable, Sendable {
    /// How the connection is protected.
    public enum TLSMode: String, Hashable, Sendable, CaseIterable {
        /// TLS from the first byte (port 993). The default.
        case implicit
        /// Plain text upgraded with STARTTLS before anything else (port 143).
        case starttls
        /// No TLS: only to a loopback address, and only with `--insecure-plaintext`.
        case none
    }

    public var host: String?
    public var port: Int?
    public var user: String?
    public var tls: TLSMode?
    public var insecurePlaintext: Bool
    public var mailbox: String?
    public var caFile: String?
    public var account: String?
    public var passwordCommand: String?
    public var oauth2TokenCommand: String?
    public var pinFlag: String?
    public var demo: Bool
    /// Seconds before connecting, the TLS handshake, or a command waiting on the server gives up.
    public var timeout: Double?
    /// Whether the protocol trace goes to standard error (credentials redacted).
    public var debug: Bool
    /// Whether messages are fetched whole every time, without the message cache.
    public var noCache: Bool

    /// The options, each declared once: the parser and the help take their definitions, and
    /// `init(parsing:)` reads them back through the same values.
    enum Declared {
        static let host = ValueOption<String>("host", value: "host", help: "The IMAP server (imap.example.com).")
        static let port = ValueOption.integer(
            "port", value: "port", in: 1...65535, help: "Its port (default 993, or 143 with --tls starttls).")
        static let user = ValueOption<String>("user", value: "user", help: "The login name (often the email address).")
        static let tls = ValueOption<TLSMode>(
            "tls", value: "mode", help: "implicit (default), starttls, or none (loopback tests only)."
        ) { (mode) throws(UsageError) in
            guard let parsed = TLSMode(rawValue: mode.lowercased()) else {
                throw UsageError("--tls expects implicit, starttls or none, not \"\(mode)\"")
            }
            return parsed
        }
        static let insecurePlaintext = FlagOption(
            "insecure-plaintext", help: "Allow --tls none (only to 127.0.0.1, ::1 or localhost).")
        static let mailbox = ValueOption<String>("mailbox", value: "name", help: "The mailbox to open (default INBOX).")
        static let caFile = ValueOption<String>(
            "ca-file", value: "pem", help: "Also trust this CA or self-signed certificate (PEM).")
        static let account = ValueOption<String>(
            "account", value: "name", help: "An account of $XDG_CONFIG_HOME/mailsearch/config.json.")
        static let passwordCommand = ValueOption<String>(
            "password-command", value: "command", help: "A shell command whose first output line is the password.")
        static let oauth2TokenCommand = ValueOption<String>(
            "oauth2-token-command", value: "command", help: "A shell command that prints an OAuth 2 token (XOAUTH2).")
        static let pinFlag = ValueOption<String>(
            "pin-flag", value: "flag", help: "The flag that pins: \\Flagged (default) or a keyword ($Pinned).")
        static let demo = FlagOption("demo", help: "Use the built-in demo mailbox (a mock server in this process).")
        static let timeout = ValueOption<Double>(
            "timeout", value: "seconds", help: "Give up on a silent server after this long (default 30)."
        ) { (text) throws(UsageError) in
            guard let seconds = Double(text), seconds > 0, seconds <= AccountOptions.maximumTimeout else {
                throw UsageError(
                    "--timeout expects a number of seconds above 0 and at most \(Int(AccountOptions.maximumTimeout)) (a day), not \"\(text)\""
                )
            }
            return seconds
        }
        static let debug = FlagOption("debug", help: "Print the IMAP conversation on stderr (passwords never shown).")
        static let noCache = FlagOption(
            "no-cache", help: "Fetch every message whole; neither read nor fill the message cache.")
    }

    /// The options' definitions, for parsing and help.
    public static let definitions: [OptionDefinition] = [
        Declared.host.definition, Declared.port.definition, Declared.user.definition, Declared.tls.definition,
        Declared.insecurePlaintext.definition, Declared.mailbox.definition, Declared.caFile.definition,
        Declared.account.definition, Declared.passwordCommand.definition, Declared.oauth2TokenCommand.definition,
        Declared.pinFlag.definition, Declared.demo.definition, Declared.timeout.definition,
        Declared.debug.definition, Declared.noCache.definition,
    ]

    /// The longest `--timeout`, in seconds: a day.
    public static let maximumTimeout = 86400.0

    /// No options given.
    public init() {
        insecurePlaintext = false
        demo = false
        debug = false
        noCache = false
    }

    /// The options in `arguments`; throws for a value of the wrong form.
    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        host = try Declared.host.read(from: arguments)
        port = try Declared.port.read(from: arguments)
        user = try Declared.user.read(from: arguments)
        tls = try Declared.tls.read(from: arguments)
        insecurePlaintext = Declared.insecurePlaintext.read(from: arguments)
        mailbox = try Declared.mailbox.read(from: arguments)
        caFile = try Declared.caFile.read(from: arguments)
        account = try Declared.account.read(from: arguments)
        passwordCommand = try Declared.passwordCommand.read(from: arguments)
        oauth2TokenCommand = try Declared.oauth2TokenCommand.read(from: arguments)
        pinFlag = try Declared.pinFlag.read(from: arguments)
        demo = Declared.demo.read(from: arguments)
        debug = Declared.debug.read(from: arguments)
        noCache = Declared.noCache.read(from: arguments)
        timeout = try Declared.timeout.read(from: arguments)
    }

    /// Checks the options together (the config file is not read yet).
    public func validate() throws(UsageError) {
        if demo {
            let clashing = [
                ("host", host), ("port", port.map(String.init)), ("user", user), ("tls", tls?.rawValue),
                ("ca-file", caFile), ("account", account), ("password-command", passwordCommand),
                ("oauth2-token-command", oauth2TokenCommand),
            ]
            .filter { $0.1 != nil }.map { "--\($0.0)" }
            if let first = clashing.first {
                throw UsageError(
                    "--demo uses the built-in demo server, so \(first) does not apply",
                    hint: "leave out --demo to connect to a real account")
            }
        }
        if passwordCommand != nil && oauth2TokenCommand != nil {
            throw UsageError(
                "--password-command and --oauth2-token-command exclude each other",
                hint: "give the one your provider uses")
        }
        if insecurePlaintext && tls != TLSMode.none {
            throw UsageError("--insecure-plaintext only goes with --tls none", hint: "leave it out to use TLS")
        }
        if tls == TLSMode.none {
            try Self.checkPlainText(host: host, insecurePlaintext: insecurePlaintext)
        }
        _ = try AccountSettings.pinKeyword(pinFlag)
        if let host, host.isEmpty || host.contains(where: { $0.isWhitespace || $0 == "/" }) {
            throw UsageError("--host \"\(host)\" is not a host name", hint: "give a name like imap.example.com")
        }
    }

    /// Plain text is for loopback tests only, and even there needs `--insecure-plaintext`.
    static func checkPlainText(host: String?, insecurePlaintext: Bool) throws(UsageError) {
        if let host, !isLoopback(host) {
            throw UsageError(
                "--tls none is refused for \(host): plain text is allowed only to 127.0.0.1, ::1 or localhost",
                hint: "use --tls implicit or --tls starttls")
        }
        if !insecurePlaintext {
            throw UsageError(
                "--tls none sends the password unencrypted",
                hint: "add --insecure-plaintext to confirm (loopback only), or use TLS")
        }
    }

    /// Whether `host` names this machine: 127.0.0.1 (any 127.x), ::1 or localhost.
    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        return lowered == "localhost" || lowered == "::1" || lowered == "[::1]"
            || (lowered.hasPrefix("127.") && lowered.split(separator: ".").count == 4
                && lowered.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }
}
