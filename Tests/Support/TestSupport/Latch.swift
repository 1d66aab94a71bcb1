import Synchronization

/// Something a test waits for: opened once by whoever sees it happen (a process exit, a pipe's
/// end, a log line), after which every wait returns at once.
///
/// Waits are bounded: `wait(timeout:)` says whether it opened in time, so a test that waits for an
/// event fails when the event never comes instead of hanging.
public final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether it has been opened.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens it and wakes every waiter. Opening twice is harmless.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until it opens or `timeout` has passed; whether it opened.
    public func wait(timeout: Duration) async -> Bool {
        if isOpen { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.waitUntilOpenOrCancelled()
                return self.isOpen
            }
            group.addTask {
                // The bound on the wait, not a guess at how long the event takes.
                try? await Task.sleep(for: timeout)
                return self.isOpen
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first || isOpen
        }
    }

    private func waitUntilOpenOrCancelled() async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
