import Dispatch
import Synchronization

// libc: signal dispositions for SIGINT and SIGTERM.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM caught from the moment it is made (so one that comes while connecting is
/// not lost) and awaited without blocking a thread: `watch` ends on Ctrl-C by logging out.
final class TerminationSignals: Sendable {
    private struct State {
        var fired = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Starts catching the signals; they no longer end the process until `stopCatching`.
    func startCatching() -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "mailsearch.signals")
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in fire() }
            source.resume()
            return source
        }
    }

    /// Stops catching: the signals act as before again.
    static func stopCatching(_ sources: [any DispatchSourceSignal]) {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// Whether a signal came.
    var hasFired: Bool { state.withLock { $0.fired } }

    private func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when a signal has come (at once if one came already) or the task is cancelled.
    func wait() async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
