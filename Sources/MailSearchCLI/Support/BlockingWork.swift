import FoundationEssentials
import SystemLayer

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
