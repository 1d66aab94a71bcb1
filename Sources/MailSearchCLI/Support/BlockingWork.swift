import FoundationEssentials
import SystemLayer

/// Runs work that blocks (reading standard input or a file to its end, waiting for a child
/// process, a terminal prompt) on a thread of SystemLayer's ``WorkerThreads`` (an idle one, or a
/// new one), so the cooperative pool never waits on a system call.
enum BlockingWork {
    /// Runs `body` on a blocking-work thread and returns its result.
    static func run<Value: Sendable>(
        _ body: @escaping @Sendable () throws(CommandFailure) -> Value
    ) async throws(CommandFailure) -> Value {
        let result: Result<Value, CommandFailure>
        do throws(SystemCallError) {
            // The pool's threads have the main thread's room (parsers recurse).
            result = try await WorkerThreads.shared.value {
                Result { () throws(CommandFailure) -> Value in try body() }
            }
        } catch {
            throw CommandFailure("could not start a thread: \(error.reason)")
        }
        return try result.get()
    }
}
