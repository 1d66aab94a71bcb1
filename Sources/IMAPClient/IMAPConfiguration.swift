public import IMAPCore
public import Transport

/// How to reach and talk to an IMAP server.
public struct IMAPConfiguration: Sendable {
    /// How the connection is protected.
    public enum Security: Hashable, Sendable {
        /// TLS from the first byte (IMAPS, port 993). The default.
        case implicitTLS(ClientTLSConfiguration)
        /// Plain text, upgraded with STARTTLS before anything else (port 143). A server that does
        /// not offer STARTTLS is refused.
        case startTLS(ClientTLSConfiguration)
        /// Plain text throughout. Allowed only to a loopback address; anything else is refused.
        case plainTextOnLoopback
    }

    /// Timeouts; each has a default.
    public struct Timeouts: Hashable, Sendable {
        public var connect: Duration
        public var tlsHandshake: Duration
        /// How long the greeting (and, before login, CAPABILITY and STARTTLS) may take.
        public var greeting: Duration
        /// How long a command may wait with nothing arriving from the server.
        public var commandInactivity: Duration
        /// How long an IDLE lasts before it is renewed (RFC 2177: under 29 minutes).
        public var idleRenewal: Duration
        /// How often NOOP polls when the server has no IDLE.
        public var pollInterval: Duration
        /// How long closing waits for the answer to LOGOUT before closing anyway: behind a
        /// command the server never answers, LOGOUT would otherwise wait for the command timeout,
        /// and a tool told to end (SIGTERM while its listing hangs) would linger that long.
        public var logoutAnswer: Duration

        public init(
            connect: Duration = .seconds(15), tlsHandshake: Duration = .seconds(15), greeting: Duration = .seconds(30),
            commandInactivity: Duration = .seconds(60), idleRenewal: Duration = .seconds(25 * 60),
            pollInterval: Duration = .seconds(30), logoutAnswer: Duration = .seconds(3)
        ) {
            self.connect = connect
            self.tlsHandshake = tlsHandshake
            self.greeting = greeting
            self.commandInactivity = commandInactivity
            self.idleRenewal = idleRenewal
            self.pollInterval = pollInterval
            self.logoutAnswer = logoutAnswer
        }
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var timeouts: Timeouts
    /// What the client says about itself in ID (RFC 2971); some providers require it.
    public var clientIdentity: [IDParameter]
    /// Where the redacted protocol trace and events go.
    public var logger: Logger
    /// Longest command line the session sends; longer UID sets are split across commands.
    public var maximumCommandLength: Int
    /// The default of ``maximumCommandLength``: within what every server we know of accepts.
    public static let defaultMaximumCommandLength = 8000
    /// Capabilities to ignore even when the server announces them (to work around a server's
    /// broken extension, or to test fallbacks: without SORT the session searches with ESEARCH,
    /// without both with plain SEARCH).
    public var ignoredCapabilities: Set<Capability> = []
    /// How many messages one UID FETCH of a stream asks for; the next is sent only when the
    /// consumer has drained the buffer to this many, so a stream holds at most two windows.
    public var fetchWindow: Int = 1000
    /// How many mailbox events are kept for a listener that falls behind; past that they are
    /// replaced by one `.resyncNeeded`.
    public var eventBufferCapacity: Int = 5000
    /// Whether closing waits for the server's answer to LOGOUT (at most
    /// ``Timeouts-swift.struct/logoutAnswer``). A one-shot tool turns it off: when nothing else is in
    /// flight, LOGOUT is written and the connection closed at once, a round trip sooner.
    public var waitsForLogoutAnswer = true

    public init(
        host: String, port: Int? = nil, security: Security = .implicitTLS(ClientTLSConfiguration()),
        timeouts: Timeouts = .init(), clientIdentity: [IDParameter] = [IDParameter(key: "name", value: "MailSearch")],
        logger: Logger = .disabled, maximumCommandLength: Int = defaultMaximumCommandLength
    ) {
        self.host = host
        switch security {
        case .implicitTLS: self.port = port ?? 993
        case .startTLS, .plainTextOnLoopback: self.port = port ?? 143
        }
        self.security = security
        self.timeouts = timeouts
        self.clientIdentity = clientIdentity
        self.logger = logger
        self.maximumCommandLength = maximumCommandLength
    }
}

/// Credentials for logging in.
public enum Credentials: Sendable {
    /// A user name and password: AUTHENTICATE PLAIN when offered, else LOGIN.
    case password(user: String, password: String)
    /// An OAuth 2 access token: AUTHENTICATE XOAUTH2.
    case oauth2(user: String, token: String)

    var user: String {
        switch self {
        case .password(let user, _), .oauth2(let user, _): return user
        }
    }
}
