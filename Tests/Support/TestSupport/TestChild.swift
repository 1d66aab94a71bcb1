import Foundation
import Synchronization

#if canImport(Glibc)
public import Glibc
#endif

/// A long-running helper process (a server a test talks to), started with posix_spawn like every
/// child of the tests: its standard output and error are read as they come on a thread of its
/// own, and its exit is reaped there.
///
/// Foundation's `Process.run()` is not used: on Linux it lists /proc/self/fd while other tests'
/// threads open and close descriptors, and crashed there (memcpy in
/// `findMaximumOpenFromProcSelfFD`) in a CI run with 2,000 threads, where the crash report then
/// never finished and the run hung.
public final class TestChild: Sendable {
    private struct State {
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var status: Int32?
    }

    public let pid: pid_t
    private let state = Mutex(State())
    /// Opened when a whole line of standard output has arrived, or the process has ended.
    private let lineOrEnd = Latch()
    /// Opened once the process has been reaped and both pipes have ended (or it had been gone 2 s).
    private let ended = Latch()

    /// Starts `executable` with `arguments`, standard input on /dev/null; `environment` is added
    /// to the test process's own.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let child = try TestProcess.spawnCapturing(executable, arguments, environment: environment)
        pid = child.pid
        let thread = Thread { [self] in pump(output: child.output, errors: child.errors) }
        thread.start()
    }

    public var standardOutput: String { state.withLock { String(decoding: $0.output, as: UTF8.self) } }
    public var standardError: String { state.withLock { String(decoding: $0.errors, as: UTF8.self) } }
    /// The exit code (or 128 + the signal), once it has ended.
    public var status: Int32? { state.withLock { $0.status } }
    public var isRunning: Bool { status == nil }

    /// Sends `signal` (SIGTERM by default) while it runs.
    public func send(_ signal: Int32 = SIGTERM) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits until a whole line of standard output has arrived or the process ended, at most
    /// `timeout`; whether a line arrived.
    public func waitForLine(timeout: Duration) async -> Bool {
        _ = await lineOrEnd.wait(timeout: timeout)
        return standardOutput.contains("\n")
    }

    /// Waits for the process to end and its output to be read, at most `timeout`; its status,
    /// or nil when it still runs.
    public func waitForExit(timeout: Duration) async -> Int32? {
        _ = await ended.wait(timeout: timeout)
        return status
    }

    /// Reads both pipes until they end, noting the exit as soon as it happens: a child started
    /// meanwhile elsewhere could hold a pipe open, so the exit, not the pipes' end, is the event.
    private func pump(output: Int32, errors: Int32) {
        var open = [output, errors]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var exitedAt: ContinuousClock.Instant?
        while open.contains(where: { $0 >= 0 }) {
            if exitedAt == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid {
                    state.withLock { $0.status = TestProcess.exitCode(raw) }
                    exitedAt = .now
                    lineOrEnd.open()
                }
            }
            if let exitedAt, ContinuousClock.now - exitedAt > .seconds(2) { break }
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, 2, 50) >= 0 || errno == EINTR else { break }
            for index in 0..<2 where open[index] >= 0 && descriptors[index].revents != 0 {
                let count = read(open[index], &buffer, buffer.count)
                if count > 0 {
                    let chunk = buffer[0..<count]
                    let hasLine = state.withLock { state -> Bool in
                        if index == 0 {
                            state.output += chunk
                            return state.output.contains(UInt8(ascii: "\n"))
                        }
                        state.errors += chunk
                        return false
                    }
                    if hasLine { lineOrEnd.open() }
                } else if count == 0 || errno != EINTR {
                    close(open[index])
                    open[index] = -1
                }
            }
        }
        for descriptor in open where descriptor >= 0 { close(descriptor) }
        if exitedAt == nil {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            state.withLock { $0.status = TestProcess.exitCode(raw) }
        }
        lineOrEnd.open()
        ended.open()
    }
}
