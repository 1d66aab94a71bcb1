#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call, and `errno` with its text.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name of the call (`open`, `read`).
    public let call: String
    /// The `errno` value.
    public let number: Int32

    /// The failure of `call` with `errno` `number`.
    public init(call: String, number: Int32) {
        self.call = call
        self.number = number
    }

    /// The system's text for the error (`No such file or directory`).
    public var reason: String { String(cString: strerror(number)) }

    public var description: String { "\(call): \(reason)" }
}

/// Runs a system call, retrying on EINTR and turning -1 into a ``SystemCallError`` that names it.
@discardableResult
public func systemCall<Value: BinaryInteger>(_ name: String, _ body: () -> Value) throws(SystemCallError) -> Value {
    while true {
        let result = body()
        if result != -1 { return result }
        let number = errno
        if number == EINTR { continue }
        throw SystemCallError(call: name, number: number)
    }
}

/// Runs a system call and checks its result: -1 with an errno that `handsBack` accepts is
/// returned as `.failure` for the caller to act on (EAGAIN on a non-blocking descriptor,
/// EINPROGRESS from connect, ENOENT from an open that may find nothing); EINTR is otherwise
/// retried; any other errno throws.
///
/// `handsBack` is asked before EINTR is retried, so a caller can take EINTR as "done" (close) or
/// as "go round your own loop" (poll, whose timeout must be worked out again).
public func systemCall<Value: BinaryInteger>(
    _ name: String, handingBack handsBack: (Int32) -> Bool, _ body: () -> Value
) throws(SystemCallError) -> Result<Value, SystemCallError> {
    while true {
        let result = body()
        if result != -1 { return .success(result) }
        let number = errno
        if handsBack(number) { return .failure(SystemCallError(call: name, number: number)) }
        if number == EINTR { continue }
        throw SystemCallError(call: name, number: number)
    }
}

/// Closes a descriptor its caller owns.
///
/// EINTR counts as closed: Linux has released the descriptor already, and closing it again could
/// close one that another thread has just opened. Any other failure (EBADF) means the descriptor
/// was not the caller's to close, which is a bug: debug builds stop there.
public func closeDescriptor(_ descriptor: Int32) {
    do {
        _ = try systemCall("close", handingBack: { $0 == EINTR }) { close(descriptor) }
    } catch {
        assertionFailure("closing descriptor \(descriptor) failed: \(error)")
    }
}
