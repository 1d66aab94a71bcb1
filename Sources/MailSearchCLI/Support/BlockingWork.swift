import FoundationEssentials
import SystemLayer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs work that blocks (reading standard input or a file to its end, waiting for a child
/// process, a terminal prompt) on a thread of its own, so the cooperative pool never waits on a
/// system call.
enum BlockingWork {
    /// Runs `body` on a new thread and returns its result.
    static func run<Value: Sendable>(
        _ body: @escaping @Sendable () throws(CommandFailure) -> Value
    ) async throws(CommandFailure) -> Value {
        let result: Result<Value, CommandFailure> = await withCheckedContinuation { continuation in
            do throws(SystemCallError) {
                // Parsers recurse; give them the main thread's room.
                try startThread(name: "blocking-work", stackSize: 8 << 20) {
                    continuation.resume(returning: Result { () throws(CommandFailure) -> Value in try body() })
                }
            } catch {
                continuation.resume(returning: .failure(CommandFailure("could not start a thread: \(error.reason)")))
            }
        }
        return try result.get()
    }
}

/// The process's environment variables.
enum ProcessEnvironment {
    /// Read straight from `environ`: `ProcessInfo.processInfo.environment` took 1.6M
    /// instructions (callgrind), an eighth of a whole `mailsearch explain` process; this takes a
    /// few thousand. The first of two same names wins, as with getenv(3); an entry without `=`
    /// is skipped.
    static func current() -> [String: String] { variables(environ) }

    /// The variables of an `environ`-style list: `NAME=value` strings up to a null pointer.
    static func variables(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> [String: String] {
        var variables: [String: String] = [:]
        var entry = list
        while let pointer = entry.pointee {
            let length = strlen(pointer)
            pointer.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                let text = UnsafeBufferPointer(start: bytes, count: length)
                if let equals = text.firstIndex(of: UInt8(ascii: "=")) {
                    let name = String(decoding: text[..<equals], as: UTF8.self)
                    if variables[name] == nil {
                        variables[name] = String(decoding: text[(equals + 1)...], as: UTF8.self)
                    }
                }
            }
            entry += 1
        }
        return variables
    }
}
