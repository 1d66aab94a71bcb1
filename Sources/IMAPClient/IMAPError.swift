public import IMAPCore
public import Transport

/// A failure of an IMAP session, typed, with the server's words when it said any.
///
/// `message` is one sentence for a person: what happened and what to do.
public struct IMAPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure. New codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The server could not be reached, or the connection broke.
        public static let connection = Code("connection")
        /// TLS failed: an untrusted, expired or wrong-host certificate, or no TLS on the port.
        public static let tls = Code("tls")
        /// The server refused the credentials.
        public static let authentication = Code("authentication")
        /// The server answered NO.
        public static let no = Code("no")
        /// The server answered BAD (it did not understand the command).
        public static let bad = Code("bad")
        /// The server said BYE and closed the session after greeting it (logged in or not).
        public static let bye = Code("bye")
        /// The server greeted with BYE: it refuses to serve now (too many connections,
        /// maintenance); try again later.
        public static let refused = Code("refused")
        /// The server sent bytes that are not IMAP.
        public static let protocolViolation = Code("protocolViolation")
        /// What answered before logging in (the greeting, STARTTLS) was not an IMAP server: another
        /// protocol on the port, or bytes that are not IMAP.
        public static let notIMAP = Code("notIMAP")
        /// The server stopped answering.
        public static let timeout = Code("timeout")
        /// The caller's task was cancelled, or the session was closed.
        public static let cancelled = Code("cancelled")
        /// The session refused to do something unsafe (credentials in plain text, plain text to a
        /// remote host).
        public static let insecure = Code("insecure")
        /// The server lacks something the operation needs (a capability, a charset).
        public static let unsupported = Code("unsupported")
        /// Another task selected a different mailbox (or the mailbox was re-created) before the
        /// command could run.
        public static let mailboxChanged = Code("mailboxChanged")
        /// The server answered NO [UNAVAILABLE] (RFC 5530): a temporary failure; try again later.
        public static let unavailable = Code("unavailable")
        /// A change (STORE) was sent, the connection broke before its answer, and the flags could
        /// not be read back: it may or may not have been made. Read the flags again.
        public static let outcomeUnknown = Code("outcomeUnknown")
    }

    public let code: Code
    public let message: String
    /// The text of the server's NO/BAD/BYE, when there was one.
    public let serverText: String?
    /// The server's response code, when there was one.
    public let responseCode: ResponseCode?
    /// The transport failure underneath, when there was one.
    public let transportCode: TransportError.Code?

    public init(
        _ code: Code, _ message: String, serverText: String? = nil, responseCode: ResponseCode? = nil,
        transportCode: TransportError.Code? = nil
    ) {
        self.code = code
        self.message = message
        self.serverText = serverText
        self.responseCode = responseCode
        self.transportCode = transportCode
    }

    public var description: String { message }

    /// Maps a transport failure.
    init(_ transport: TransportError) {
        let tlsCodes: Set<TransportError.Code> = [
            .certificateUntrusted, .certificateExpired, .hostNameMismatch, .notTLS, .handshakeFailed, .handshakeTimeout,
            .tlsConfiguration,
        ]
        let code: Code
        if tlsCodes.contains(transport.code) {
            code = .tls
        } else if transport.code == .readTimeout {
            code = .timeout
        } else if transport.code == .cancelled {
            code = .cancelled
        } else {
            code = .connection
        }
        self.init(code, transport.message, transportCode: transport.code)
    }

    /// Maps a protocol error from the parser.
    init(_ parse: IMAPParseError) {
        self.init(
            .protocolViolation,
            "the server sent something that is not valid IMAP (\(parse.description)); the session was closed")
    }
}
