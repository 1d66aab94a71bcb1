public import IMAPClient

/// Why a ``MailService`` call failed, in one sentence that says what happened and what to do.
public struct MailServiceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure it is; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let name: String
        /// A code.
        public init(_ name: String) { self.name = name }
        /// The name.
        public var description: String { name }

        /// The server could not be reached, or the connection broke and could not be restored.
        public static let connection = Code("connection")
        /// The server refused the credentials.
        public static let authentication = Code("authentication")
        /// The query does not parse or cannot run on this server.
        public static let query = Code("query")
        /// The server refused the command (`NO`).
        public static let refused = Code("refused")
        /// The mailbox was re-created or is gone: what was listed no longer exists.
        public static let mailboxChanged = Code("mailboxChanged")
        /// The call was cancelled.
        public static let cancelled = Code("cancelled")
        /// The server answered something this client cannot use.
        public static let server = Code("server")
    }

    /// What kind of failure.
    public var code: Code
    /// One sentence for a person.
    public var message: String
    /// The query error, for `.query`.
    public var queryError: QueryError?
    /// The IMAP failure underneath, when there was one: its code tells an unreachable server or
    /// a failed TLS handshake (`.connection` with a connect-time transport code, `.tls`) from a
    /// connection that broke mid-command.
    public var underlying: IMAPError?

    /// An error.
    public init(_ code: Code, _ message: String, queryError: QueryError? = nil) {
        self.code = code
        self.message = message
        self.queryError = queryError
    }

    /// A query that does not parse or compile.
    public init(_ error: QueryError) {
        self.init(.query, error.message, queryError: error)
    }

    /// The service's view of an IMAP failure.
    public init(_ error: IMAPError) {
        let code: Code
        switch error.code {
        case .authentication: code = .authentication
        case .connection, .tls, .bye, .timeout, .insecure, .unavailable, .outcomeUnknown: code = .connection
        case .cancelled: code = .cancelled
        case .mailboxChanged: code = .mailboxChanged
        case .no: code = .refused
        default: code = .server
        }
        self.init(code, error.message)
        underlying = error
    }

    /// The same as `message`.
    public var description: String { message }
}
