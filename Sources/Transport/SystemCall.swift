#if canImport(Glibc)
import Glibc
#endif

/// An errno that a caller of `systemCall(_:handingBack:_:)` asked to handle itself.
package struct SystemErrorNumber: Error, Equatable {
    package let number: Int32

    package init(number: Int32) { self.number = number }

    /// The system's text for it (`Not a directory`).
    package var reason: String { String(cString: strerror(number)) }
}

/// Calls `body`, retrying on EINTR; turns -1 into a `TransportError` that names the call.
@discardableResult
func systemCall<Value: FixedWidthInteger>(_ name: String, _ body: () -> Value) throws(TransportError) -> Value {
    switch try systemCall(name, handingBack: { _ in false }, body) {
    case .success(let value): return value
    case .failure(let failure): throw TransportError.system(name, failure.number)
    }
}

/// Calls `body` and checks its result: -1 with an errno that `handsBack` accepts is returned as
/// `.failure` for the caller to act on (EAGAIN on a non-blocking descriptor, EINPROGRESS from
/// connect); EINTR is otherwise retried; any other errno throws a `TransportError` naming the call.
///
/// `handsBack` is asked before EINTR is retried, so a caller can take EINTR as "done" (close) or
/// as "go round your own loop" (poll, whose timeout must be worked out again).
package func systemCall<Value: FixedWidthInteger>(
    _ name: String, handingBack handsBack: (Int32) -> Bool, _ body: () -> Value
) throws(TransportError) -> Result<Value, SystemErrorNumber> {
    while true {
        let result = body()
        guard result == -1 else { return .success(result) }
        let number = errno
        if handsBack(number) { return .failure(SystemErrorNumber(number: number)) }
        if number == EINTR { continue }
        throw TransportError.system(name, number)
    }
}

/// Whether an errno says a non-blocking descriptor is not ready (EAGAIN / EWOULDBLOCK).
func isWouldBlock(_ number: Int32) -> Bool {
    number == EAGAIN || number == EWOULDBLOCK
}

/// Whether an errno is EINTR: for calls that go round their caller's loop instead of retrying.
func isInterrupted(_ number: Int32) -> Bool {
    number == EINTR
}

/// Closes a descriptor this module owns.
///
/// EINTR counts as closed: Linux has released the descriptor already, and closing it again could
/// close one that another thread has just opened. Any other failure (EBADF) means the descriptor
/// was not ours to close, which is a bug: debug builds stop there.
func closeDescriptor(_ descriptor: Int32) {
    do {
        _ = try systemCall("close", handingBack: isInterrupted) { Glibc.close(descriptor) }
    } catch {
        assertionFailure("closing descriptor \(descriptor) failed: \(error)")
    }
}

/// Makes a descriptor non-blocking and close-on-exec.
func makeNonBlockingAndCloseOnExec(_ descriptor: Int32) throws(TransportError) {
    let flags = try systemCall("fcntl") { fcntl(descriptor, F_GETFL) }
    try systemCall("fcntl") { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    try systemCall("fcntl") { fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
}

/// Turns Nagle's algorithm off: IMAP commands are small and wait for their answer.
func setNoDelay(_ descriptor: Int32) throws(TransportError) {
    var one: Int32 = 1
    try systemCall("setsockopt") {
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}
