import Synchronization

/// Wakes the tasks that wait for something about the server to change (a fault fired, a
/// session ended), so a test waits for the event itself, not for a guess at how long it takes.
/// Each waiter re-checks its own condition when woken. `package`, so test helpers that wait for
/// a child process's output use the same mechanism.
package final class ChangeSignal: Sendable {
    private struct State {
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Something changed: wakes every waiter.
    package func notify() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until `condition` holds (checked now and after every change), or `timeout` passes,
    /// or the task is cancelled; whether it holds.
    package func wait(timeout: Duration, until condition: @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let generation = state.withLock { $0.generation }
            if condition() { return true }
            if ContinuousClock.now >= deadline || Task.isCancelled { return false }
            await change(since: generation, until: deadline)
        }
    }

    /// Returns after the next change since `generation`, at `deadline`, or on cancellation.
    private func change(since generation: Int, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = self.state.withLock { state -> Bool in
                            if state.generation != generation || Task.isCancelled { return true }
                            state.waiters[id] = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
                    waiter?.resume()
                }
            }
            group.addTask {
                // The bound on the wait, not a guess at how long the event takes.
                try? await Task.sleep(until: deadline)
            }
            await group.next()
            group.cancelAll()
        }
    }
}
