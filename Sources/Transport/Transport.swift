internal import COpenSSL

/// Transport: TCP and TLS (OpenSSL) for clients and servers.
public enum Transport {
    /// The linked OpenSSL library's version text, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
    public static var openSSLVersion: String {
        String(cString: mailsearch_OpenSSL_version_text())
    }
}
