import SystemLayer

/// How a client verifies a server's certificate. Verification is always on: the chain must lead
/// to a trusted CA and the certificate must name the host. There is no switch to turn that off.
public struct ClientTLSConfiguration: Hashable, Sendable {
    /// Extra certificates to trust (a private CA, or a server's self-signed certificate), PEM.
    public var additionalTrustPEM: [UInt8]?
    /// Whether the system's trust store is used too.
    public var usesSystemTrustStore: Bool
    /// The name to verify and to send as SNI, when it differs from the host connected to.
    public var serverNameOverride: String?

    /// The system trust store, plus `additionalTrustPEM` when given.
    public init(
        additionalTrustPEM: [UInt8]? = nil, usesSystemTrustStore: Bool = true, serverNameOverride: String? = nil
    ) {
        self.additionalTrustPEM = additionalTrustPEM
        self.usesSystemTrustStore = usesSystemTrustStore
        self.serverNameOverride = serverNameOverride
    }

    /// The system trust store plus the certificates in the PEM file at `path`.
    public static func trusting(caFile path: String) throws(TransportError) -> ClientTLSConfiguration {
        do throws(SystemCallError) {
            return ClientTLSConfiguration(additionalTrustPEM: try readWholeFile(path))
        } catch {
            throw TransportError(
                .tlsConfiguration,
                "cannot read the CA file \(path) (\(error.reason)); check the path and its permissions")
        }
    }
}

/// A server's certificate chain and private key, PEM.
public struct ServerTLSConfiguration: Hashable, Sendable {
    /// The leaf certificate first, then any intermediates.
    public var certificateChainPEM: [UInt8]
    /// The private key of the leaf certificate.
    public var privateKeyPEM: [UInt8]

    public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8]) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }
}
