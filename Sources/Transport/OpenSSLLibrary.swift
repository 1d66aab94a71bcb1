internal import COpenSSL

/// Facts about the linked OpenSSL library.
public enum OpenSSLLibrary {
    /// The version text, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
    public static var versionText: String { String(cString: mailsearch_OpenSSL_version_text()) }
}
