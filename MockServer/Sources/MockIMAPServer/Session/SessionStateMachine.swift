package import IMAPCore
import MailMIME

/// The protocol state of one connection (RFC 3501 3): not authenticated, authenticated,
/// selected, logout; with STARTTLS, the SASL exchange of AUTHENTICATE, and IDLE.
///
/// It does no I/O. The connection driver feeds it events (a parsed command, a SASL line, DONE,
/// a parse error, the result of a credential check, silence) and performs the `Action` it
/// returns; mailbox commands come back as `.execute`, which `MailboxSession` runs.
///
/// ```
/// var machine = SessionStateMachine(settings: settings, isTLS: false)
/// machine.connected()                                  // .send([* OK [CAPABILITY ...] ready])
/// machine.commandReceived(TaggedCommand(tag: "a1", command: .startTLS))   // .startTLS(a1 OK ...)
/// ```
package struct SessionStateMachine: Sendable {
    /// What the machine is told about its connection and server.
    package struct Settings: Sendable {
        /// Which capabilities are announced and which extension commands are accepted.
        package var profile: Profile
        /// A plain-text listener, where STARTTLS is offered.
        package var offersStartTLS: Bool
        /// Whether credentials are accepted before STARTTLS on plain text.
        package var allowPlainTextAuthentication: Bool
        /// How long a connection may stay silent before it logs in.
        package var loginTimeout: Duration
        /// How long a logged-in connection may stay silent.
        package var autologoutTimeout: Duration
        /// Limits on what a logged-in client may send.
        package var limits: ParserOptions
        /// The largest literal a client may send before it logs in.
        package var maximumLiteralSizeBeforeLogin: Int

        /// Settings for one connection.
        package init(
            profile: Profile, offersStartTLS: Bool, allowPlainTextAuthentication: Bool = false,
            loginTimeout: Duration = .seconds(60), autologoutTimeout: Duration = .seconds(1800),
            limits: ParserOptions = ParserOptions(), maximumLiteralSizeBeforeLogin: Int = 8 * 1024
        ) {
            self.profile = profile
            self.offersStartTLS = offersStartTLS
            self.allowPlainTextAuthentication = allowPlainTextAuthentication
            self.loginTimeout = loginTimeout
            self.autologoutTimeout = autologoutTimeout
            self.limits = limits
            self.maximumLiteralSizeBeforeLogin = maximumLiteralSizeBeforeLogin
        }
    }

    /// The selected mailbox.
    package struct Selection: Hashable, Sendable {
        /// The mailbox's wire name.
        package var mailbox: String
        /// Opened with EXAMINE.
        package var isReadOnly: Bool

        /// The selection of `mailbox`.
        package init(mailbox: String, isReadOnly: Bool) {
            self.mailbox = mailbox
            self.isReadOnly = isReadOnly
        }
    }

    /// A SASL mechanism this server speaks.
    package enum Mechanism: String, Hashable, Sendable {
        case plain = "PLAIN"
        case xoauth2 = "XOAUTH2"
    }

    /// Where the session is (RFC 3501 3).
    package enum State: Hashable, Sendable {
        /// Connected, greeting not sent yet.
        case connected
        case notAuthenticated
        /// `OK Begin TLS` sent, handshake running.
        case startingTLS
        /// AUTHENTICATE sent `+`; the next line is a SASL answer. After a failed XOAUTH2 the
        /// server has sent its error challenge and waits for the client's empty answer.
        case authenticating(tag: String, mechanism: Mechanism, failed: Bool)
        /// Credentials handed to the driver to check (LOGIN has no mechanism).
        case verifying(tag: String, mechanism: Mechanism?)
        case authenticated(user: String, selection: Selection?)
        /// IDLE accepted; only DONE ends it.
        case idling(tag: String, user: String, selection: Selection?)
        case loggedOut
    }

    /// What the driver does next.
    package enum Action: Hashable, Sendable {
        case none
        /// Write the responses.
        case send([Response])
        /// Write the responses, then close the connection.
        case close([Response])
        /// Write the response and begin the TLS handshake with no read in between; then report
        /// `tlsStarted()` or `tlsFailed()`.
        case startTLS(Response)
        /// Check a password (LOGIN, AUTHENTICATE PLAIN); then report `credentialsChecked`.
        case verifyPassword(tag: String, user: String, password: String)
        /// Check an OAuth 2 token (AUTHENTICATE XOAUTH2); then report `credentialsChecked`.
        case verifyToken(tag: String, user: String, token: String)
        /// Run a mailbox command with `MailboxSession`, write its responses, then report
        /// `executed(selection:closesConnection:)`.
        case execute(TaggedCommand)
        /// Write `prefix`, then what changed in the selected mailbox (IDLE).
        case reportUpdates(prefix: [Response])
    }

    /// What the machine was told about its connection and server.
    package let settings: Settings
    /// The current state.
    package private(set) var state: State = .connected
    /// TLS protects the connection (implicit TLS, or after STARTTLS).
    package private(set) var isTLS: Bool

    /// A machine for a new connection, protected by TLS from the start when `isTLS`.
    package init(settings: Settings, isTLS: Bool) {
        self.settings = settings
        self.isTLS = isTLS
    }

    /// How the command parser must read the next line.
    package var parserMode: CommandParser.Mode {
        switch state {
        case .authenticating: return .authentication
        case .idling: return .idle
        case .connected, .notAuthenticated, .startingTLS, .verifying, .authenticated, .loggedOut: return .command
        }
    }

    /// The limits the command parser must apply to the next command: before login a literal
    /// may be at most `maximumLiteralSizeBeforeLogin` and a whole command at most 64 KiB, so a
    /// client that has not authenticated cannot make the server hold megabytes.
    package var parserOptions: ParserOptions {
        switch state {
        case .connected, .notAuthenticated, .startingTLS, .authenticating, .verifying:
            var options = settings.limits
            options.maximumLiteralSize = min(options.maximumLiteralSize, settings.maximumLiteralSizeBeforeLogin)
            options.maximumFrameSize = min(options.maximumFrameSize, Self.maximumCommandSizeBeforeLogin)
            return options
        case .authenticated, .idling, .loggedOut:
            return settings.limits
        }
    }

    /// The largest whole command before login: a LOGIN with two literals at the literal limit, or
    /// an AUTHENTICATE initial response, fits many times over.
    package static let maximumCommandSizeBeforeLogin = 64 * 1024

    /// Whether the client has not logged in yet.
    private var isBeforeLogin: Bool {
        switch state {
        case .connected, .notAuthenticated, .startingTLS, .authenticating, .verifying: return true
        case .authenticated, .idling, .loggedOut: return false
        }
    }

    /// The logged-in user, if any.
    package var user: String? {
        switch state {
        case .authenticated(let user, _), .idling(_, let user, _): return user
        case .connected, .notAuthenticated, .startingTLS, .authenticating, .verifying, .loggedOut: return nil
        }
    }

    /// Whether a password may be sent now: over TLS, or when plain text is allowed.
    package var acceptsCredentials: Bool { isTLS || settings.allowPlainTextAuthentication }

    /// The capabilities to announce in the current state: before login STARTTLS (on plain text),
    /// and AUTH= mechanisms or LOGINDISABLED (RFC 3501 6.2.3, 7.2.1).
    package var capabilities: [Capability] {
        var list = settings.profile.capabilities
        switch state {
        case .connected, .notAuthenticated, .startingTLS, .authenticating, .verifying:
            if settings.offersStartTLS && !isTLS { list.append(.startTLS) }
            if acceptsCredentials {
                list += settings.profile.authenticationMechanisms.map { Capability.auth($0) }
            } else {
                list.append(.loginDisabled)
            }
        case .authenticated, .idling, .loggedOut:
            break
        }
        return list
    }

    // MARK: - Events

    /// The connection is open: greet.
    package mutating func connected() -> Action {
        guard case .connected = state else { return .none }
        state = .notAuthenticated
        return .send([Self.untagged(.ok, "MockIMAPServer ready", code: .capability(capabilities))])
    }

    /// A command used non-synchronizing literals the announced capabilities do not allow
    /// (RFC 7888): refused, its literals already read and thrown away.
    package func literalRuleBroken(tag: String, _ violation: LiteralRules.Violation) -> Action {
        if case .loggedOut = state { return .none }
        switch violation {
        case .notAnnounced:
            return .send([Self.bad(tag, violation.reason)])
        case .tooLarge:
            return .send([Self.tagged(tag, .bad, violation.reason, code: .other(name: "TOOBIG", value: nil))])
        }
    }

    /// The client announced a synchronizing literal and waits for `+`.
    package func literalAnnounced(size: Int) -> Action {
        if case .loggedOut = state { return .none }
        return .send([.continuation(ContinuationRequest(text: "Ready for literal data"))])
    }

    /// A complete command arrived.
    package mutating func commandReceived(_ tagged: TaggedCommand) -> Action {
        let tag = tagged.tag
        let command = tagged.command
        let user: String
        let selection: Selection?
        switch state {
        case .notAuthenticated, .connected:
            return notAuthenticatedCommand(tagged)
        case .authenticated(let current, let selected):
            user = current
            selection = selected
        case .startingTLS, .authenticating, .verifying, .idling, .loggedOut:
            return .none
        }
        if let refusal = settings.profile.refusal(of: command) { return .send([Self.bad(tag, refusal)]) }
        switch command {
        case .capability, .noop, .logout, .id:
            return anyStateCommand(tagged)
        case .startTLS:
            return .send([Self.bad(tag, "STARTTLS is only allowed before logging in")])
        case .login, .authenticate:
            return .send([Self.bad(tag, "already logged in")])
        case .idle:
            state = .idling(tag: tag, user: user, selection: selection)
            return .reportUpdates(prefix: [.continuation(ContinuationRequest(text: "idling"))])
        case .enable, .select, .examine, .create, .delete, .rename, .subscribe, .unsubscribe, .list, .lsub, .status,
            .namespace, .append:
            return .execute(tagged)
        case .check, .close, .unselect, .expunge, .uidExpunge, .search, .uidSearch, .sort, .uidSort, .fetch,
            .uidFetch, .store, .uidStore, .copy, .uidCopy, .move, .uidMove:
            guard selection != nil else {
                return .send([Self.bad(tag, "\(command.name) needs a selected mailbox (SELECT or EXAMINE first)")])
            }
            return .execute(tagged)
        }
    }

    private mutating func notAuthenticatedCommand(_ tagged: TaggedCommand) -> Action {
        let tag = tagged.tag
        let command = tagged.command
        if let refusal = settings.profile.refusal(of: command) { return .send([Self.bad(tag, refusal)]) }
        switch command {
        case .capability, .noop, .logout, .id:
            return anyStateCommand(tagged)
        case .startTLS:
            guard settings.offersStartTLS && !isTLS else {
                return .send([Self.bad(tag, "TLS is already active")])
            }
            state = .startingTLS
            return .startTLS(Self.tagged(tag, .ok, "Begin TLS negotiation now"))
        case .login(let username, let password):
            guard acceptsCredentials else { return .send([Self.privacyRequired(tag)]) }
            state = .verifying(tag: tag, mechanism: nil)
            return .verifyPassword(tag: tag, user: username.string, password: password.string)
        case .authenticate(let name, let initialResponse):
            guard acceptsCredentials else { return .send([Self.privacyRequired(tag)]) }
            guard let mechanism = Mechanism(rawValue: name.uppercased()),
                settings.profile.authenticationMechanisms.contains(mechanism.rawValue)
            else {
                return .send([Self.tagged(tag, .no, "unsupported authentication mechanism \(name)")])
            }
            guard let initialResponse else {
                state = .authenticating(tag: tag, mechanism: mechanism, failed: false)
                return .send([.continuation(ContinuationRequest(text: ""))])
            }
            guard settings.profile.capabilities.contains(.saslIR) else {
                return .send([Self.bad(tag, "an initial response needs SASL-IR, which this server does not announce")])
            }
            return saslAnswer(initialResponse, tag: tag, mechanism: mechanism)
        case .idle, .enable, .select, .examine, .create, .delete, .rename, .subscribe, .unsubscribe, .list, .lsub,
            .status, .namespace, .append, .check, .close, .unselect, .expunge, .uidExpunge, .search, .uidSearch, .sort,
            .uidSort, .fetch, .uidFetch, .store, .uidStore, .copy, .uidCopy, .move, .uidMove:
            return .send([Self.bad(tag, "\(command.name) needs a login first (LOGIN or AUTHENTICATE)")])
        }
    }

    /// CAPABILITY, NOOP, LOGOUT, ID: allowed in every state (RFC 3501 6.1).
    private mutating func anyStateCommand(_ tagged: TaggedCommand) -> Action {
        let tag = tagged.tag
        switch tagged.command {
        case .capability:
            return .send([.untagged(.capability(capabilities)), Self.tagged(tag, .ok, "CAPABILITY completed")])
        case .logout:
            state = .loggedOut
            return .close([
                Self.untagged(.bye, "MockIMAPServer logging out"), Self.tagged(tag, .ok, "LOGOUT completed"),
            ])
        case .id:
            let identity = [
                IDParameter(key: "name", value: "MockIMAPServer"), IDParameter(key: "vendor", value: "MailSearch"),
            ]
            return .send([.untagged(.id(identity)), Self.tagged(tag, .ok, "ID completed")])
        case .noop:
            // When logged in, the mailbox session reports changes.
            if user != nil { return .execute(tagged) }
            return .send([Self.tagged(tag, .ok, "NOOP completed")])
        case .startTLS, .login, .authenticate, .enable, .select, .examine, .create, .delete, .rename, .subscribe,
            .unsubscribe, .list, .lsub, .status, .namespace, .close, .unselect, .expunge, .uidExpunge, .append, .check,
            .search, .uidSearch, .sort, .uidSort, .fetch, .uidFetch, .store, .uidStore, .copy, .uidCopy, .move,
            .uidMove, .idle:
            return .send([Self.bad(tag, "\(tagged.command.name) is not a command of every state")])
        }
    }

    /// A line of the SASL exchange: base64, or `*` to cancel (RFC 3501 6.2.2).
    package mutating func authenticationResponse(_ line: ByteString) -> Action {
        guard case .authenticating(let tag, let mechanism, let failed) = state else { return .none }
        if line == "*" {
            state = .notAuthenticated
            return .send([Self.bad(tag, "authentication cancelled")])
        }
        if failed {
            state = .notAuthenticated
            return .send([Self.authenticationFailed(tag)])
        }
        return saslAnswer(line, tag: tag, mechanism: mechanism)
    }

    private mutating func saslAnswer(_ base64: ByteString, tag: String, mechanism: Mechanism) -> Action {
        guard let decoded = base64.isEmpty ? [] : Base64.decode(validating: base64.bytes) else {
            state = .notAuthenticated
            return .send([Self.bad(tag, "the SASL answer is not valid base64")])
        }
        switch mechanism {
        case .plain:
            // message = [authzid] UTF8NUL authcid UTF8NUL passwd   (RFC 4616)
            let parts = decoded.split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            guard parts.count == 3 else {
                state = .notAuthenticated
                return .send([Self.bad(tag, "a PLAIN answer is authzid NUL authcid NUL password")])
            }
            guard parts[0].isEmpty || parts[0] == parts[1] else {
                state = .notAuthenticated
                return .send([
                    Self.tagged(
                        tag, .no, "cannot act as another user", code: .other(name: "AUTHORIZATIONFAILED", value: nil))
                ])
            }
            state = .verifying(tag: tag, mechanism: .plain)
            return .verifyPassword(tag: tag, user: parts[1], password: parts[2])
        case .xoauth2:
            // "user=" user ^A "auth=Bearer " token ^A ^A
            var user: String?
            var token: String?
            for field in decoded.split(separator: 1) {
                let text = String(decoding: field, as: UTF8.self)
                if text.hasPrefix("user=") { user = String(text.dropFirst(5)) }
                if text.lowercased().hasPrefix("auth=bearer ") { token = String(text.dropFirst(12)) }
            }
            guard let user, let token else {
                state = .notAuthenticated
                return .send([Self.bad(tag, "an XOAUTH2 answer is user=... ^A auth=Bearer ... ^A ^A")])
            }
            state = .verifying(tag: tag, mechanism: .xoauth2)
            return .verifyToken(tag: tag, user: user, token: token)
        }
    }

    /// The driver checked the credentials of `.verifyPassword` or `.verifyToken`.
    package mutating func credentialsChecked(user: String, accepted: Bool) -> Action {
        guard case .verifying(let tag, let mechanism) = state else { return .none }
        guard accepted else {
            if mechanism == .xoauth2 {
                // Like Gmail: an error challenge first, the NO after the client's empty answer.
                state = .authenticating(tag: tag, mechanism: .xoauth2, failed: true)
                let error = #"{"status":"401","schemes":"Bearer","scope":"https://mail.google.com/"}"#
                return .send([.continuation(ContinuationRequest(text: ByteString(Base64.encode(Array(error.utf8)))))])
            }
            state = .notAuthenticated
            return .send([Self.authenticationFailed(tag)])
        }
        state = .authenticated(user: user, selection: nil)
        return .send([Self.tagged(tag, .ok, "Logged in", code: .capability(capabilities))])
    }

    /// DONE ended IDLE.
    package mutating func idleDone() -> Action {
        guard case .idling(let tag, let user, let selection) = state else { return .none }
        state = .authenticated(user: user, selection: selection)
        return .send([Self.tagged(tag, .ok, "IDLE terminated")])
    }

    /// The parser refused a command (grammar, limit, unknown name). The session goes on, except
    /// before login when `literalFollows`: the client is sending a literal over the limit without
    /// waiting for `+`, and rather than read it the server says BYE and closes.
    ///
    /// ```
    /// C: a LOGIN {52428800}        S: a BAD literal too large before login: ...   (no "+")
    /// C: b LOGIN {52428800+}       S: * BYE ...                                   (closed)
    /// ```
    package mutating func parseFailed(_ error: CommandParseError, literalFollows: Bool = false) -> Action {
        var reason = Self.reason(error)
        if isBeforeLogin && (error.code == .literalTooLarge || error.code == .frameTooLarge) {
            if literalFollows {
                state = .loggedOut
                return .close([
                    Self.untagged(
                        .bye, "Too much data before login: \(error.message); log in first, or send less")
                ])
            }
            reason =
                "\(error.code == .literalTooLarge ? "literal" : "command") too large before login: \(error.message)"
        }
        switch state {
        case .authenticating(let tag, _, _):
            state = .notAuthenticated
            return .send([Self.bad(tag, reason)])
        case .idling:
            // Only DONE ends IDLE (RFC 2177): anything else is refused and the session idles on.
            return .send([Self.untagged(.bad, "expected DONE to end IDLE")])
        case .loggedOut:
            return .none
        case .connected, .notAuthenticated, .startingTLS, .verifying, .authenticated:
            guard let tag = error.tag else { return .send([Self.untagged(.bad, reason)]) }
            return .send([Self.bad(tag, reason)])
        }
    }

    /// The mailbox session ran a command; `selection` is what is selected now.
    package mutating func executed(selection: Selection?, closesConnection: Bool) {
        guard case .authenticated(let user, _) = state else { return }
        state = closesConnection ? .loggedOut : .authenticated(user: user, selection: selection)
    }

    /// The TLS handshake after STARTTLS finished.
    package mutating func tlsStarted() {
        guard case .startingTLS = state else { return }
        isTLS = true
        state = .notAuthenticated
    }

    /// The TLS handshake after STARTTLS failed: nothing more can be said safely.
    package mutating func tlsFailed() -> Action {
        state = .loggedOut
        return .close([])
    }

    /// The selected mailbox changed (another session or the test API).
    package func mailboxChanged() -> Action {
        guard case .idling = state else { return .none }
        return .reportUpdates(prefix: [])
    }

    /// Nothing arrived for `elapsed`: close a connection that has not logged in within the login
    /// timeout, or a logged-in one silent for the autologout timeout (RFC 3501 5.4), with BYE.
    package mutating func silence(for elapsed: Duration) -> Action {
        switch state {
        case .connected, .notAuthenticated, .startingTLS, .authenticating, .verifying:
            guard elapsed >= settings.loginTimeout else { return .none }
        case .authenticated, .idling:
            guard elapsed >= settings.autologoutTimeout else { return .none }
        case .loggedOut:
            return .none
        }
        state = .loggedOut
        return .close([Self.untagged(.bye, "Autologout; idle for too long")])
    }

    /// The peer closed the connection.
    package mutating func connectionClosed() {
        state = .loggedOut
    }

    // MARK: - Responses

    /// `tag status [code] text`.
    package static func tagged(
        _ tag: String, _ status: ResponseStatus, _ text: String, code: ResponseCode? = nil
    ) -> Response {
        .tagged(TaggedResponse(tag: tag, status: status, text: ResponseText(code: code, text: ByteString(text))))
    }

    /// `tag BAD text`.
    package static func bad(_ tag: String, _ text: String) -> Response { tagged(tag, .bad, text) }

    /// `* status [code] text`.
    package static func untagged(_ status: UntaggedStatus, _ text: String, code: ResponseCode? = nil) -> Response {
        .untagged(.condition(status, ResponseText(code: code, text: ByteString(text))))
    }

    /// `tag NO [AUTHENTICATIONFAILED] Authentication failed`.
    package static func authenticationFailed(_ tag: String) -> Response {
        tagged(tag, .no, "Authentication failed", code: .authenticationFailed)
    }

    /// `tag NO [PRIVACYREQUIRED] ...`: no credentials over plain text.
    package static func privacyRequired(_ tag: String) -> Response {
        tagged(
            tag, .no, "Plain-text login is disabled on an unencrypted connection; use STARTTLS first",
            code: .other(name: "PRIVACYREQUIRED", value: nil))
    }

    /// The text of a BAD for a parse error: which rule or limit was broken.
    package static func reason(_ error: CommandParseError) -> String {
        switch error.code {
        case .lineTooLong: return "line too long: \(error.message)"
        case .literalTooLarge: return "literal too large: \(error.message)"
        case .frameTooLarge: return "command too large: \(error.message)"
        case .nestingTooDeep: return "too deeply nested: \(error.message)"
        case .unknownCommand: return error.message
        default: return "syntax error: \(error.message)"
        }
    }
}
