// libc: errno values and strerror, for the message of a failed call.
#if canImport(Glibc)
import Glibc
#endif

/// A failure of the network or TLS layer, with a sentence that says what happened.
///
/// `code` lets a caller branch (`error.code == .certificateUntrusted`); `message` is for people:
/// "the certificate of imap.example.com is not trusted (self-signed certificate)". What to do
/// about it is the caller's to say (the CLI adds "pass --ca-file with its CA").
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure. New codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The host name did not resolve.
        public static let hostNotFound = Code("hostNotFound")
        /// Every address refused the connection.
        public static let connectionRefused = Code("connectionRefused")
        /// Connecting took longer than the connect timeout.
        public static let connectTimeout = Code("connectTimeout")
        /// Connecting failed for another reason (unreachable network, ...).
        public static let connectionFailed = Code("connectionFailed")
        /// The peer closed the connection.
        public static let connectionClosed = Code("connectionClosed")
        /// The connection broke (reset, broken pipe).
        public static let connectionReset = Code("connectionReset")
        /// Nothing arrived within the read timeout.
        public static let readTimeout = Code("readTimeout")
        /// The TLS handshake took longer than its timeout.
        public static let handshakeTimeout = Code("handshakeTimeout")
        /// The certificate chain does not lead to a trusted CA (unknown CA or self-signed).
        public static let certificateUntrusted = Code("certificateUntrusted")
        /// The certificate has expired or is not yet valid.
        public static let certificateExpired = Code("certificateExpired")
        /// The certificate is for another host name.
        public static let hostNameMismatch = Code("hostNameMismatch")
        /// The peer does not speak TLS on this port.
        public static let notTLS = Code("notTLS")
        /// The TLS handshake failed for another reason.
        public static let handshakeFailed = Code("handshakeFailed")
        /// A certificate, key or trust file could not be used.
        public static let tlsConfiguration = Code("tlsConfiguration")
        /// Listening on a port failed.
        public static let listenFailed = Code("listenFailed")
        /// The operation was cancelled, or the connection was closed by this side.
        public static let cancelled = Code("cancelled")
        /// A system call failed unexpectedly.
        public static let systemCallFailed = Code("systemCallFailed")
    }

    /// The kind of failure.
    public let code: Code
    /// One sentence: what happened and what to do.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func system(_ call: String, _ number: Int32) -> TransportError {
        switch number {
        case ECONNRESET, EPIPE:
            return TransportError(.connectionReset, "the connection was reset by the other side (\(call))")
        case ECONNREFUSED:
            return TransportError(.connectionRefused, "the connection was refused")
        default:
            return TransportError(.systemCallFailed, "\(call) failed: \(String(cString: strerror(number)))")
        }
    }
}

/// "30 seconds", "0.5 seconds": a timeout for a message.
func describe(_ duration: Duration?) -> String {
    guard let duration else { return "a while" }
    return duration.spokenSeconds
}

extension Duration {
    /// "30 seconds", "1 second", "0.5 seconds": for messages people read.
    package var spokenSeconds: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        if seconds == 1 { return "1 second" }
        if seconds == seconds.rounded() { return "\(Int(seconds)) seconds" }
        return "\((seconds * 10).rounded() / 10) seconds"
    }
}
