internal import COpenSSL

/// An OpenSSL `SSL_CTX` configured for one side.
///
/// Ownership: the context is configured completely in `init` and never changed afterwards;
/// OpenSSL allows a configured `SSL_CTX` to be shared by connections on any thread, so this
/// immutable wrapper is `@unchecked Sendable`.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    /// A client context made on a thread of its own: loading the system trust store reads and
    /// parses the CA bundle from disk, which must not block the cooperative pool.
    static func client(_ configuration: ClientTLSConfiguration) async throws(TransportError) -> TLSContext {
        let result: Result<TLSContext, TransportError> = await withCheckedContinuation { continuation in
            do throws(TransportError) {
                try startIOThread(name: "tls-context") {
                    continuation.resume(
                        returning: Result { () throws(TransportError) in try TLSContext(client: configuration) })
                }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    /// A client context: TLS 1.2 or newer, peer verification on, system store plus extra trust.
    /// Blocking (file reads): from async code use `client(_:)`.
    init(client configuration: ClientTLSConfiguration) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not create a TLS context: \(openSSLErrorText())")
        }
        self.context = context
        try configureCommon()
        if configuration.usesSystemTrustStore {
            SSL_CTX_set_default_verify_paths(context)
        }
        if let pem = configuration.additionalTrustPEM {
            let certificates = try Self.certificates(fromPEM: pem)
            guard !certificates.isEmpty else {
                throw TransportError(.tlsConfiguration, "the trusted certificate file holds no PEM certificate")
            }
            let store = SSL_CTX_get_cert_store(context)
            for certificate in certificates {
                X509_STORE_add_cert(store, certificate)
                X509_free(certificate)
            }
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
    }

    /// A server context with a certificate chain and key.
    init(server configuration: ServerTLSConfiguration) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not create a TLS context: \(openSSLErrorText())")
        }
        self.context = context
        try configureCommon()
        let certificates = try Self.certificates(fromPEM: configuration.certificateChainPEM)
        guard let leaf = certificates.first else {
            throw TransportError(.tlsConfiguration, "the server certificate file holds no PEM certificate")
        }
        guard SSL_CTX_use_certificate(context, leaf) == 1 else {
            certificates.forEach { X509_free($0) }
            throw TransportError(.tlsConfiguration, "the server certificate cannot be used: \(openSSLErrorText())")
        }
        X509_free(leaf)
        for intermediate in certificates.dropFirst() {
            // On success the context owns the certificate.
            if mailsearch_SSL_CTX_add_extra_chain_cert(context, intermediate) != 1 { X509_free(intermediate) }
        }
        let key: OpaquePointer? = configuration.privateKeyPEM.withUnsafeBytes { raw in
            let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else {
            throw TransportError(.tlsConfiguration, "the server private key is not a PEM private key")
        }
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1 else {
            throw TransportError(
                .tlsConfiguration, "the private key does not match the certificate: \(openSSLErrorText())")
        }
    }

    deinit { SSL_CTX_free(context) }

    private func configureCommon() throws(TransportError) {
        guard mailsearch_SSL_CTX_set_min_proto_version(context, mailsearch_TLS1_2_VERSION()) == 1 else {
            throw TransportError(.tlsConfiguration, "OpenSSL refused to require TLS 1.2 or newer")
        }
        _ = mailsearch_SSL_CTX_set_mode(
            context, mailsearch_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER() | mailsearch_SSL_MODE_ENABLE_PARTIAL_WRITE())
        SSL_CTX_set_options(context, mailsearch_SSL_OP_NO_RENEGOTIATION())
    }

    /// Every certificate in `pem`, in order. The caller frees them.
    static func certificates(fromPEM pem: [UInt8]) throws(TransportError) -> [OpaquePointer] {
        pem.withUnsafeBytes { raw -> [OpaquePointer] in
            let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))
            defer { BIO_free(bio) }
            var certificates: [OpaquePointer] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) { certificates.append(certificate) }
            ERR_clear_error()  // the loop ends with a "no start line" error
            return certificates
        }
    }
}

/// The text of OpenSSL's oldest queued error (and clears the queue).
func openSSLErrorText() -> String {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return "no detail from OpenSSL" }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
