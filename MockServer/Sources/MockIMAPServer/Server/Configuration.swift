public import IMAPCore
import Transport

extension MockIMAPServer {
    /// Everything a server starts with: where it listens, its certificate, which capabilities it
    /// announces, its users, and its limits.
    ///
    /// ```swift
    /// let server = try await MockIMAPServer.start(.init(
    ///     listeners: [.plain(port: 0), .implicitTLS(port: 0)],
    ///     tls: .selfSigned(hosts: ["localhost", "127.0.0.1"]),
    ///     profile: .full,
    ///     users: [.init("alice", password: "secret")]))
    /// ```
    public struct Configuration: Sendable {
        /// The sockets to listen on.
        public var listeners: [Listener]
        /// The certificate for implicit TLS and STARTTLS.
        public var tls: TLSSource
        /// Which capabilities are announced (and which extension commands are accepted).
        public var profile: Profile
        /// The accounts; each gets `defaultMailboxes`.
        public var users: [User]
        /// The mailboxes every user starts with.
        public var defaultMailboxes: [MailboxDefinition]
        /// Whether LOGIN and AUTHENTICATE work before STARTTLS on a plain-text listener. Off by
        /// default: plain text then announces LOGINDISABLED and no AUTH= mechanism (RFC 3501 6.2.3).
        public var allowPlainTextAuthentication: Bool
        /// How long a connection that has not logged in may stay silent before it gets
        /// `* BYE` and is closed.
        public var loginTimeout: Duration
        /// How long a logged-in connection may stay silent (RFC 3501 5.4: at least 30 minutes).
        public var autologoutTimeout: Duration
        /// Limits on what a client may send: line length, literal size.
        public var limits: ParserOptions
        /// The largest literal a client may send before it logs in (8 KiB by default: a user
        /// name and a password fit). Over it, a synchronizing literal `{n}` gets `tag BAD`
        /// instead of `+`, and a non-synchronizing one `{n+}` gets `* BYE` and the connection
        /// is closed; a whole command before login is at most 64 KiB.
        public var maximumLiteralSizeBeforeLogin: Int
        /// The most connections served at once (100 by default); one more gets `* BYE` and is
        /// closed.
        public var maximumConnections: Int
        /// Whether each session keeps a transcript (client and server lines, credentials
        /// replaced by `***`).
        public var recordsTranscripts: Bool
        /// The faults the server starts with (none by default); `MockIMAPServer.faults` changes
        /// them while it runs.
        public var faults: FaultPlan

        /// A configuration; by default one plain-text and one implicit-TLS listener on free
        /// loopback ports, a fresh self-signed certificate for localhost and 127.0.0.1, the `full`
        /// profile, 64 KiB lines and 50 MiB literals (8 KiB before login), at most 100 connections.
        public init(
            listeners: [Listener] = [.plain(), .implicitTLS()],
            tls: TLSSource = .selfSigned(hosts: ["localhost", "127.0.0.1"]),
            profile: Profile = .full,
            users: [User] = [],
            defaultMailboxes: [MailboxDefinition] = MailboxDefinition.standard,
            allowPlainTextAuthentication: Bool = false,
            loginTimeout: Duration = .seconds(60),
            autologoutTimeout: Duration = .seconds(30 * 60),
            limits: ParserOptions = ParserOptions(maximumLineLength: 64 * 1024, maximumLiteralSize: 50 << 20),
            maximumLiteralSizeBeforeLogin: Int = 8 * 1024,
            maximumConnections: Int = 100,
            recordsTranscripts: Bool = true,
            faults: FaultPlan = []
        ) {
            self.listeners = listeners
            self.tls = tls
            self.profile = profile
            self.users = users
            self.defaultMailboxes = defaultMailboxes
            self.allowPlainTextAuthentication = allowPlainTextAuthentication
            self.loginTimeout = loginTimeout
            self.autologoutTimeout = autologoutTimeout
            self.limits = limits
            self.maximumLiteralSizeBeforeLogin = maximumLiteralSizeBeforeLogin
            self.maximumConnections = maximumConnections
            self.recordsTranscripts = recordsTranscripts
            self.faults = faults
        }
    }

    /// A socket to listen on.
    public struct Listener: Hashable, Sendable {
        /// Plain text (STARTTLS available) or TLS from the first byte.
        public enum Kind: Hashable, Sendable {
            /// Plain text, with STARTTLS (like port 143).
            case plain
            /// TLS from the first byte (like port 993).
            case implicitTLS
        }

        /// The kind of listener.
        public var kind: Kind
        /// The address to listen on.
        public var host: String
        /// The port; 0 picks a free one (see `MockIMAPServer.port(for:)`).
        public var port: Int

        /// A listener of `kind` on `host:port`.
        public init(_ kind: Kind, host: String = "127.0.0.1", port: Int = 0) {
            self.kind = kind
            self.host = host
            self.port = port
        }

        /// A plain-text listener (STARTTLS available).
        public static func plain(host: String = "127.0.0.1", port: Int = 0) -> Listener {
            Listener(.plain, host: host, port: port)
        }

        /// An implicit-TLS listener.
        public static func implicitTLS(host: String = "127.0.0.1", port: Int = 0) -> Listener {
            Listener(.implicitTLS, host: host, port: port)
        }
    }

    /// Where the server's certificate comes from.
    public enum TLSSource: Hashable, Sendable {
        /// A P-256 key and self-signed certificate made at start for these DNS names and IP
        /// addresses; its PEM is `MockIMAPServer.certificatePEM`.
        case selfSigned(hosts: [String])
        /// A certificate chain and private key, PEM.
        case pem(certificate: [UInt8], key: [UInt8])
    }

    /// An account: its name and what it can log in with.
    public struct User: Hashable, Sendable {
        /// The login name.
        public var name: String
        /// The password for LOGIN and AUTHENTICATE PLAIN, or nil for none.
        public var password: String?
        /// The OAuth 2 access token AUTHENTICATE XOAUTH2 accepts, or nil for none.
        public var oauth2Token: String?

        /// A user `name` with a password and/or a token.
        public init(_ name: String, password: String? = nil, oauth2Token: String? = nil) {
            self.name = name
            self.password = password
            self.oauth2Token = oauth2Token
        }
    }
}

/// A special-use attribute of a mailbox (RFC 6154), shown in LIST.
public enum SpecialUse: String, Hashable, Sendable, CaseIterable {
    /// `\All`.
    case all = "\\All"
    /// `\Archive`.
    case archive = "\\Archive"
    /// `\Drafts`.
    case drafts = "\\Drafts"
    /// `\Flagged`.
    case flagged = "\\Flagged"
    /// `\Junk`.
    case junk = "\\Junk"
    /// `\Sent`.
    case sent = "\\Sent"
    /// `\Trash`.
    case trash = "\\Trash"
}

/// A mailbox to create: its name (as people see it; `/` separates levels) and special use.
public struct MailboxDefinition: Hashable, Sendable {
    /// The name, with `/` between hierarchy levels.
    public var name: String
    /// The special-use attribute, if any.
    public var specialUse: SpecialUse?

    /// A mailbox `name` with an optional special use.
    public init(_ name: String, specialUse: SpecialUse? = nil) {
        self.name = name
        self.specialUse = specialUse
    }

    /// INBOX, Sent, Drafts, Trash, Junk and Archive, with their special uses.
    public static let standard: [MailboxDefinition] = [
        MailboxDefinition("INBOX"), MailboxDefinition("Sent", specialUse: .sent),
        MailboxDefinition("Drafts", specialUse: .drafts), MailboxDefinition("Trash", specialUse: .trash),
        MailboxDefinition("Junk", specialUse: .junk), MailboxDefinition("Archive", specialUse: .archive),
    ]
}
