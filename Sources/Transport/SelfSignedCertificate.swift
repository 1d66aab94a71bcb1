internal import COpenSSL

extension ServerTLSConfiguration {
    /// A fresh P-256 key and a self-signed certificate for `hosts` (DNS names and IP addresses,
    /// all in subjectAltName), made in memory. Tests trust `certificateChainPEM`.
    ///
    /// - Parameters:
    ///   - validFromOffset: seconds from now when validity starts (negative = in the past).
    ///   - validForSeconds: how long it stays valid from then.
    public static func selfSigned(
        hosts: [String], commonName: String? = nil, validFromOffset: Int = -3600, validForSeconds: Int = 30 * 86400
    ) throws(TransportError) -> ServerTLSConfiguration {
        OpenSSLLibrary.initialize()
        guard let key = mailsearch_generate_P256_key() else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not generate a key: \(openSSLErrorText())")
        }
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not create a certificate")
        }
        defer { X509_free(certificate) }
        X509_set_version(certificate, 2)
        var serial = [UInt8](repeating: 0, count: 8)
        RAND_bytes(&serial, Int32(serial.count))
        ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int(serial.prefix(7).reduce(0) { $0 << 8 | Int($1) }))
        X509_gmtime_adj(X509_getm_notBefore(certificate), validFromOffset)
        X509_gmtime_adj(X509_getm_notAfter(certificate), validFromOffset + validForSeconds)
        X509_set_pubkey(certificate, key)
        let name = X509_get_subject_name(certificate)
        let subject = commonName ?? hosts.first ?? "localhost"
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, subject, -1, -1, 0)
        X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "MailSearch test certificate", -1, -1, 0)
        X509_set_issuer_name(certificate, name)
        let alternativeNames = hosts.map { isIPAddress($0) ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        for (nid, value) in [
            (NID_subject_alt_name, alternativeNames), (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_key_usage, "critical,digitalSignature,keyCertSign"),
        ] where !value.isEmpty {
            var context = X509V3_CTX()
            X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
            guard let extensionValue = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw TransportError(.tlsConfiguration, "OpenSSL refused the certificate extension \(value)")
            }
            X509_add_ext(certificate, extensionValue, -1)
            X509_EXTENSION_free(extensionValue)
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not sign the certificate: \(openSSLErrorText())")
        }
        let certificatePEM = try pemBytes { bio in PEM_write_bio_X509(bio, certificate) }
        let keyPEM = try pemBytes { bio in PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) }
        return ServerTLSConfiguration(certificateChainPEM: certificatePEM, privateKeyPEM: keyPEM)
    }
}

private func pemBytes(_ write: (OpaquePointer) -> Int32) throws(TransportError) -> [UInt8] {
    guard let bio = BIO_new(BIO_s_mem()) else { throw TransportError(.tlsConfiguration, "OpenSSL could not allocate") }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { throw TransportError(.tlsConfiguration, "OpenSSL could not write PEM") }
    var pointer: UnsafeMutablePointer<CChar>?
    let count = mailsearch_BIO_get_mem_data(bio, &pointer)
    guard let pointer, count > 0 else { return [] }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: Int(count)) {
        Array(UnsafeBufferPointer(start: $0, count: Int(count)))
    }
}
