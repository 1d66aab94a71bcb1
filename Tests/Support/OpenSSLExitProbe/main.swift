import Transport

#if canImport(Glibc)
import Glibc
#endif

// Exits while other threads are busy in OpenSSL, as `mailsearch` does when a connection's I/O
// thread is still freeing its TLS session: the process must end with status 0, not crash in
// OpenSSL's clean-up (TransportTests.OpenSSLExitTests runs this many times).
for _ in 0..<2 {
    Task.detached {
        while true { await OpenSSLLibrary.warmUp() }
    }
}
try await Task.sleep(for: .milliseconds(20))
exit(0)
