import Dispatch
import Foundation

#if canImport(Glibc)
public import Glibc
#endif

/// Helper processes for tests (scripts, servers), started with posix_spawn and waited for on a
/// Dispatch thread, so the cooperative pool never blocks.
///
/// Foundation's `Process.run()` on Linux crashed (memcpy, bad pointer) when tests started helpers
/// at the same time, even one at a time behind a lock; posix_spawn has no such problem.
public enum TestProcess {
    /// Kept for callers that still start a Foundation `Process` themselves: runs `body` alone.
    public static func launching(_ body: () throws -> Void) throws {
        try launchQueue.sync { try body() }
    }

    private static let launchQueue = DispatchQueue(label: "TestProcess.launch")

    /// Starts `executable` with `arguments`, standard input, output and error on /dev/null, and
    /// does not wait for it (a watcher, a server the test stops itself).
    public static func spawnDetached(_ executable: String, _ arguments: [String]) throws {
        _ = try spawn(executable, arguments, output: nil, errors: nil)
    }

    /// Runs a program to completion; returns its standard output, or throws with its standard
    /// error when it fails. `environment` is added to the test process's own.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> String {
        var outputPipe: [Int32] = [0, 0]
        var errorPipe: [Int32] = [0, 0]
        guard pipe(&outputPipe) == 0, pipe(&errorPipe) == 0 else { throw TestProcessError("pipe failed") }
        let pid: pid_t
        do {
            pid = try spawn(
                executable, arguments, output: outputPipe[1], errors: errorPipe[1], environment: environment)
        } catch {
            outputPipe.forEach { close($0) }
            errorPipe.forEach { close($0) }
            throw error
        }
        close(outputPipe[1])
        close(errorPipe[1])
        let readOutput = outputPipe[0]
        let readErrors = errorPipe[0]
        let (status, stdout, stderr) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let (stdout, stderr) = drain(readOutput, readErrors)
                close(readOutput)
                close(readErrors)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: (status, stdout, stderr))
            }
        }
        // Exited normally with code 0 (WIFEXITED && WEXITSTATUS == 0).
        guard status & 0x7F == 0 && (status >> 8) & 0xFF == 0 else {
            throw TestProcessError(
                "\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.first ?? "") failed ("
                    + (status & 0x7F == 0 ? "exit \((status >> 8) & 0xFF)" : "signal \(status & 0x7F)") + "): "
                    + String(decoding: stderr, as: UTF8.self))
        }
        return String(decoding: stdout, as: UTF8.self)
    }

    /// Reads both pipes to their end (together, so neither can fill up and stall the child).
    private static func drain(_ output: Int32, _ errors: Int32) -> ([UInt8], [UInt8]) {
        var collected: [[UInt8]] = [[], []]
        var open = [output, errors]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.contains(where: { $0 >= 0 }) {
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else { break }
            for index in 0..<2 where open[index] >= 0 && descriptors[index].revents != 0 {
                let count = read(open[index], &buffer, buffer.count)
                if count > 0 {
                    collected[index] += buffer[0..<count]
                } else if count == 0 || errno != EINTR {
                    open[index] = -1
                }
            }
        }
        return (collected[0], collected[1])
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], output: Int32?, errors: Int32?,
        environment: [String: String] = [:]
    ) throws
        -> pid_t
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
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
        actions.closeInheritedDescriptors(keeping: Set([output, errors].compactMap { $0 }))
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
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
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
