/// `* NAMESPACE (("" ".")) NIL NIL` (RFC 2342, RFC 9051 7.3.5).
public struct NamespaceResponse: Hashable, Sendable {
    public var personal: [NamespaceDescription]
    public var otherUsers: [NamespaceDescription]
    public var shared: [NamespaceDescription]

    public init(personal: [NamespaceDescription], otherUsers: [NamespaceDescription], shared: [NamespaceDescription]) {
        self.personal = personal
        self.otherUsers = otherUsers
        self.shared = shared
    }
}

/// One namespace: its prefix and hierarchy delimiter.
public struct NamespaceDescription: Hashable, Sendable {
    public var prefix: ByteString
    public var delimiter: UInt8?
    /// Namespace response extensions, kept raw.
    public var extensions: ByteString?

    public init(prefix: ByteString, delimiter: UInt8?, extensions: ByteString? = nil) {
        self.prefix = prefix
        self.delimiter = delimiter
        self.extensions = extensions
    }
}
