internal import COpenSSL
internal import COpenSSLLoader

// libc: errno after SSL_ERROR_SYSCALL.
#if canImport(Glibc)
import Glibc
#endif

/// Which way a non-blocking step must wait before it can go on.
enum IODirection {
    case read
    case write
}

/// The OpenSSL steps of a connection, each one non-blocking: start a session on a socket, one
/// handshake step, read, write. They run on the connection's I/O thread, which owns the `SSL*`.
enum TLSSteps {
    /// What one `read` got.
    enum ReadOutcome {
        /// This many bytes are at the start of the buffer.
        case bytes(Int)
        /// Nothing yet: wait for the socket.
        case blocked(IODirection)
        /// The peer closed the TLS stream (cleanly, or by closing the socket).
        case endOfStream
    }

    /// A new `SSL*` on `descriptor`, set up for `role` (SNI and host name checks for a client).
    static func makeSession(_ role: TLSRole, descriptor: Int32) throws(TransportError) -> OpaquePointer {
        let context: TLSContext
        switch role {
        case .client(let clientContext, _): context = clientContext
        case .server(let serverContext): context = serverContext
        }
        guard let ssl = openssl.pointee.SSL_new(context.context) else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not start a TLS session: \(openSSLErrorText())")
        }
        // Read what the socket holds in one system call, several records at a time, instead of
        // two calls (header, then body) per record: through a 64 KB buffer BIO, which leaves no
        // bytes behind when OpenSSL wants more from the socket. The poll loop reads until then,
        // or until the read-ahead limit, and reads on (from the buffer first) as soon as a reader
        // makes room.
        guard mailsearch_SSL_set_fd_read_through_buffer(ssl, descriptor, 65536) == 1 else {
            openssl.pointee.SSL_free(ssl)
            throw TransportError(.tlsConfiguration, "OpenSSL could not start a TLS session: out of memory")
        }
        switch role {
        case .client(_, let serverName):
            do throws(TransportError) {
                try requireCertificate(ssl, naming: serverName)
            } catch {
                openssl.pointee.SSL_free(ssl)
                throw error
            }
            openssl.pointee.SSL_set_connect_state(ssl)
        case .server:
            openssl.pointee.SSL_set_accept_state(ssl)
        }
        return ssl
    }

    /// Makes the handshake fail unless the server's certificate names `serverName` in its
    /// subject alternative names: never in the subject's common name, and a wildcard only as a
    /// whole left-most label (`*.example.org`, never `mail*.example.org`). Sends `serverName` as
    /// SNI when it is a host name. A blank name, or one OpenSSL cannot take, is refused here:
    /// given an empty name, OpenSSL would check none at all.
    private static func requireCertificate(_ ssl: OpaquePointer, naming serverName: String) throws(TransportError) {
        guard !serverName.allSatisfy({ $0.isWhitespace }), !serverName.utf8.contains(0) else {
            throw TransportError(
                .tlsConfiguration,
                "the server name to check the certificate against is blank or holds a NUL byte; give the host's name")
        }
        openssl.pointee.SSL_set_hostflags(
            ssl, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        let named: Int32
        if isIPAddress(serverName) {
            named = openssl.pointee.X509_VERIFY_PARAM_set1_ip_asc(openssl.pointee.SSL_get0_param(ssl), serverName)
        } else {
            guard mailsearch_SSL_set_tlsext_host_name(ssl, serverName) == 1 else {
                throw TransportError(
                    .tlsConfiguration, "OpenSSL cannot send \(serverName) as the server name: \(openSSLErrorText())")
            }
            named = openssl.pointee.SSL_set1_host(ssl, serverName)
        }
        guard named == 1 else {
            throw TransportError(
                .tlsConfiguration,
                "OpenSSL cannot check the certificate against \(serverName): \(openSSLErrorText())")
        }
    }

    /// One handshake step: nil when it finished, else what it waits for.
    static func stepHandshake(_ ssl: OpaquePointer, role: TLSRole) throws(TransportError) -> IODirection? {
        openssl.pointee.ERR_clear_error()
        let result = openssl.pointee.SSL_do_handshake(ssl)
        if result == 1 { return nil }
        let code = openssl.pointee.SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ { return .read }
        if code == SSL_ERROR_WANT_WRITE { return .write }
        throw classifyHandshakeFailure(ssl: ssl, role: role, code: code)
    }

    /// Reads into `buffer` what has been decrypted, without blocking.
    static func read(_ ssl: OpaquePointer, into buffer: inout [UInt8]) throws(TransportError) -> ReadOutcome {
        let count = buffer.withUnsafeMutableBytes { openssl.pointee.SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        if count > 0 { return .bytes(Int(count)) }
        let code = openssl.pointee.SSL_get_error(ssl, count)
        switch code {
        case SSL_ERROR_WANT_READ: return .blocked(.read)
        case SSL_ERROR_WANT_WRITE: return .blocked(.write)
        case SSL_ERROR_ZERO_RETURN:
            return .endOfStream
        case SSL_ERROR_SYSCALL where count == 0 || errno == 0:
            openssl.pointee.ERR_clear_error()
            return .endOfStream
        default:
            if openssl.pointee.SSL_get_error(ssl, count) == SSL_ERROR_SSL,
                mailsearch_ERR_GET_REASON(openssl.pointee.ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING
            {
                openssl.pointee.ERR_clear_error()
                return .endOfStream
            }
            throw TransportError(.connectionReset, "the TLS connection broke: \(openSSLErrorText())")
        }
    }

    /// Writes what it can of `bytes` from `offset`: how much, and what to wait for when nothing went.
    static func write(
        _ ssl: OpaquePointer, _ bytes: [UInt8], from offset: Int
    ) throws(TransportError) -> (Int, IODirection?) {
        let count = bytes.withUnsafeBytes { raw in
            openssl.pointee.SSL_write(ssl, raw.baseAddress! + offset, Int32(min(raw.count - offset, Int(Int32.max))))
        }
        if count > 0 { return (Int(count), nil) }
        switch openssl.pointee.SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_WRITE: return (0, .write)
        case SSL_ERROR_WANT_READ: return (0, .read)
        default:
            throw TransportError(.connectionReset, "the TLS connection broke while sending: \(openSSLErrorText())")
        }
    }

    private static func classifyHandshakeFailure(ssl: OpaquePointer, role: TLSRole, code: Int32) -> TransportError {
        let host: String
        switch role {
        case .client(_, let serverName): host = serverName
        case .server: host = "the client"
        }
        let verification = openssl.pointee.SSL_get_verify_result(ssl)
        if verification != X509_V_OK {
            let reason =
                openssl.pointee.X509_verify_cert_error_string(verification).map { String(cString: $0) }
                ?? "certificate verification failed (\(verification))"
            openssl.pointee.ERR_clear_error()
            switch Int32(verification) {
            case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
                return TransportError(
                    .certificateExpired,
                    "the certificate of \(host) is not valid now (\(reason)); check the server's certificate and this machine's clock"
                )
            case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
                return TransportError(
                    .hostNameMismatch,
                    "the certificate of the server is not for \(host) (\(reason)); check the host name you connect to")
            default:
                return TransportError(
                    .certificateUntrusted,
                    "the certificate of \(host) is not trusted (\(reason))")
            }
        }
        let queued = openssl.pointee.ERR_peek_error()
        let reason = mailsearch_ERR_GET_REASON(queued)
        if queued != 0
            && [
                SSL_R_WRONG_VERSION_NUMBER, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_HTTP_REQUEST,
                SSL_R_RECORD_LENGTH_MISMATCH,
            ]
            .contains(reason)
        {
            openssl.pointee.ERR_clear_error()
            return TransportError(
                .notTLS,
                "\(host) does not speak TLS on this port; use the TLS port (993) or STARTTLS on port 143")
        }
        if code == SSL_ERROR_SYSCALL || code == SSL_ERROR_ZERO_RETURN || queued == 0 {
            openssl.pointee.ERR_clear_error()
            return TransportError(
                .handshakeFailed,
                "\(host) closed the connection during the TLS handshake; check the port and TLS settings")
        }
        return TransportError(.handshakeFailed, "the TLS handshake with \(host) failed: \(openSSLErrorText())")
    }
}
