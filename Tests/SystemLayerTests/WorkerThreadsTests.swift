import Glibc
import Synchronization
import SystemLayer
import TestSupport
import Testing

/// The blocking-work threads: a job runs at once, on a thread that waits idle when there is one,
/// on a new one when there is not (so a job that blocks never holds up another); each job runs
/// once; an idle thread ends at its limit.
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct WorkerThreadsTests {
    /// Runs `body` on `threads` and waits for its result.
    static func value<Value: Sendable>(
        on threads: WorkerThreads, _ body: @escaping @Sendable () -> Value
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            do throws(SystemCallError) {
                try threads.run { continuation.resume(returning: body()) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    @Test func jobsOneAfterAnotherShareOneThread() async throws {
        let threads = WorkerThreads(name: "test-reuse", stackSize: 1 << 20, idleLimit: 30)
        var seen: Set<UInt> = []
        for _ in 0..<20 {
            seen.insert(try await Self.value(on: threads) { UInt(pthread_self()) })
        }
        // One job at a time: the thread that ran the last waits for the next. (A job resumes
        // its caller as its last act, so the next can come while that thread is still on its
        // way back to waiting, and go to a second: never to a third.)
        #expect(seen.count <= 2)
        #expect(threads.threadCount <= 2)
    }

    @Test func aJobThatBlocksDoesNotHoldUpTheNext() async throws {
        let threads = WorkerThreads(name: "test-block", stackSize: 1 << 20, idleLimit: 30)
        // The first job blocks until the second has run: on one thread this never ends.
        let gate = try WakeUpPipe()
        defer { gate.close() }
        let (started, starting) = AsyncStream<Void>.makeStream()
        let (ended, ending) = AsyncStream<Bool>.makeStream()
        try threads.run {
            starting.yield()
            ending.yield((try? ReadinessPoll.wait([gate.readEnd], milliseconds: 20_000)) == [true])
        }
        var startedEvents = started.makeAsyncIterator()
        _ = await startedEvents.next()
        let second: UInt = try await Self.value(on: threads) {
            gate.signal()
            return UInt(pthread_self())
        }
        var endedEvents = ended.makeAsyncIterator()
        #expect(await endedEvents.next() == true)
        #expect(second != 0)
        #expect(threads.threadCount == 2)
    }

    @Test func everyJobRunsOnceWhenManyComeAtOnce() async throws {
        let threads = WorkerThreads(name: "test-many", stackSize: 1 << 20, idleLimit: 30)
        final class Runs: Sendable { let jobs = Mutex<[Int]>([]) }
        let runs = Runs()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for job in 0..<300 {
                group.addTask {
                    try await Self.value(on: threads) { runs.jobs.withLock { $0.append(job) } }
                }
            }
            try await group.waitForAll()
        }
        #expect(runs.jobs.withLock { $0.sorted() } == Array(0..<300))
        // Far fewer threads than jobs: idle ones were woken for later jobs.
        #expect(threads.threadCount < 300)
    }

    @Test func anIdleThreadEndsAtItsLimit() async throws {
        let threads = WorkerThreads(name: "test-idle", stackSize: 1 << 20, idleLimit: 1)
        _ = try await Self.value(on: threads) { 1 }
        #expect(threads.threadCount == 1)
        // The thread's end is the event: looked for every 20 ms, for at most 10 s.
        var waited = 0
        while threads.threadCount > 0 && waited < 500 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        #expect(threads.threadCount == 0)
        // And a job after that starts a thread again.
        #expect(try await Self.value(on: threads) { 2 } == 2)
    }
}
