#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Threads for blocking work (SQLite, reading a file or standard input to its end, waiting for a
/// child), kept for the next job instead of ending with each: a job goes to a thread that waits
/// idle, or to a new one when none does, so a job that blocks for long never holds up another.
/// A thread left idle for `idleLimit` ends.
///
/// Why: an offline search made six or seven short blocking calls, each on a thread of its own,
/// and starting a thread (its stack, its malloc arena, its exit) cost more than some of the
/// calls; type-ahead started one for every key.
///
/// Ownership rule (why `@unchecked Sendable` is sound): `jobs`, `idle`, `alive` and `nextID` are
/// read and written only with `mutex` held; `mutex` and `wake` are set up in `init` and never freed (the
/// shared instance lives as long as the process, and an instance is only dropped once no thread
/// of its own is left, see `deinit`).
public final class WorkerThreads: @unchecked Sendable {
    /// The process's threads for blocking work: 8 MB stacks (parsers recurse), 10 s idle.
    public static let shared = WorkerThreads(name: "blocking-work", stackSize: 8 << 20, idleLimit: 10)

    private let name: String
    private let stackSize: Int
    private let idleSeconds: Int
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let wake: UnsafeMutablePointer<pthread_cond_t>
    private var jobs: [(id: UInt64, body: @Sendable () -> Void)] = []
    /// Threads waiting for a job.
    private var idle = 0
    /// Threads alive, busy or idle (``threadCount``).
    private var alive = 0
    private var nextID: UInt64 = 0

    /// Threads named `name` with stacks of `stackSize` bytes that end after `idleLimit` seconds
    /// without a job.
    public init(name: String, stackSize: Int, idleLimit: Int) {
        self.name = name
        self.stackSize = stackSize
        idleSeconds = max(idleLimit, 0)
        mutex = .allocate(capacity: 1)
        wake = .allocate(capacity: 1)
        // Default attributes: these cannot fail on Linux (EAGAIN/ENOMEM are for other kinds).
        let mutexMade = pthread_mutex_init(mutex, nil)
        precondition(mutexMade == 0, "pthread_mutex_init failed: \(mutexMade)")
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Idle limits count on the monotonic clock: a clock change neither ends nor keeps a thread.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        let condMade = pthread_cond_init(wake, &attributes)
        pthread_condattr_destroy(&attributes)
        precondition(condMade == 0, "pthread_cond_init failed: \(condMade)")
    }

    deinit {
        // Only reached once no thread holds `self` (each job's thread keeps it alive).
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(mutex)
        wake.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` on one of these threads, at once: an idle one, or a new one. Throws only when
    /// a new thread was needed and could not be started; `body` then never runs.
    public func run(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        pthread_mutex_lock(mutex)
        nextID &+= 1
        let id = nextID
        jobs.append((id, body))
        // Each queued job has an idle thread woken for it, or gets a thread of its own.
        let wakesIdle = jobs.count <= idle
        if wakesIdle {
            pthread_cond_signal(wake)
        } else {
            alive += 1
        }
        pthread_mutex_unlock(mutex)
        if wakesIdle { return }
        do throws(SystemCallError) {
            try startThread(name: name, stackSize: stackSize) { self.work() }
        } catch {
            // No thread took it: it must never run after the caller heard it failed.
            pthread_mutex_lock(mutex)
            alive -= 1
            jobs.removeAll { $0.id == id }
            pthread_mutex_unlock(mutex)
            throw error
        }
    }

    /// `body`'s result, computed on one of these threads while the caller's task waits (never
    /// blocking the caller's thread): the bridge every async caller of blocking work uses.
    /// Throws only when no thread could be started; `body` then never runs.
    public func value<Value: Sendable>(
        _ body: @escaping @Sendable () -> Value
    ) async throws(SystemCallError) -> Value {
        let result: Result<Value, SystemCallError> = await withCheckedContinuation { continuation in
            do throws(SystemCallError) {
                try run { continuation.resume(returning: .success(body())) }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    /// Threads alive now, busy or idle.
    public var threadCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return alive
    }

    /// A thread's life: jobs while there are any, then idle until one comes or the limit passes.
    private func work() {
        pthread_mutex_lock(mutex)
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                pthread_mutex_unlock(mutex)
                job.body()
                pthread_mutex_lock(mutex)
                continue
            }
            var deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            deadline.tv_sec += idleSeconds
            var timedOut = false
            idle += 1
            while jobs.isEmpty && !timedOut {
                // 0 when woken (or spuriously), ETIMEDOUT at the limit; nothing else with a
                // valid mutex, condition and deadline.
                timedOut = pthread_cond_timedwait(wake, mutex, &deadline) == ETIMEDOUT
            }
            idle -= 1
            // A job queued as the limit passed is still taken: it was counted on this thread.
            if jobs.isEmpty {
                alive -= 1
                pthread_mutex_unlock(mutex)
                return
            }
        }
    }
}
