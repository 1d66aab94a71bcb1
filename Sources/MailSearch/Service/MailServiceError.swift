public import IMAPClient
import Transport

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
        /// The local index could not be read or written (its file is damaged, of another
        /// version, or not writable).
        public static let index = Code("index")
    }

    /// Where a failure stands for someone running a command: what to check, and whether trying
    /// again later may help (the tool's exit codes follow it, docs/cli.md "Exit codes"). It is
    /// decided here, once, from the IMAP and transport failure underneath, so a caller needs
    /// neither of those error types.
    public enum Category: Hashable, Sendable, CaseIterable {
        /// The request itself was wrong (a value of the wrong form).
        case usage
        /// The query does not parse or cannot run on this server.
        case query
        /// The server was never reached: no such host, refused, or no answer to connecting; or
        /// it refused the connection in its greeting (BYE).
        case unreachable
        /// Something answered, but not as an IMAP server (another protocol on the port).
        case notIMAP
        /// TLS failed (an untrusted, expired or wrong-host certificate, no TLS on the port), or
        /// the connection would not have been safe (plain text).
        case tls
        /// The server refused the credentials, or offers no way to log in with them.
        case authentication
        /// The connection broke, timed out or went out of step with the server mid-command.
        case connection
        /// The server answered NO or BAD, or the mailbox changed under the command.
        case server
        /// A change was sent and the connection broke before its answer: it may or may not have
        /// been made.
        case outcomeUnknown
        /// The call was cancelled.
        case cancelled
        /// Anything else.
        case other
    }

    /// What kind of failure.
    public var code: Code
    /// Where it stands for someone running a command.
    public var category: Category
    /// One sentence for a person.
    public var message: String
    /// The query error, for `.query`.
    public var queryError: QueryError?
    /// Whether the server's certificate is not trusted (not expired, not for another host): the
    /// caller may trust its CA (`ClientTLSConfiguration.additionalTrustPEM`; the CLI's
    /// `--ca-file`). The message says what happened, not what to type.
    public var isUntrustedCertificate = false

    /// An error; its category follows from `code` unless given.
    public init(_ code: Code, _ message: String, queryError: QueryError? = nil, category: Category? = nil) {
        self.code = code
        self.message = message
        self.queryError = queryError
        self.category = category ?? Self.category(of: code)
    }

    /// A query that does not parse or compile.
    public init(_ error: QueryError) {
        self.init(.query, error.message, queryError: error)
    }

    /// The service's view of an IMAP failure.
    ///
    /// - Parameter endpoint: `host:port` when the failure ended opening the mailbox (connect,
    ///   greeting, login, select): a server that greets with BYE refused the connection, and the
    ///   message names where it was.
    public init(_ error: IMAPError, openingAt endpoint: String? = nil) {
        let code: Code
        switch error.code {
        case .authentication: code = .authentication
        case .connection, .tls, .bye, .refused, .timeout, .insecure, .unavailable, .outcomeUnknown, .notIMAP:
            code = .connection
        case .cancelled: code = .cancelled
        case .mailboxChanged: code = .mailboxChanged
        case .no: code = .refused
        default: code = .server
        }
        let (category, message) = Self.categorize(error, openingAt: endpoint)
        self.init(code, message, category: category)
        isUntrustedCertificate = error.transportCode == .certificateUntrusted
    }

    /// The same as `message`.
    public var description: String { message }

    /// The category of an error made without an IMAP failure underneath.
    private static func category(of code: Code) -> Category {
        switch code {
        case .query: return .query
        case .authentication: return .authentication
        case .refused, .mailboxChanged: return .server
        case .cancelled: return .cancelled
        case .connection: return .connection
        default: return .other
        }
    }

    /// Transport failures that mean the server was never reached.
    private static let unreachable: Set<TransportError.Code> = [
        .hostNotFound, .connectionRefused, .connectTimeout, .connectionFailed,
    ]

    /// The category of an IMAP failure, and the sentence for it.
    private static func categorize(_ error: IMAPError, openingAt endpoint: String?) -> (Category, String) {
        switch error.code {
        case .tls, .insecure: return (.tls, error.message)
        case .connection:
            if let transport = error.transportCode, unreachable.contains(transport) {
                return (.unreachable, error.message)
            }
            return (.connection, error.message)
        case .notIMAP:
            let place = endpoint ?? "the server"
            return (.notIMAP, "\(place) does not answer like an IMAP server (\(error.message))")
        case .refused:
            // A greeting BYE: the server was reached but will not serve now.
            return (.unreachable, endpoint.map { "\($0): \(error.message)" } ?? error.message)
        case .bye:
            // After the greeting (logging in, opening the mailbox, any command): the session ended.
            return (.connection, endpoint.map { "\($0): \(error.message)" } ?? error.message)
        case .protocolViolation:
            // The server spoke IMAP (it greeted us): the session broke in the middle.
            return (.connection, "the connection broke mid-command: \(error.message)")
        case .unsupported:
            // While opening, only logging in can lack something (no mechanism for the secret).
            return (endpoint == nil ? .server : .authentication, error.message)
        case .authentication: return (.authentication, error.message)
        case .timeout: return (.connection, error.message)
        case .no, .bad, .unavailable, .mailboxChanged: return (.server, error.message)
        case .outcomeUnknown: return (.outcomeUnknown, error.message)
        case .cancelled: return (.cancelled, error.message)
        default: return (.other, error.message)
        }
    }
}
