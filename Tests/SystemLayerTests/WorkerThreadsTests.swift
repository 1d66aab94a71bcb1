import Glibc
import Synchronization
import SystemLayer
import TestSupport
import Testing

/// The blocking-work threads: a job runs at once, on a thread that waits idle when there is one,
/// on a new one when there is not (so a job that blocks never holds up another); each job runs
/// once; an idle thread ends at its limit.
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct WorkerThreadsTests {
    @Test func jobsOneAfterAnotherShareOneThread() async throws {
        let threads = WorkerThreads(name: "test-reuse", stackSize: 1 << 20, idleLimit: 30)
        var seen: Set<UInt> = []
        for _ in 0..<20 {
            seen.insert(try await threads.value { UInt(pthread_self()) })
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
        let (ended, ending) = AsyncStream<Result<[Bool]?, SystemCallError>>.makeStream()
        try threads.run {
            starting.yield()
            ending.yield(
                Result { () throws(SystemCallError) -> [Bool]? in
                    try ReadinessPoll.wait([gate.readEnd], milliseconds: 20_000)
                })
        }
        var startedEvents = started.makeAsyncIterator()
        _ = await startedEvents.next()
        let second: UInt = try await threads.value {
            gate.signal()
            return UInt(pthread_self())
        }
        var endedEvents = ended.makeAsyncIterator()
        #expect(try await endedEvents.next()?.get() == [true])
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
                    try await threads.value { runs.jobs.withLock { $0.append(job) } }
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
        // The event is the thread's end: a thread-specific value whose destructor, run as the
        // thread exits, writes to a pipe (its write end travels in the value, plus one).
        let ended = try WakeUpPipe()
        defer { ended.close() }
        var key = pthread_key_t()
        #expect(
            pthread_key_create(&key) { value in
                guard let value else { return }
                var byte: UInt8 = 1
                _ = write(Int32(Int(bitPattern: value) - 1), &byte, 1)
            } == 0)
        defer { pthread_key_delete(key) }
        let marked = try await threads.value { [key, writeEnd = ended.writeEnd] in
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: Int(writeEnd) + 1))
        }
        #expect(marked == 0)
        #expect(threads.threadCount == 1)
        // Waited for on a thread of its own (the wait blocks), at most 10 s past the 1 s limit.
        let waiter = WorkerThreads(name: "test-idle-waiter", stackSize: 1 << 20, idleLimit: 30)
        let readable = try await waiter.value { [readEnd = ended.readEnd] in
            Result { () throws(SystemCallError) -> [Bool]? in try ReadinessPoll.wait([readEnd], milliseconds: 11_000) }
        }
        #expect(try readable.get() == [true])
        #expect(threads.threadCount == 0)
        // And a job after that starts a thread again.
        #expect(try await threads.value { 2 } == 2)
    }
}
