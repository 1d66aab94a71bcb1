internal import COpenSSL
internal import COpenSSLLoader

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
        try OpenSSLLibrary.initialize()
        guard let key = mailsearch_generate_P256_key() else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not generate a key: \(openSSLErrorText())")
        }
        defer { openssl.pointee.EVP_PKEY_free(key) }
        guard let certificate = openssl.pointee.X509_new() else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not create a certificate")
        }
        defer { openssl.pointee.X509_free(certificate) }
        _ = openssl.pointee.X509_set_version(certificate, 2)
        var serial = [UInt8](repeating: 0, count: 8)
        _ = openssl.pointee.RAND_bytes(&serial, Int32(serial.count))
        _ = openssl.pointee.ASN1_INTEGER_set(
            openssl.pointee.X509_get_serialNumber(certificate), Int(serial.prefix(7).reduce(0) { $0 << 8 | Int($1) }))
        _ = openssl.pointee.X509_gmtime_adj(openssl.pointee.X509_getm_notBefore(certificate), validFromOffset)
        _ = openssl.pointee.X509_gmtime_adj(
            openssl.pointee.X509_getm_notAfter(certificate), validFromOffset + validForSeconds)
        _ = openssl.pointee.X509_set_pubkey(certificate, key)
        let name = openssl.pointee.X509_get_subject_name(certificate)
        let subject = commonName ?? hosts.first ?? "localhost"
        _ = openssl.pointee.X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, subject, -1, -1, 0)
        _ = openssl.pointee.X509_NAME_add_entry_by_txt(
            name, "O", MBSTRING_ASC, "MailSearch test certificate", -1, -1, 0)
        _ = openssl.pointee.X509_set_issuer_name(certificate, name)
        let alternativeNames = hosts.map { isIPAddress($0) ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        for (nid, value) in [
            (NID_subject_alt_name, alternativeNames), (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_key_usage, "critical,digitalSignature,keyCertSign"),
        ] where !value.isEmpty {
            var context = X509V3_CTX()
            openssl.pointee.X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
            guard let extensionValue = openssl.pointee.X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw TransportError(.tlsConfiguration, "OpenSSL refused the certificate extension \(value)")
            }
            _ = openssl.pointee.X509_add_ext(certificate, extensionValue, -1)
            openssl.pointee.X509_EXTENSION_free(extensionValue)
        }
        guard openssl.pointee.X509_sign(certificate, key, openssl.pointee.EVP_sha256()) > 0 else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not sign the certificate: \(openSSLErrorText())")
        }
        let certificatePEM = try pemBytes { bio in openssl.pointee.PEM_write_bio_X509(bio, certificate) }
        let keyPEM = try pemBytes { bio in openssl.pointee.PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) }
        return ServerTLSConfiguration(certificateChainPEM: certificatePEM, privateKeyPEM: keyPEM)
    }
}

private func pemBytes(_ write: (OpaquePointer) -> Int32) throws(TransportError) -> [UInt8] {
    guard let bio = openssl.pointee.BIO_new(openssl.pointee.BIO_s_mem()) else {
        throw TransportError(.tlsConfiguration, "OpenSSL could not allocate")
    }
    defer { _ = openssl.pointee.BIO_free(bio) }
    guard write(bio) == 1 else { throw TransportError(.tlsConfiguration, "OpenSSL could not write PEM") }
    var pointer: UnsafeMutablePointer<CChar>?
    let count = mailsearch_BIO_get_mem_data(bio, &pointer)
    guard let pointer, count > 0 else { return [] }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: Int(count)) {
        Array(UnsafeBufferPointer(start: $0, count: Int(count)))
    }
}
