import Foundation

/// Runs work that blocks (reading standard input or a file to its end, waiting for a child
/// process, a terminal prompt) on a thread of its own, so the cooperative pool never waits on a
/// system call.
enum BlockingWork {
    /// Runs `body` on a new thread and returns its result.
    static func run<Value: Sendable>(
        _ body: @escaping @Sendable () throws(CommandFailure) -> Value
    ) async throws(CommandFailure) -> Value {
        let result: Result<Value, CommandFailure> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(CommandFailure) -> Value in try body() })
            }
            // Parsers recurse; give them the main thread's room.
            thread.stackSize = 8 << 20
            thread.start()
        }
        return try result.get()
    }
}

/// The process's environment variables.
enum ProcessEnvironment {
    static func current() -> [String: String] { ProcessInfo.processInfo.environment }
}
