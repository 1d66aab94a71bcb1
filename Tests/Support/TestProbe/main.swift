import Foundation
import TestSupport
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
    // Each loop makes a TLS client context (on a thread of its own, for a connection to a port
    // nobody listens on) and says so; once both have (OpenSSL is set up and both are making
    // their next), the process exits under them. That the connection is refused is expected.
    let (made, maker) = AsyncStream<Void>.makeStream()
    for _ in 0..<2 {
        Task.detached {
            while true {
                do {
                    let connection = try await NetworkConnection.connect(
                        host: "127.0.0.1", port: 9, security: .tls(ClientTLSConfiguration()))
                    connection.close()
                } catch {
                    // Refused, as expected: the context is made before the connect.
                }
                maker.yield()
            }
        }
    }
    for await _ in made.prefix(2) {}
    exit(0)
case "hang-guard":
    // A guarded test stuck past its limit: the guard names it on standard error and ends the
    // process with status 1 (TransportTests.HangGuardTests). Reaching the end is the failure.
    _ = HangWatch.shared.begin("probe/stuckTest()", limit: .seconds(1))
    try await Task.sleep(for: .seconds(60))
    print("the hang guard never fired")
    exit(0)
default:
    FileHandle.standardError.write(Data("usage: test-probe openssl-exit | hang-guard\n".utf8))
    exit(64)
}
