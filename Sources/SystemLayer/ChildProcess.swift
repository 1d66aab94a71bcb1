#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a shell command and captures what it prints on standard output, as a password or
/// token command needs: standard input and error are inherited (a password manager can ask for
/// its passphrase), SIGINT and SIGPIPE have their default meaning in the child, no signal is
/// blocked there, and the child gets only the environment given.
public enum ChildProcess {
    /// How the command ended and what it printed.
    public struct Outcome: Hashable, Sendable {
        /// Standard output, up to the limit.
        public var output: [UInt8]
        /// Whether it printed more than the limit (the rest was read and dropped).
        public var truncated: Bool
        /// Its exit status (0 when it was killed).
        public var exitStatus: Int32
        /// The signal that killed it, or 0.
        public var signal: Int32
    }

    /// Runs `/bin/sh -c command` with `environment` (`NAME=value` entries) and waits for it.
    ///
    /// - Throws: `SystemCallError` when the pipe cannot be made, the shell cannot be started, or
    ///   reading its output or waiting for it fails.
    public static func runShell(
        _ command: String, environment: [String], outputLimit: Int
    ) throws(SystemCallError) -> Outcome {
        var pipeEnds: [Int32] = [0, 0]
        try systemCall("pipe") { pipe(&pipeEnds) }
        let pid: pid_t
        do throws(SystemCallError) {
            pid = try spawn(command, environment: environment, output: pipeEnds)
        } catch {
            closeDescriptor(pipeEnds[0])
            closeDescriptor(pipeEnds[1])
            throw error
        }
        closeDescriptor(pipeEnds[1])
        var outcome = Outcome(output: [], truncated: false, exitStatus: 0, signal: 0)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var readFailure: SystemCallError?
        while true {
            let count: Int
            do throws(SystemCallError) {
                count = try systemCall("read") {
                    buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
                }
            } catch {
                readFailure = error
                break
            }
            if count == 0 { break }
            let room = outputLimit - outcome.output.count
            outcome.output += buffer[0..<min(count, room)]
            if count > room { outcome.truncated = true }
        }
        closeDescriptor(pipeEnds[0])
        // The child is waited for even when reading failed, so none is left behind.
        var status: Int32 = 0
        try systemCall("waitpid") { waitpid(pid, &status, 0) }
        if let readFailure { throw readFailure }
        outcome.exitStatus = (status >> 8) & 0xFF
        outcome.signal = status & 0x7F
        return outcome
    }

    /// Starts the shell with its standard output on `output[1]` (and `output[0]` closed in it).
    private static func spawn(
        _ command: String, environment: [String], output: [Int32]
    ) throws(SystemCallError)
        -> pid_t
    {
        // The posix_spawn functions return the error number instead of setting errno.
        func check(_ call: String, _ result: Int32) throws(SystemCallError) {
            if result != 0 { throw SystemCallError(call: call, number: result) }
        }
        var actions = posix_spawn_file_actions_t()
        try check("posix_spawn_file_actions_init", posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        try check("posix_spawn_file_actions_adddup2", posix_spawn_file_actions_adddup2(&actions, output[1], 1))
        try check("posix_spawn_file_actions_addclose", posix_spawn_file_actions_addclose(&actions, output[0]))
        var attributes = posix_spawnattr_t()
        try check("posix_spawnattr_init", posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGPIPE)
        try check("posix_spawnattr_setsigdefault", posix_spawnattr_setsigdefault(&attributes, &defaults))
        var empty = sigset_t()
        sigemptyset(&empty)
        try check("posix_spawnattr_setsigmask", posix_spawnattr_setsigmask(&attributes, &empty))
        try check(
            "posix_spawnattr_setflags",
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)))
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let variables = environment.map { strdup($0) } + [nil]
        defer { variables.forEach { free($0) } }
        var pid = pid_t()
        try check("posix_spawn", posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, variables))
        return pid
    }
}
