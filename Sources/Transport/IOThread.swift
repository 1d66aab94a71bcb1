import SystemLayer

/// Starts a detached thread that runs `body` (SystemLayer's `startThread`). Connections use one
/// each, so that blocking system calls and OpenSSL never run on the cooperative thread pool.
package func startIOThread(
    name: String, stackSize: Int = 512 * 1024, _ body: @escaping @Sendable () -> Void
) throws(TransportError) {
    do throws(SystemCallError) {
        try startThread(name: name, stackSize: stackSize, body)
    } catch {
        throw TransportError(.systemCallFailed, "could not start an I/O thread: \(error.reason)")
    }
}
