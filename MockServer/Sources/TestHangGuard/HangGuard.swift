import Foundation
import Synchronization
public import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Ends the test run, naming the test, when a test outlives its time limit by `HangGuard.grace`.
///
/// Swift Testing's time limit records an issue and cancels the test, and then waits for the test
/// to return. A test stuck where cancellation does not reach (a continuation nobody resumes, a
/// blocking call) holds the whole run until CI's own limit kills it, and the runner's buffered
/// output, the only place the failure was written, is lost with it (a CI run that hung for
/// 90 minutes printed nothing after its 64th second). The guard writes the stuck test's name and
/// every other running guarded test straight to standard error, and exits with status 1.
///
/// Every suite of this package's I/O test targets carries it, and a user's tests get it from
/// `import MockIMAPServerTesting`: `@Suite(.hangGuard, .timeLimit(.minutes(1)))`. It applies to
/// each test and test case of the suite. A test without a time limit gets `defaultLimit`.
public struct HangGuard: SuiteTrait, TestTrait, TestScoping {
    /// The limit for a test that has none of its own.
    public static let defaultLimit: Duration = .seconds(300)
    /// How long past its limit a test may still run before the run is ended: Swift Testing's
    /// cancellation has had this long to end it.
    public static let grace: Duration = .seconds(60)

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // Called for the suite and the test function too; the test case is what runs the body.
        guard testCase != nil, !test.isSuite else {
            try await function()
            return
        }
        let limit = (test.timeLimit ?? Self.defaultLimit) + Self.grace
        let id = HangWatch.shared.begin("\(test.id)", limit: limit)
        defer { HangWatch.shared.end(id) }
        try await function()
    }
}

extension Trait where Self == HangGuard {
    /// Ends the run with the test's name when a test hangs past its time limit (see `HangGuard`).
    public static var hangGuard: HangGuard { HangGuard() }
}

/// The running guarded tests, watched by a thread of its own (not the cooperative pool, which a
/// hang may hold).
package final class HangWatch: Sendable {
    package static let shared = HangWatch()

    private struct Running {
        let name: String
        let started: ContinuousClock.Instant
        let deadline: ContinuousClock.Instant
    }

    private struct State {
        var nextID = 0
        var running: [Int: Running] = [:]
        var watching = false
    }

    private let state = Mutex(State())

    /// Watches `name` from now on; it hangs when it still runs after `limit`.
    package func begin(_ name: String, limit: Duration) -> Int {
        let now = ContinuousClock.now
        let (id, startWatching) = state.withLock { state -> (Int, Bool) in
            state.nextID += 1
            state.running[state.nextID] = Running(name: name, started: now, deadline: now + limit)
            defer { state.watching = true }
            return (state.nextID, !state.watching)
        }
        if startWatching {
            let thread = Thread { self.watch() }
            thread.name = "hang-watch"
            thread.start()
            if let path = ProcessInfo.processInfo.environment["MAILSEARCH_STALL_DUMP"] {
                for onMainActor in [false, true] {
                    let probe = Thread { PoolStallProbe(dumpPath: path, onMainActor: onMainActor).run() }
                    probe.name = onMainActor ? "main-actor-stall-probe" : "pool-stall-probe"
                    probe.start()
                }
            }
        }
        return id
    }

    package func end(_ id: Int) {
        _ = state.withLock { $0.running.removeValue(forKey: id) }
    }

    /// The guarded tests running now.
    package var runningNames: [String] { state.withLock { $0.running.values.map(\.name) } }

    /// The guarded tests that have run for longer than `duration`.
    package func running(longerThan duration: Duration) -> [String] {
        let now = ContinuousClock.now
        return state.withLock { $0.running.values.filter { now - $0.started > duration }.map(\.name) }
    }

    private func watch() {
        while true {
            Thread.sleep(forTimeInterval: 1)
            let now = ContinuousClock.now
            let running = state.withLock { Array($0.running.values) }
            guard let hung = running.first(where: { $0.deadline <= now }) else { continue }
            var report = "\nHANG: \(hung.name) has run for \(seconds(now - hung.started)) s, past its time limit and "
            report += "\(seconds(HangGuard.grace)) s more; it is stuck where cancellation does not reach.\n"
            report += "Tests still running:\n"
            for test in running.sorted(by: { $0.started < $1.started }) {
                report += "  \(test.name) (\(seconds(now - test.started)) s)\n"
            }
            report += "The test run is ended with status 1.\n"
            let bytes = Array(report.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                offset += written
            }
            _exit(1)
        }
    }

    private func seconds(_ duration: Duration) -> Int64 { duration.components.seconds }
}

/// A diagnostic, on only when `MAILSEARCH_STALL_DUMP` names a file: twice a second a task is put
/// on the cooperative pool (and another on the main actor); when one has not run after 3 s, the
/// latency and the guarded tests running are appended to the file, and (at most six times per
/// probe, 8 s apart) gdb writes every thread's backtrace to `<file>.<pool|main>.gdbN`.
private struct PoolStallProbe: Sendable {
    let dumpPath: String
    let onMainActor: Bool

    func append(_ text: String, to path: String) {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
        handle.closeFile()
    }

    var kind: String { onMainActor ? "main" : "pool" }

    func dumpThreads(to path: String) {
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
        gdb.arguments = ["-p", "\(getpid())", "-batch", "-ex", "thread apply all bt 60"]
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        gdb.standardOutput = FileHandle(forWritingAtPath: path)
        gdb.standardError = FileHandle.nullDevice
        try? gdb.run()
        gdb.waitUntilExit()
    }

    func run() {
        final class Flag: Sendable { let time = Mutex<ContinuousClock.Instant?>(nil) }
        let start = ContinuousClock.now
        var dumps = 0
        var lastDump = start - .seconds(60)
        var dumpedLong = false
        while true {
            let flag = Flag()
            let asked = ContinuousClock.now
            if onMainActor {
                Task.detached { @MainActor in flag.time.withLock { $0 = .now } }
            } else {
                Task.detached { flag.time.withLock { $0 = .now } }
            }
            var reported = false
            while flag.time.withLock({ $0 }) == nil {
                Thread.sleep(forTimeInterval: 0.1)
                let waited = ContinuousClock.now - asked
                if waited > .seconds(3) && !reported {
                    reported = true
                    let names = HangWatch.shared.runningNames.sorted().joined(separator: "\n  ")
                    append(
                        "at \(ContinuousClock.now - start): \(kind) stalled 3 s; running:\n  \(names)\n", to: dumpPath)
                    if dumps < 6 && ContinuousClock.now - lastDump > .seconds(8) {
                        dumps += 1
                        lastDump = .now
                        dumpThreads(to: dumpPath + ".\(kind).gdb\(dumps)")
                    }
                }
            }
            let latency = flag.time.withLock { $0 }! - asked
            if reported { append("  ran after \(latency)\n", to: dumpPath) }
            // Once, the first time a guarded test has run for 40 s: what it waits on.
            if !onMainActor && !dumpedLong {
                let long = HangWatch.shared.running(longerThan: .seconds(40))
                if !long.isEmpty {
                    dumpedLong = true
                    append("at \(ContinuousClock.now - start): running for 40 s: \(long)\n", to: dumpPath)
                    dumpThreads(to: dumpPath + ".long.gdb")
                }
            }
            Thread.sleep(forTimeInterval: 0.5)
        }
    }
}
