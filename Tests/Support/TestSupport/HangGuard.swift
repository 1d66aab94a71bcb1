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
/// Every suite of the I/O test targets carries it (`@Suite(.hangGuard)`); it applies to each of
/// their tests and test cases. A test without a time limit gets `defaultLimit`.
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
        }
        return id
    }

    package func end(_ id: Int) {
        _ = state.withLock { $0.running.removeValue(forKey: id) }
    }

    /// The guarded tests running now.
    package var runningNames: [String] { state.withLock { $0.running.values.map(\.name) } }

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
