internal import COpenSSL

/// Facts about the linked OpenSSL library.
public enum OpenSSLLibrary {
    /// The version text, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
    public static var versionText: String {
        initialize()
        return String(cString: mailsearch_OpenSSL_version_text())
    }

    /// Initializes OpenSSL once per process, before anything else of it is used, without the
    /// clean-up OpenSSL would otherwise register with `atexit()`.
    ///
    /// That clean-up frees OpenSSL's global state while the process exits, and a process exits
    /// with threads still running: a connection's I/O thread freeing its `SSL*`, or ending and
    /// freeing its thread-local OpenSSL state. The two then free the same memory (AddressSanitizer
    /// caught a double free in `OPENSSL_cleanup` in about one `mailsearch search` in 3,000; a
    /// crash with "corrupted size vs. prev_size" without it). The memory is the process's anyway,
    /// and the kernel takes it back at exit. Every entry point of this module that reaches OpenSSL
    /// calls this first; later calls cost one check.
    package static func initialize() { _ = initialized }

    private static let initialized: Bool = mailsearch_OpenSSL_initialize_without_atexit() == 1

    /// Does OpenSSL's one-time work (reading its configuration, loading the default provider,
    /// fetching the algorithms a TLS client context lists) on a thread of its own, and returns
    /// when it is done.
    ///
    /// The first `SSL_CTX_new` of a process costs 2-5 ms; later ones about 0.2 ms. A short command
    /// awaits this (as `async let`) beside its other start-up work, reading settings, files and
    /// secrets, so that the context made for the connection is the cheap kind. Never on the
    /// cooperative pool; safe to call more than once and beside any other OpenSSL use.
    public static func warmUp() async {
        initialize()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            do throws(TransportError) {
                try startIOThread(name: "tls-warm-up") {
                    if let context = SSL_CTX_new(TLS_client_method()) { SSL_CTX_free(context) }
                    continuation.resume()
                }
            } catch {
                // No thread: the context made for the connection does the same work then.
                continuation.resume()
            }
        }
    }
}
