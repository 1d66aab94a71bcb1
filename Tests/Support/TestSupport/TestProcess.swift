import Foundation

#if canImport(Glibc)
public import Glibc
#endif

/// Helper processes for tests (scripts, servers), started with posix_spawn and waited for on a
/// thread of their own, so the cooperative pool never blocks.
///
/// Foundation's `Process.run()` on Linux crashed (memcpy, bad pointer) when tests started helpers
/// at the same time, even one at a time behind a lock; posix_spawn has no such problem.
public enum TestProcess {
    /// Runs `body` (which makes pipes or starts a child) while no other test helper does either.
    ///
    /// Tests start children in parallel, and a child inherits every descriptor of the test
    /// process that is not close-on-exec: a child that inherited another test's pipe holds it
    /// open, and that test never sees its end (a long-lived child, Dovecot or a tmux server, holds
    /// it for good). Every pipe is made here and marked close-on-exec before the lock is released
    /// (`closeOnExecPipe`; Glibc does not import `pipe2`), and every spawn happens here, so no
    /// spawn falls between a pipe's creation and its marking.
    public static func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        spawnLock.lock()
        defer { spawnLock.unlock() }
        return try body()
    }

    private static let spawnLock = NSLock()

    /// A pipe whose two ends are close-on-exec (a child gets one only through a dup2 of its
    /// spawn actions, which clears the flag on the copy).
    public static func closeOnExecPipe() throws -> (read: Int32, write: Int32) {
        try exclusively {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw TestProcessError("pipe failed: \(String(cString: strerror(errno)))") }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            return (ends[0], ends[1])
        }
    }

    /// Starts `executable` with `arguments`, standard input, output and error on /dev/null, and
    /// does not wait for it (a watcher, a server the test stops itself).
    public static func spawnDetached(_ executable: String, _ arguments: [String]) throws {
        _ = try spawn(executable, arguments, output: nil, errors: nil)
    }

    /// Runs a program to completion; returns its standard output, or throws with its standard
    /// error when it fails. `environment` is added to the test process's own. A program still
    /// running after `timeout` is killed, and that is an error too (a hang fails the test).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(240)
    ) async throws -> String {
        let result = try await collect(executable, arguments, environment: environment, timeout: timeout)
        guard result.status == 0 else {
            throw TestProcessError(
                "\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.first ?? "") failed ("
                    + (result.timedOut ? "killed after \(timeout)" : result.statusText) + "): " + result.standardError)
        }
        return result.standardOutput
    }

    /// How a program run by `collect` ended and what it wrote.
    public struct Result: Sendable {
        /// The exit code, or 128 + the signal that ended it.
        public var status: Int32
        /// Whether it was killed because it outlived its timeout.
        public var timedOut: Bool
        public var standardOutput: String
        public var standardError: String
        var statusText: String { status < 128 ? "exit \(status)" : "signal \(status - 128)" }
    }

    /// Runs a program to completion (killed after `timeout`) with standard input from the file
    /// `standardInput` (/dev/null when nil); how it ended, whatever the status.
    public static func collect(
        _ executable: String, _ arguments: [String], standardInput: String? = nil,
        environment: [String: String] = [:], timeout: Duration = .seconds(240)
    ) async throws -> Result {
        let child = try spawnCapturing(
            executable, arguments, standardInput: standardInput, environment: environment)
        return await withCheckedContinuation { continuation in
            // A thread of its own: it blocks in poll and waitpid.
            let thread = Thread {
                let (stdout, stderr, timedOut) = drain(
                    child.output, child.errors, deadline: .now + timeout, child: child.pid)
                close(child.output)
                close(child.errors)
                var status: Int32 = 0
                while waitpid(child.pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(
                    returning: Result(
                        status: exitCode(status), timedOut: timedOut,
                        standardOutput: String(decoding: stdout, as: UTF8.self),
                        standardError: String(decoding: stderr, as: UTF8.self)))
            }
            thread.start()
        }
    }

    /// Starts a program with standard output and error on close-on-exec pipes; its pid and the
    /// test's (read) ends of the two pipes, which the caller reads and closes.
    static func spawnCapturing(
        _ executable: String, _ arguments: [String], standardInput: String? = nil,
        environment: [String: String] = [:]
    ) throws -> (pid: pid_t, output: Int32, errors: Int32) {
        let outputPipe = try closeOnExecPipe()
        let errorPipe: (read: Int32, write: Int32)
        do { errorPipe = try closeOnExecPipe() } catch {
            [outputPipe.read, outputPipe.write].forEach { close($0) }
            throw error
        }
        defer { [outputPipe.write, errorPipe.write].forEach { close($0) } }
        do {
            let pid = try spawn(
                executable, arguments, input: standardInput, output: outputPipe.write, errors: errorPipe.write,
                environment: environment)
            return (pid, outputPipe.read, errorPipe.read)
        } catch {
            [outputPipe.read, errorPipe.read].forEach { close($0) }
            throw error
        }
    }

    /// A `waitpid` status as a shell reports it: the exit code, or 128 + the signal that ended it.
    public static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Reads both pipes to their end (together, so neither can fill up and stall the child), or
    /// until `deadline`, when it kills `child`.
    private static func drain(
        _ output: Int32, _ errors: Int32, deadline: ContinuousClock.Instant, child: pid_t
    ) -> ([UInt8], [UInt8], Bool) {
        var collected: [[UInt8]] = [[], []]
        var open = [output, errors]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.contains(where: { $0 >= 0 }) {
            let remaining = deadline - .now
            guard remaining > .zero else {
                kill(child, SIGKILL)
                return (collected[0], collected[1], true)
            }
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + 1, 1000))
            guard poll(&descriptors, 2, milliseconds) >= 0 || errno == EINTR else { break }
            for index in 0..<2 where open[index] >= 0 && descriptors[index].revents != 0 {
                let count = read(open[index], &buffer, buffer.count)
                if count > 0 {
                    collected[index] += buffer[0..<count]
                } else if count == 0 || errno != EINTR {
                    open[index] = -1
                }
            }
        }
        return (collected[0], collected[1], false)
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], input: String? = nil, output: Int32?, errors: Int32?,
        environment: [String: String] = [:]
    ) throws
        -> pid_t
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if let errors {
            posix_spawn_file_actions_adddup2(&actions, errors, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // A child must not inherit the test runner's blocked signals (Dovecot would ignore the
        // SIGTERM of `stop`).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp =
            ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { strdup("\($0.key)=\($0.value)") }
            + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let result = exclusively {
            actions.closeInheritedDescriptors(keeping: Set([output, errors].compactMap { $0 }))
            return posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        guard result == 0 else {
            throw TestProcessError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return pid
    }
}

/// A helper process failed.
public struct TestProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension posix_spawn_file_actions_t {
    /// Closes, in the child, every descriptor above 2 that the test process has open except
    /// `kept` (which the caller's own actions dup or close): tests start children in parallel,
    /// and a child that inherited another test's pipe would hold it open, so that test would
    /// never see its end (a long-lived child, the tmux server or Dovecot, holds it for good).
    /// The listing may include a descriptor closed meanwhile: glibc ignores such a close.
    public mutating func closeInheritedDescriptors(keeping kept: Set<Int32> = []) {
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 && !kept.contains(descriptor) {
            posix_spawn_file_actions_addclose(&self, descriptor)
        }
    }
}
