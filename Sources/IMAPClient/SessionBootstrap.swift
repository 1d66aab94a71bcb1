import IMAPCore
import Transport

/// The part of a session before the reader task starts: connect, greeting, STARTTLS. It reads
/// responses directly, so nothing the server sent before the TLS handshake can be processed
/// afterwards.
enum SessionBootstrap {
    static func connect(_ configuration: IMAPConfiguration) async throws(IMAPError) -> IMAPSession {
        let logger = configuration.logger
        let security: ClientSecurity
        switch configuration.security {
        case .implicitTLS(let tls): security = .tls(tls)
        case .startTLS, .plainTextOnLoopback: security = .plainText
        }
        if case .plainTextOnLoopback = configuration.security, !isLoopbackName(configuration.host) {
            throw IMAPError(
                .insecure,
                "refusing a plain-text connection to \(configuration.host): plain text is allowed only to 127.0.0.1, ::1 or localhost; use TLS"
            )
        }
        let connection: NetworkConnection
        do {
            connection = try await NetworkConnection.connect(
                host: configuration.host, port: configuration.port, security: security,
                timeouts: ConnectionTimeouts(
                    connect: configuration.timeouts.connect, tlsHandshake: configuration.timeouts.tlsHandshake))
        } catch {
            throw IMAPError(error)
        }
        if case .plainTextOnLoopback = configuration.security, !connection.peerIsLoopback {
            connection.close()
            throw IMAPError(
                .insecure, "refusing plain text: \(configuration.host) did not resolve to a loopback address; use TLS")
        }
        logger.debug("connected to \(configuration.host):\(configuration.port)")
        var reader = DirectReader(connection: connection, timeout: configuration.timeouts.greeting, logger: logger)
        do throws(IMAPError) {
            let greeting = try await reader.next()
            var capabilities: Set<Capability> = []
            var authenticated = false
            switch greeting {
            case .untagged(.condition(.ok, let text)):
                if case .capability(let list)? = text.code { capabilities = Set(list) }
            case .untagged(.condition(.preauth, let text)):
                if case .startTLS = configuration.security {
                    throw IMAPError(
                        .insecure,
                        "the server skipped login on an unencrypted connection (PREAUTH), so STARTTLS is impossible; use implicit TLS"
                    )
                }
                authenticated = true
                if case .capability(let list)? = text.code { capabilities = Set(list) }
            case .untagged(.condition(.bye, let text)):
                throw IMAPError(
                    .refused, "the server refused the connection: \(text.text.string)", serverText: text.text.string)
            default:
                throw IMAPError(
                    .protocolViolation, "the server did not greet with OK, PREAUTH or BYE; is this an IMAP port?")
            }
            if case .startTLS(let tls) = configuration.security {
                if capabilities.isEmpty { capabilities = try await reader.capabilities(tag: "S0") }
                guard capabilities.contains(.startTLS) else {
                    throw IMAPError(
                        .insecure, "the server does not offer STARTTLS; use implicit TLS (port 993) instead")
                }
                try await reader.write("S1 STARTTLS")
                let tagged = try await reader.tagged("S1")
                guard tagged.status == .ok else {
                    throw IMAPError(.tls, "the server refused STARTTLS: \(tagged.text.text.string)")
                }
                // Anything after the OK came before TLS: throw it away unread.
                let discarded = reader.parser.discardBufferedBytes()
                if discarded > 0 { logger.warning("discarded \(discarded) bytes sent before the TLS handshake") }
                do {
                    try await connection.startTLS(tls, serverName: configuration.host)
                } catch {
                    throw IMAPError(error)
                }
                capabilities = try await reader.capabilities(tag: "S2")
            } else if capabilities.isEmpty {
                capabilities = try await reader.capabilities(tag: "S0")
            }
            let session = IMAPSession(
                configuration: configuration, connection: connection, parser: reader.parser, capabilities: capabilities,
                authenticated: authenticated)
            await session.start()
            return session
        } catch {
            connection.close()
            // Before login, bytes that are not IMAP mean no IMAP server answered.
            guard error.code == .protocolViolation else { throw error }
            throw IMAPError(.notIMAP, error.message)
        }
    }

    static func isLoopbackName(_ host: String) -> Bool {
        let lowered = host.lowercased()
        return lowered == "localhost" || lowered == "::1" || lowered == "[::1]" || lowered.hasPrefix("127.")
    }
}

/// Reads responses straight from the connection (no reader task yet), tracing them as the
/// session's reader does: a person debugging needs the greeting and the capabilities it
/// announces before anything else.
struct DirectReader {
    let connection: NetworkConnection
    let timeout: Duration
    let logger: Logger
    var parser = ResponseParser()

    init(connection: NetworkConnection, timeout: Duration, logger: Logger) {
        self.connection = connection
        self.timeout = timeout
        self.logger = logger
    }

    mutating func next() async throws(IMAPError) -> Response {
        while true {
            do {
                if let response = try parser.next() {
                    if logger.isEnabled(.trace) { logger.trace("S: \(IMAPSession.summary(of: response))") }
                    return response
                }
            } catch {
                throw IMAPError(error)
            }
            do {
                parser.append(try await connection.read(timeout: timeout))
            } catch {
                throw IMAPError(error)
            }
        }
    }

    /// Writes one command line (no secret is ever sent before the session starts).
    mutating func write(_ line: String) async throws(IMAPError) {
        logger.trace("C: \(line)")
        do {
            try await connection.write(Array((line + "\r\n").utf8))
        } catch {
            throw IMAPError(error)
        }
    }

    /// Reads until the tagged response of `tag`, ignoring untagged data.
    mutating func tagged(_ tag: String) async throws(IMAPError) -> TaggedResponse {
        while true {
            let response = try await next()
            if case .tagged(let tagged) = response, tagged.tag == tag { return tagged }
            if case .untagged(.condition(.bye, let text)) = response {
                throw IMAPError(
                    .bye, "the server closed the session: \(text.text.string)", serverText: text.text.string)
            }
        }
    }

    mutating func capabilities(tag: String) async throws(IMAPError) -> Set<Capability> {
        try await write("\(tag) CAPABILITY")
        var result: Set<Capability> = []
        while true {
            let response = try await next()
            switch response {
            case .untagged(.capability(let list)): result = Set(list)
            case .tagged(let tagged) where tagged.tag == tag:
                guard tagged.status == .ok else {
                    throw IMAPError(.bad, "the server refused CAPABILITY: \(tagged.text.text.string)")
                }
                return result
            default: continue
            }
        }
    }
}
