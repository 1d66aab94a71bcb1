import Dispatch
import Synchronization
public import Testing

/// Runs a test's body on the CPU lane (`CPULane`), not the cooperative pool.
///
/// The cooperative pool is as wide as the machine has cores (two on CI), and a job on it runs
/// until it suspends. A test that computes for seconds without suspending (a property test, a
/// parser fed every chunking of a 20,000-message fixture, a fuzz loop) holds a pool thread for
/// that long; two such tests hold the whole pool, and every in-process server of the I/O tests
/// running beside them stops answering. A full run saw the pool stalled for 16 and 23 s while
/// those tests ran (`MAILSEARCH_STALL_DUMP` finds such stalls), and clients of the mock servers
/// gave up after 30 s of silence. On the lane such tests run on threads of their own, which the
/// kernel time-slices with the pool's threads: the pool always has its share.
///
/// Put it on every suite whose tests compute for more than a fraction of a second
/// (`@Suite(.cpuBound)`). The test still runs in its own task, so `#expect` and task-locals work
/// as anywhere.
public struct CPUBound: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil, !test.isSuite else {
            try await function()
            return
        }
        try await withTaskExecutorPreference(CPULane.shared) { try await function() }
    }
}

extension Trait where Self == CPUBound {
    /// Runs the test on the CPU lane, off the cooperative pool (see `CPUBound`).
    public static var cpuBound: CPUBound { CPUBound() }
}

/// A task executor with four serial dispatch queues of its own, each served by a thread outside
/// the cooperative pool (dispatch gives a serial queue an overcommitting thread; a concurrent
/// queue would share the pool's width-limited root queue). Jobs go to the queues in turn, so four
/// lane tests compute at once and a long one never holds up the others for its whole run; the
/// kernel time-slices the lane's threads with the pool's.
public final class CPULane: TaskExecutor {
    public static let shared = CPULane()

    private static let key = DispatchSpecificKey<Bool>()
    private let queues: [DispatchQueue]
    private let next = Mutex(0)

    /// Whether the caller runs on one of the lane's threads.
    public static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    private init() {
        queues = (0..<4).map { number in
            let queue = DispatchQueue(label: "mailsearch.tests.cpu-lane.\(number)")
            queue.setSpecific(key: Self.key, value: true)
            return queue
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let queue = next.withLock { next in
            defer { next = (next + 1) % queues.count }
            return queues[next]
        }
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Runs `body` on the lane and returns its result: for test set-up that computes (seeding a
    /// mock server with hundreds of messages) inside a test that otherwise waits on I/O.
    @discardableResult
    public static func run<Result: Sendable>(_ body: @Sendable () throws -> Result) async throws -> Result {
        try await withTaskExecutorPreference(shared) { try body() }
    }
}
