import IMAPClient
import MailSearch
import Transport

/// Turns a service failure into the exit code and the one line of docs/cli.md, "Exit codes":
/// 69 the server cannot be reached or TLS fails, 77 the login is refused, 75 the server answered
/// NO/BAD or the connection broke mid-command, 65 the query does not parse, 1 anything else.
enum Failures {
    /// Transport failures that mean the server was never reached.
    static let unreachable: Set<TransportError.Code> = [
        .hostNotFound, .connectionRefused, .connectTimeout, .connectionFailed,
    ]

    /// A failure while connecting, logging in and opening the mailbox. A server that greets with
    /// BYE or with bytes that are not IMAP cannot be used: 69.
    static func connecting(_ error: MailServiceError, settings: AccountSettings) -> CommandFailure {
        if let imap = error.underlying {
            let endpoint = "\(settings.host):\(settings.port.map(String.init) ?? "the default port")"
            switch imap.code {
            case .bye:
                return CommandFailure("\(endpoint): \(imap.message)", exitCode: .serverUnavailable)
            case .protocolViolation:
                return CommandFailure(
                    "\(endpoint) does not answer like an IMAP server (\(imap.message)); is this an IMAP port? "
                        + "(993 for --tls implicit, 143 for --tls starttls)",
                    exitCode: .serverUnavailable)
            case .unsupported:
                return CommandFailure(imap.message, exitCode: .loginRefused)
            default: break
            }
        }
        return working(error)
    }

    /// A failure of a command on an open mailbox (or of opening it, see `connecting`).
    static func working(_ error: MailServiceError) -> CommandFailure {
        CommandFailure(error.message, exitCode: exitCode(error))
    }

    /// The exit code for `error`.
    static func exitCode(_ error: MailServiceError) -> ExitCode {
        switch error.code {
        case .query: return .queryError
        case .authentication: return .loginRefused
        case .refused, .mailboxChanged: return .temporaryFailure
        case .cancelled: return .failure
        default: break
        }
        guard let imap = error.underlying else {
            return error.code == .connection ? .temporaryFailure : .failure
        }
        switch imap.code {
        case .tls, .insecure: return .serverUnavailable
        case .connection:
            if let transport = imap.transportCode, unreachable.contains(transport) { return .serverUnavailable }
            return .temporaryFailure
        case .authentication: return .loginRefused
        case .timeout, .bye, .no, .bad, .unavailable, .protocolViolation, .mailboxChanged, .unsupported,
            .outcomeUnknown:
            return .temporaryFailure
        default: return .failure
        }
    }
}
