import SystemLayer

// libc: setsockopt and its constants (the socket options are Transport's own).
#if canImport(Glibc)
import Glibc
#endif

/// Runs SystemLayer's calls for Transport: a failure becomes the `TransportError` that names it.
func transporting<Value>(_ body: () throws(SystemCallError) -> Value) throws(TransportError) -> Value {
    do {
        return try body()
    } catch {
        throw TransportError.system(error.call, error.number)
    }
}

/// `systemCall(_:_:)` (EINTR retried, -1 checked) with its failure as a `TransportError`.
@discardableResult
func transportCall<Value: BinaryInteger>(_ name: String, _ body: () -> Value) throws(TransportError) -> Value {
    try transporting { () throws(SystemCallError) in try systemCall(name, body) }
}

/// `systemCall(_:handingBack:_:)` with its failure as a `TransportError`: errnos that
/// `handsBack` accepts come back as `.failure` for the caller to act on.
func transportCall<Value: BinaryInteger>(
    _ name: String, handingBack handsBack: (Int32) -> Bool, _ body: () -> Value
) throws(TransportError) -> Result<Value, SystemCallError> {
    try transporting { () throws(SystemCallError) in try systemCall(name, handingBack: handsBack, body) }
}

/// Turns Nagle's algorithm off: IMAP commands are small and wait for their answer.
func setNoDelay(_ descriptor: Int32) throws(TransportError) {
    var one: Int32 = 1
    try transportCall("setsockopt") {
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}
