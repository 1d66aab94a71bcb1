import Foundation
import Transport

#if canImport(Glibc)
import Glibc
#endif

// Situations a test cannot set up inside the test process without harming the tests running
// beside it, each run in a process of its own: `test-probe <name>`, status 0 when it went as it
// should.
switch CommandLine.arguments.dropFirst().first {
case "openssl-exit":
    // Exits while other threads are busy in OpenSSL, as `mailsearch` does when a connection's I/O
    // thread is still freeing its TLS session: the process must end with status 0, not crash in
    // OpenSSL's clean-up (TransportTests.OpenSSLExitTests).
    for _ in 0..<2 {
        Task.detached {
            while true { await OpenSSLLibrary.warmUp() }
        }
    }
    try await Task.sleep(for: .milliseconds(20))
    exit(0)
default:
    FileHandle.standardError.write(Data("usage: test-probe openssl-exit\n".utf8))
    exit(64)
}
