import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The threads the mock server's sessions run on: a task executor of its own, so the server
/// answers while the process's cooperative pool is busy.
///
/// A test process runs many tests at once on a cooperative pool as wide as the machine has
/// cores (two here). Tests that seed large mailboxes, parse megabytes or wait on other
/// processes can hold every thread of that pool for seconds; a server whose sessions ran there
/// would fall silent meanwhile, and its clients would time out on a server that is only
/// waiting its turn. Every task of the server (accepting, each session, each session's reader)
/// prefers this executor, so it keeps its own threads; the operating system shares the cores
/// between them and the pool.
final class SessionExecutor: TaskExecutor {
    /// One executor for every server in the process.
    static let shared = SessionExecutor(threadCount: 2)

    private struct Queue {
        var jobs: [UnownedJob] = []
        var head = 0

        mutating func pop() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }

    private let queue = Mutex(Queue())
    /// Counts the jobs queued and not yet taken: a thread waits on it for the next one.
    private let available = DispatchSemaphore(value: 0)

    private init(threadCount: Int) {
        for _ in 0..<threadCount {
            Self.startThread { [self] in run() }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.jobs.append(unowned) }
        available.signal()
    }

    private func run() -> Never {
        while true {
            available.wait()
            guard let job = queue.withLock({ $0.pop() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Starts a detached thread that runs `body` (which never returns).
    private static func startThread(_ body: @escaping @Sendable () -> Never) {
        final class Box: Sendable {
            let body: @Sendable () -> Never
            init(_ body: @escaping @Sendable () -> Never) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
            }, box)
        // Without its threads the server cannot run at all: there is nothing to fall back to.
        precondition(result == 0, "the mock server could not start a thread: \(String(cString: strerror(result)))")
        pthread_detach(thread)
    }
}
