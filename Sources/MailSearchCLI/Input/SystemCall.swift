#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed POSIX call: which call, and `errno` with its text.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name of the call (`open`, `read`).
    public let call: String
    /// The `errno` value.
    public let number: Int32

    public init(call: String, number: Int32) {
        self.call = call
        self.number = number
    }

    /// The system's text for the error (`No such file or directory`).
    public var reason: String { String(cString: strerror(number)) }

    public var description: String { "\(call): \(reason)" }
}

/// Runs a POSIX call, retrying on EINTR and turning -1 into a `SystemCallError`.
func systemCall<Result: BinaryInteger>(_ name: String, _ body: () -> Result) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let number = errno
        if number == EINTR { continue }
        throw SystemCallError(call: name, number: number)
    }
}
