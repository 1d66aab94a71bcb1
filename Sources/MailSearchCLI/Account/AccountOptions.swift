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

    /// The options' definitions, for parsing and help.
    public static let definitions: [OptionDefinition] = [
        .option("host", value: "host", help: "The IMAP server (imap.example.com)."),
        .option("port", value: "port", help: "Its port (default 993, or 143 with --tls starttls)."),
        .option("user", value: "user", help: "The login name (often the email address)."),
        .option("tls", value: "mode", help: "implicit (default), starttls, or none (loopback tests only)."),
        .flag("insecure-plaintext", help: "Allow --tls none (only to 127.0.0.1, ::1 or localhost)."),
        .option("mailbox", value: "name", help: "The mailbox to open (default INBOX)."),
        .option("ca-file", value: "pem", help: "Also trust this CA or self-signed certificate (PEM)."),
        .option("account", value: "name", help: "An account of $XDG_CONFIG_HOME/mailsearch/config.json."),
        .option("password-command", value: "command", help: "A shell command whose first output line is the password."),
        .option(
            "oauth2-token-command", value: "command", help: "A shell command that prints an OAuth 2 token (XOAUTH2)."),
        .option("pin-flag", value: "flag", help: "The flag that pins: \\Flagged (default) or a keyword ($Pinned)."),
        .flag("demo", help: "Use the built-in demo mailbox (a mock server in this process)."),
        .option("timeout", value: "seconds", help: "Give up on a silent server after this long (default 30)."),
        .flag("debug", help: "Print the IMAP conversation on stderr (passwords never shown)."),
        .flag("no-cache", help: "Fetch every message whole; neither read nor fill the message cache."),
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
        host = arguments.value("host")
        port = try arguments.integer("port", in: 1...65535)
        user = arguments.value("user")
        if let mode = arguments.value("tls") {
            guard let parsed = TLSMode(rawValue: mode.lowercased()) else {
                throw UsageError("--tls expects implicit, starttls or none, not \"\(mode)\"")
            }
            tls = parsed
        }
        insecurePlaintext = arguments.flag("insecure-plaintext")
        mailbox = arguments.value("mailbox")
        caFile = arguments.value("ca-file")
        account = arguments.value("account")
        passwordCommand = arguments.value("password-command")
        oauth2TokenCommand = arguments.value("oauth2-token-command")
        pinFlag = arguments.value("pin-flag")
        demo = arguments.flag("demo")
        debug = arguments.flag("debug")
        noCache = arguments.flag("no-cache")
        if let text = arguments.value("timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= Self.maximumTimeout else {
                throw UsageError(
                    "--timeout expects a number of seconds above 0 and at most \(Int(Self.maximumTimeout)) (a day), not \"\(text)\""
                )
            }
            timeout = seconds
        }
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
