import MailSearch

/// Turns a service failure into the exit code and the one line of docs/cli.md, "Exit codes":
/// 69 the server cannot be reached or TLS fails, 77 the login is refused, 75 the server answered
/// NO/BAD or the connection broke mid-command, 65 the query does not parse, 1 anything else.
/// The service has sorted the failure into its category; this only maps categories to codes.
enum Failures {
    /// A failure while connecting, logging in and opening the mailbox.
    static func connecting(_ error: MailServiceError) -> CommandFailure {
        guard error.category == .notIMAP else { return working(error) }
        return CommandFailure(
            "\(error.message); is this an IMAP port? (993 for --tls implicit, 143 for --tls starttls)",
            exitCode: exitCode(error.category))
    }

    /// A failure of a command on an open mailbox (or of opening it, see `connecting`).
    static func working(_ error: MailServiceError) -> CommandFailure {
        // The library says what happened; what to type is the command line's to add.
        let advice = error.isUntrustedCertificate ? "; pass --ca-file with its CA, or check the host name" : ""
        return CommandFailure(error.message + advice, exitCode: exitCode(error.category))
    }

    /// The exit code for a category of failure.
    static func exitCode(_ category: MailServiceError.Category) -> ExitCode {
        switch category {
        case .usage: return .usageError
        case .query: return .queryError
        case .unreachable, .notIMAP, .tls: return .serverUnavailable
        case .authentication: return .loginRefused
        case .connection, .server, .outcomeUnknown: return .temporaryFailure
        case .cancelled, .other: return .failure
        }
    }
}
