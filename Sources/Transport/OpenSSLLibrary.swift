internal import COpenSSL
internal import COpenSSLLoader
import Synchronization

/// OpenSSL's functions: COpenSSLLoader's table, filled when a process first needs TLS. Every
/// path here reaches it through ``OpenSSLLibrary/initialize()`` first, which loads the table (and
/// whose once-only start orders the table's writes before any thread's reads).
var openssl: UnsafePointer<mailsearch_openssl_calls> { mailsearch_openssl() }

/// Facts about the OpenSSL library, which is loaded when a process first needs TLS.
public enum OpenSSLLibrary {
    /// The version text, e.g. `OpenSSL 3.0.19 27 Jan 2026`; what went wrong when it cannot be
    /// loaded.
    public static var versionText: String {
        do throws(TransportError) {
            try initialize()
        } catch {
            return error.message
        }
        return String(cString: mailsearch_OpenSSL_version_text())
    }

    /// Loads libssl and libcrypto (see COpenSSLLoader: a process that never makes a TLS
    /// connection never loads them, about a millisecond of every other command's start) and
    /// initializes OpenSSL once per process, before anything else of it is used, without the
    /// clean-up OpenSSL would otherwise register with `atexit()`.
    ///
    /// That clean-up frees OpenSSL's global state while the process exits, and a process exits
    /// with threads still running: a connection's I/O thread freeing its `SSL*`, or ending and
    /// freeing its thread-local OpenSSL state. The two then free the same memory (AddressSanitizer
    /// caught a double free in `OPENSSL_cleanup` in about one `mailsearch search` in 3,000; a
    /// crash with "corrupted size vs. prev_size" without it). The memory is the process's anyway,
    /// and the kernel takes it back at exit. Every entry point of this module that reaches OpenSSL
    /// calls this first; later calls cost one check.
    package static func initialize() throws(TransportError) {
        try initialized.get()
    }

    private static let initialized: Result<Void, TransportError> = {
        var reason = [CChar](repeating: 0, count: 512)
        guard mailsearch_openssl_load(&reason, reason.count) == 1 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(
                TransportError(
                    .tlsConfiguration,
                    "OpenSSL could not be loaded (\(text)); install OpenSSL 3's libraries (Debian: libssl3)"))
        }
        guard mailsearch_OpenSSL_initialize_without_atexit() == 1 else {
            return .failure(TransportError(.tlsConfiguration, "OpenSSL could not be initialized"))
        }
        return .success(())
    }()

    /// Starts OpenSSL's one-time work (loading its libraries, reading its configuration, loading
    /// the default provider, fetching the algorithms a TLS client context lists) on a thread of
    /// its own, once per process, and returns at once.
    ///
    /// The first `SSL_CTX_new` of a process costs 2-5 ms; later ones about 0.2 ms. The
    /// command-line tool calls this as soon as it knows a command will connect, before it reads
    /// its settings, files and secret, so that the context made for the connection is the cheap
    /// kind. Never on the cooperative pool; safe beside any other OpenSSL use.
    public static func beginWarmUp() {
        let starts = warmUpState.withLock { state -> Bool in
            guard case .notStarted = state else { return false }
            state = .running([])
            return true
        }
        guard starts else { return }
        do throws(TransportError) {
            try startIOThread(name: "tls-warm-up") {
                // Loading the libraries is part of the work (off the caller's thread). Without
                // them there is nothing to warm: the connection's context says why.
                if (try? initialize()) != nil,
                    let context = openssl.pointee.SSL_CTX_new(openssl.pointee.TLS_client_method())
                {
                    openssl.pointee.SSL_CTX_free(context)
                }
                finishWarmUp()
            }
        } catch {
            // No thread: the context made for the connection does the same work then.
            finishWarmUp()
        }
    }

    /// Starts the warm-up if it has not started (``beginWarmUp()``) and returns when it is done.
    public static func warmUp() async {
        beginWarmUp()
        await warmUpFinished()
    }

    /// Returns when a warm-up that has started is done; at once when none has started. A TLS
    /// context waits here before its own `SSL_CTX_new`, which would otherwise repeat the same
    /// first-time work beside the warm-up thread instead of taking its result.
    static func warmUpFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = warmUpState.withLock { state -> Bool in
                guard case .running(var waiting) = state else { return true }  // not started, or done
                waiting.append(continuation)
                state = .running(waiting)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private enum WarmUp {
        case notStarted
        case running([CheckedContinuation<Void, Never>])
        case done
    }

    private static let warmUpState = Mutex(WarmUp.notStarted)

    private static func finishWarmUp() {
        let waiting = warmUpState.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard case .running(let waiting) = state else { return [] }
            state = .done
            return waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
