internal import COpenSSL
internal import COpenSSLLoader
// libc: getenv of the variables OpenSSL names for its trust store.
import Glibc
import Synchronization

/// An OpenSSL `SSL_CTX` configured for one side.
///
/// Ownership: the context is configured completely in `init` and never changed afterwards;
/// OpenSSL allows a configured `SSL_CTX` to be shared by connections on any thread, so this
/// immutable wrapper is `@unchecked Sendable`.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// The system store, consulted only when the extra trust alone does not verify a server
    /// (kept alive with the context: the verify callback points at it).
    private let fallback: SystemTrustFallback?

    /// A client context made on a thread of its own: loading the system trust store reads and
    /// parses the CA bundle from disk, which must not block the cooperative pool.
    static func client(_ configuration: ClientTLSConfiguration) async throws(TransportError) -> TLSContext {
        await OpenSSLLibrary.warmUpFinished()
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
    ///
    /// With extra trust (`--ca-file`), a server is first verified against that trust alone, and
    /// only when that fails against the system store as well (loaded then, once per context):
    /// the system bundle costs 15-30 ms to parse, more than the rest of a short command's
    /// start, and a server with a private CA never needs it. What is trusted is the same.
    init(client configuration: ClientTLSConfiguration) throws(TransportError) {
        try OpenSSLLibrary.initialize()
        guard let context = openssl.pointee.SSL_CTX_new(openssl.pointee.TLS_client_method()) else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not create a TLS context: \(openSSLErrorText())")
        }
        var extra: [OpaquePointer] = []
        if let pem = configuration.additionalTrustPEM {
            extra = try Self.certificates(fromPEM: pem)
            guard !extra.isEmpty else {
                openssl.pointee.SSL_CTX_free(context)
                throw TransportError(.tlsConfiguration, "the trusted certificate file holds no PEM certificate")
            }
        }
        self.context = context
        self.fallback =
            configuration.usesSystemTrustStore && !extra.isEmpty ? SystemTrustFallback(extra: extra) : nil
        do {
            try configureCommon()
        } catch {
            // deinit frees the context.
            extra.forEach { openssl.pointee.X509_free($0) }
            throw error
        }
        if configuration.usesSystemTrustStore && extra.isEmpty {
            Self.useSystemTrustStore(openssl.pointee.SSL_CTX_get_cert_store(context))
        }
        let store = openssl.pointee.SSL_CTX_get_cert_store(context)
        for certificate in extra {
            _ = openssl.pointee.X509_STORE_add_cert(store, certificate)
            openssl.pointee.X509_free(certificate)
        }
        if let fallback {
            openssl.pointee.SSL_CTX_set_cert_verify_callback(
                context,
                { storeContext, argument in
                    guard let storeContext else { return 0 }
                    if openssl.pointee.X509_verify_cert(storeContext) == 1 { return 1 }
                    guard let argument else { return 0 }
                    let fallback = Unmanaged<SystemTrustFallback>.fromOpaque(argument).takeUnretainedValue()
                    return fallback.verify(storeContext)
                }, Unmanaged.passUnretained(fallback).toOpaque())
        }
        openssl.pointee.SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
    }

    /// Trusts the system's CAs. Where OpenSSL's CA directory is hashed (`c_rehash` names, as
    /// Debian's and Ubuntu's `update-ca-certificates` keep /etc/ssl/certs), only the directory
    /// is used: a handshake then reads the one CA it needs, instead of every start parsing the
    /// whole bundle file (about 140 certificates, 15-30 ms). With `SSL_CERT_FILE` set, several
    /// directories in `SSL_CERT_DIR`, or a directory without hashed names (a bundle-only
    /// system), OpenSSL's default paths are used as they are.
    static func useSystemTrustStore(_ store: OpaquePointer?) {
        guard let store else { return }
        // (OpenSSL's names and default paths are constant strings, never NULL.)
        if openssl.pointee.X509_get_default_cert_file_env().flatMap({ getenv($0) }) == nil {
            let directory =
                openssl.pointee.X509_get_default_cert_dir_env().flatMap { getenv($0) }.map { String(cString: $0) }
                ?? openssl.pointee.X509_get_default_cert_dir().map { String(cString: $0) } ?? ""
            if !directory.isEmpty, !directory.contains(":"), holdsHashedCertificates(directory),
                openssl.pointee.X509_STORE_load_path(store, directory) == 1
            {
                return
            }
        }
        _ = openssl.pointee.X509_STORE_set_default_paths(store)
    }

    /// Whether `directory` holds a certificate under a hashed name (`3513523f.0`).
    static func holdsHashedCertificates(_ directory: String) -> Bool {
        guard let handle = opendir(directory) else { return false }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if isHashedName(name) { return true }
        }
        return false
    }

    /// `3513523f.0`: eight hex digits, a dot, a decimal number (OpenSSL's hashed directory).
    static func isHashedName(_ name: [UInt8]) -> Bool {
        guard name.count >= 10, name[8] == UInt8(ascii: ".") else { return false }
        let isHex = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }
        return name[..<8].allSatisfy(isHex) && name[9...].allSatisfy { (0x30...0x39).contains($0) }
    }

    /// A server context with a certificate chain and key.
    init(server configuration: ServerTLSConfiguration) throws(TransportError) {
        try OpenSSLLibrary.initialize()
        guard let context = openssl.pointee.SSL_CTX_new(openssl.pointee.TLS_server_method()) else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not create a TLS context: \(openSSLErrorText())")
        }
        self.context = context
        self.fallback = nil
        try configureCommon()
        let certificates = try Self.certificates(fromPEM: configuration.certificateChainPEM)
        guard let leaf = certificates.first else {
            throw TransportError(.tlsConfiguration, "the server certificate file holds no PEM certificate")
        }
        guard openssl.pointee.SSL_CTX_use_certificate(context, leaf) == 1 else {
            certificates.forEach { openssl.pointee.X509_free($0) }
            throw TransportError(.tlsConfiguration, "the server certificate cannot be used: \(openSSLErrorText())")
        }
        openssl.pointee.X509_free(leaf)
        for intermediate in certificates.dropFirst() {
            // On success the context owns the certificate.
            if mailsearch_SSL_CTX_add_extra_chain_cert(context, intermediate) != 1 {
                openssl.pointee.X509_free(intermediate)
            }
        }
        let key: OpaquePointer? = configuration.privateKeyPEM.withUnsafeBytes { raw in
            let bio = openssl.pointee.BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))
            defer { _ = openssl.pointee.BIO_free(bio) }
            return openssl.pointee.PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else {
            throw TransportError(.tlsConfiguration, "the server private key is not a PEM private key")
        }
        defer { openssl.pointee.EVP_PKEY_free(key) }
        guard openssl.pointee.SSL_CTX_use_PrivateKey(context, key) == 1,
            openssl.pointee.SSL_CTX_check_private_key(context) == 1
        else {
            throw TransportError(
                .tlsConfiguration, "the private key does not match the certificate: \(openSSLErrorText())")
        }
    }

    deinit { openssl.pointee.SSL_CTX_free(context) }

    private func configureCommon() throws(TransportError) {
        guard mailsearch_SSL_CTX_set_min_proto_version(context, mailsearch_TLS1_2_VERSION()) == 1 else {
            throw TransportError(.tlsConfiguration, "OpenSSL refused to require TLS 1.2 or newer")
        }
        _ = mailsearch_SSL_CTX_set_mode(
            context, mailsearch_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER() | mailsearch_SSL_MODE_ENABLE_PARTIAL_WRITE())
        _ = openssl.pointee.SSL_CTX_set_options(context, mailsearch_SSL_OP_NO_RENEGOTIATION())
    }

    /// Every certificate in `pem`, in order. The caller frees them.
    static func certificates(fromPEM pem: [UInt8]) throws(TransportError) -> [OpaquePointer] {
        try OpenSSLLibrary.initialize()
        return pem.withUnsafeBytes { raw -> [OpaquePointer] in
            let bio = openssl.pointee.BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))
            defer { _ = openssl.pointee.BIO_free(bio) }
            var certificates: [OpaquePointer] = []
            while let certificate = openssl.pointee.PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(certificate)
            }
            openssl.pointee.ERR_clear_error()  // the loop ends with a "no start line" error
            return certificates
        }
    }
}

/// The system store plus the extra trust, built on first use, for verifying a server the extra
/// trust alone did not verify.
///
/// Ownership: `store` is built once under the lock and never changed afterwards (an
/// `X509_STORE` may then be used by any thread); the extra certificates are owned here and
/// freed with it.
private final class SystemTrustFallback: @unchecked Sendable {
    private let extra: [OpaquePointer]
    private let store = Mutex<OpaquePointer?>(nil)

    /// Keeps a reference of its own to each of `extra`.
    init(extra: [OpaquePointer]) {
        for certificate in extra { _ = openssl.pointee.X509_up_ref(certificate) }
        self.extra = extra
    }

    deinit {
        extra.forEach { openssl.pointee.X509_free($0) }
        if let built = store.withLock({ $0 }) { openssl.pointee.X509_STORE_free(built) }
    }

    /// Verifies the chain of `original` again against the system store and the extra trust,
    /// with the same parameters (host name, purpose), and gives `original` the outcome: its
    /// error, error depth, failing certificate and verified chain, which the handshake reads.
    func verify(_ original: OpaquePointer) -> Int32 {
        guard let store = fullStore(), let retry = openssl.pointee.X509_STORE_CTX_new() else { return 0 }
        defer { openssl.pointee.X509_STORE_CTX_free(retry) }
        guard
            openssl.pointee.X509_STORE_CTX_init(
                retry, store, openssl.pointee.X509_STORE_CTX_get0_cert(original),
                openssl.pointee.X509_STORE_CTX_get0_untrusted(original)) == 1
        else { return 0 }
        _ = openssl.pointee.X509_VERIFY_PARAM_set1(
            openssl.pointee.X509_STORE_CTX_get0_param(retry), openssl.pointee.X509_STORE_CTX_get0_param(original))
        let verified = openssl.pointee.X509_verify_cert(retry)
        openssl.pointee.X509_STORE_CTX_set_error(original, openssl.pointee.X509_STORE_CTX_get_error(retry))
        openssl.pointee.X509_STORE_CTX_set_error_depth(original, openssl.pointee.X509_STORE_CTX_get_error_depth(retry))
        openssl.pointee.X509_STORE_CTX_set_current_cert(
            original, openssl.pointee.X509_STORE_CTX_get_current_cert(retry))
        openssl.pointee.X509_STORE_CTX_set0_verified_chain(original, openssl.pointee.X509_STORE_CTX_get1_chain(retry))
        return verified == 1 ? 1 : 0
    }

    private func fullStore() -> OpaquePointer? {
        store.withLock { built in
            if let built { return built }
            guard let fresh = openssl.pointee.X509_STORE_new() else { return nil }
            TLSContext.useSystemTrustStore(fresh)
            for certificate in extra { _ = openssl.pointee.X509_STORE_add_cert(fresh, certificate) }
            built = fresh
            return fresh
        }
    }
}

/// The text of OpenSSL's oldest queued error (and clears the queue).
func openSSLErrorText() -> String {
    let code = openssl.pointee.ERR_get_error()
    openssl.pointee.ERR_clear_error()
    guard code != 0 else { return "no detail from OpenSSL" }
    var buffer = [CChar](repeating: 0, count: 256)
    openssl.pointee.ERR_error_string_n(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
