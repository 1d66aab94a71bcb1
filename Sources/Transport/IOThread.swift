#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached thread that runs `body`. Connections use one each, so that blocking system
/// calls and OpenSSL never run on the cooperative thread pool.
func startIOThread(name: String, _ body: @escaping @Sendable () -> Void) throws(TransportError) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        let name: String
        init(_ body: @escaping @Sendable () -> Void, name: String) {
            self.body = body
            self.name = name
        }
    }
    let box = Unmanaged.passRetained(Box(body, name: name)).toOpaque()
    var thread = pthread_t()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, 512 * 1024)
    let result = pthread_create(
        &thread, &attributes,
        { raw in
            guard let raw else { return nil }
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            box.body()
            return nil
        }, box)
    guard result == 0 else {
        Unmanaged<Box>.fromOpaque(box).release()
        throw TransportError(.systemCallFailed, "could not start an I/O thread: \(String(cString: strerror(result)))")
    }
    pthread_detach(thread)
}

/// A non-blocking pipe that wakes a thread sleeping in poll(): another thread writes a byte to
/// `writeEnd`, the sleeping thread polls `readEnd`.
struct WakeUpPipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(TransportError) {
        var ends: [Int32] = [0, 0]
        try systemCall("pipe") { pipe(&ends) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Wakes the polling thread. Safe from any thread; a full pipe already means "wake up".
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Clears pending wake-ups.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &bytes, 64) > 0 {}
    }

    /// Closes both ends.
    func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}
