#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached thread that runs `body`. Connections use one each, so that blocking system
/// calls and OpenSSL never run on the cooperative thread pool; the command-line tool uses it for
/// its blocking file and terminal work too (a plain pthread: a Foundation `Thread` costs several
/// times as much to start).
package func startIOThread(
    name: String, stackSize: Int = 512 * 1024, _ body: @escaping @Sendable () -> Void
) throws(TransportError) {
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
    pthread_attr_setstacksize(&attributes, stackSize)
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
        do {
            for end in ends { try makeNonBlockingAndCloseOnExec(end) }
        } catch {
            for end in ends { closeDescriptor(end) }
            throw error
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Wakes the polling thread. Safe from any thread; a full pipe (EAGAIN) already means "wake up".
    ///
    /// Any other failure means the pipe is gone, which cannot happen while a caller holds the
    /// connection (it is closed only in `deinit`): a bug, so debug builds stop there.
    func signal() {
        var byte: UInt8 = 1
        do {
            _ = try systemCall("write", handingBack: isWouldBlock) { write(writeEnd, &byte, 1) }
        } catch {
            assertionFailure("could not wake the I/O thread: \(error)")
        }
    }

    /// Clears pending wake-ups (until the non-blocking read finds the pipe empty).
    func drain() throws(TransportError) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            let drained = try systemCall("read", handingBack: isWouldBlock) { read(readEnd, &bytes, 64) }
            guard case .success(let count) = drained, count > 0 else { return }
        }
    }

    /// Closes both ends.
    func close() {
        closeDescriptor(readEnd)
        closeDescriptor(writeEnd)
    }
}
