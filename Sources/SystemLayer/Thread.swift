#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a detached thread that runs `body`: for blocking system calls (and OpenSSL), which
/// must never run on the cooperative thread pool. A plain pthread: a Foundation `Thread` costs
/// several times as much to start.
public func startThread(
    name: String, stackSize: Int = 512 * 1024, _ body: @escaping @Sendable () -> Void
) throws(SystemCallError) {
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
    // pthread functions return the error number instead of setting errno.
    var result = pthread_attr_init(&attributes)
    guard result == 0 else {
        Unmanaged<Box>.fromOpaque(box).release()
        throw SystemCallError(call: "pthread_attr_init", number: result)
    }
    defer { pthread_attr_destroy(&attributes) }
    result = pthread_attr_setstacksize(&attributes, stackSize)
    if result == 0 {
        result = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
                box.body()
                return nil
            }, box)
    }
    guard result == 0 else {
        Unmanaged<Box>.fromOpaque(box).release()
        throw SystemCallError(call: "pthread_create", number: result)
    }
    // Detaching a thread just made cannot fail (EINVAL/ESRCH are for threads already gone).
    let detached = pthread_detach(thread)
    assert(detached == 0, "pthread_detach failed: \(detached)")
}
