import Foundation
import MockIMAPServer
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What one run of the built `mailsearch` did, as a shell sees it.
struct ToolResult: Sendable, CustomStringConvertible {
    /// The exit code, or 128 + the signal that ended it.
    var status: Int32
    /// Whether it was killed because it outlived the test's bound (a hang).
    var timedOut: Bool
    var standardOutput: String
    var standardError: String
    /// The tool's own peak resident memory in KiB, when the run measured it (see
    /// `ToolProcess.start(measuringMemory:)`); nil otherwise.
    var maximumResidentKiB: Int?

    var lines: [String] {
        standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
    var errorLines: [String] {
        standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    var description: String {
        "exit \(status)\(timedOut ? " (killed: timed out)" : "")\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
    }
}

/// The built `mailsearch` as a child process: started with posix_spawn, its pipes read and its
/// exit awaited on a thread of its own (never on the cooperative pool). Every run is bounded: a
/// process that outlives `timeout` is killed and reported as timed out, so a hang fails a test
/// instead of stopping the suite.
final class ToolProcess: Sendable {
    private struct State {
        var output: [UInt8] = []
        var errors: [UInt8] = []
        /// What the terminal on standard input echoed (when it is one).
        var echo: [UInt8] = []
        var result: ToolResult?
    }

    let pid: pid_t
    /// Where the memory launcher writes the tool's peak (KiB), when measuring.
    private let peakFile: String?
    /// The test's side of the terminal on standard input, or -1.
    private let terminalInput: Int32
    private let state = Mutex(State())
    /// Wakes the waiters at every change (output, the end).
    private let changes = ChangeSignal()

    /// The executable, built next to the test bundle.
    static var executable: String {
        get throws {
            guard let url = ExecutableTests.executable else {
                throw ExecutableTests.SetupError("mailsearch is not built next to the tests")
            }
            return url.path
        }
    }

    /// Runs `arguments` to the end (or `timeout`) with `environment` only and standard input
    /// from `input` (/dev/null when nil).
    static func run(
        _ arguments: [String], environment: [String: String], input: [UInt8]? = nil,
        timeout: Duration = .seconds(90), measuringMemory: Bool = false
    ) async throws -> ToolResult {
        let process = try start(
            arguments, environment: environment, input: input, timeout: timeout, measuringMemory: measuringMemory)
        return await process.finished()
    }

    /// Starts the tool and reports its peak memory: the kernel's `ru_maxrss` of a child counts
    /// the memory of the process that spawned it (exec keeps the old address space's high-water
    /// mark), so a tool spawned by this test process, hundreds of MB while other suites run,
    /// would report the test process's size, not its own. This small parent (Python, about
    /// 10 MB, included in the figure) forks the tool, reaps it and writes its `ru_maxrss` to a
    /// file; it ends as the tool ended (the same status, or the same signal).
    private static let memoryLauncher = """
        import ctypes, os, signal, sys
        report = os.environ.pop("MAILSEARCH_TEST_PEAK_FILE")
        pid = os.fork()
        if pid == 0:
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: never outlive the launcher
            os.execve(sys.argv[1], sys.argv[1:], os.environ)
        _, status, usage = os.wait4(pid, 0)
        with open(report, "w") as file:
            file.write(str(usage.ru_maxrss))
        if os.WIFSIGNALED(status):
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
            os.kill(os.getpid(), os.WTERMSIG(status))
        sys.exit(os.WEXITSTATUS(status))
        """

    /// The Python that runs `memoryLauncher`: Debian's, which needs no environment.
    private static var python: String {
        get throws {
            for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"]
            where FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
            throw ExecutableTests.SetupError("measuring the tool's memory needs python3 in /usr/bin")
        }
    }

    /// Starts `arguments`; read its output as it comes with `waitForLine`.
    /// `launcher`, when given, is the command line that runs the tool (or a copy) in its own
    /// place (`setpriv ... PATH`); `arguments` follow it.
    /// `terminals` names the descriptors (0, 1, 2) that get a pseudo-terminal instead of a pipe,
    /// so the tool sees a person's terminal there (a pty turns "\n" into "\r\n"; on 0, `type`
    /// writes what the person types and `terminalEcho` is what the terminal shows back).
    static func start(
        _ arguments: [String], environment: [String: String], input: [UInt8]? = nil,
        timeout: Duration = .seconds(90), terminals: Set<Int32> = [], measuringMemory: Bool = false,
        launcher: [String] = []
    ) throws -> ToolProcess {
        let tool = try executable
        var executable = tool
        var arguments = arguments
        if let program = launcher.first {
            // A program that ends by running the tool in its own place (setpriv): the same pid.
            arguments = launcher.dropFirst() + arguments
            executable = program
        }
        var environment = environment
        var peakFile: String?
        if measuringMemory {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-peak-\(UUID()).txt")
                .path
            peakFile = file
            environment["MAILSEARCH_TEST_PEAK_FILE"] = file
            executable = try python
            arguments = ["-c", memoryLauncher, tool] + arguments
        }
        // Close-on-exec, so that no child another test starts meanwhile inherits them.
        var pipes: [[Int32]] = []
        do {
            for _ in 0..<3 {
                let ends = try TestProcess.closeOnExecPipe()
                pipes.append([ends.read, ends.write])
            }
        } catch {
            pipes.joined().forEach { close($0) }
            throw error
        }
        var outputPipe = pipes[0]
        var errorPipe = pipes[1]
        let inputPipe = pipes[2]
        var terminalInput: (master: Int32, slave: Int32)?
        for descriptor in terminals {
            let (master, slave) = try pseudoTerminal()
            if descriptor == 0 {
                terminalInput = (master, slave)
                continue
            }
            if descriptor == 1 {
                [outputPipe[0], outputPipe[1]].forEach { close($0) }
                outputPipe = [master, slave]
            } else {
                [errorPipe[0], errorPipe[1]].forEach { close($0) }
                errorPipe = [master, slave]
            }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminalInput {
            posix_spawn_file_actions_adddup2(&actions, terminalInput.slave, 0)
            posix_spawn_file_actions_addclose(&actions, terminalInput.master)
            posix_spawn_file_actions_addclose(&actions, terminalInput.slave)
        } else if input != nil {
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        for descriptor in outputPipe + errorPipe + inputPipe { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let kept = Set(
            outputPipe + errorPipe + inputPipe + [terminalInput?.master, terminalInput?.slave].compactMap { $0 })
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let spawned = TestProcess.exclusively {
            actions.closeInheritedDescriptors(keeping: kept)
            return posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        close(outputPipe[1])
        close(errorPipe[1])
        close(inputPipe[0])
        if let terminalInput { close(terminalInput.slave) }
        guard spawned == 0 else {
            [outputPipe[0], errorPipe[0], inputPipe[1]].forEach { close($0) }
            throw ExecutableTests.SetupError("cannot start mailsearch: \(String(cString: strerror(spawned)))")
        }
        let process = ToolProcess(pid: pid, terminalInput: terminalInput?.master ?? -1, peakFile: peakFile)
        let (readOutput, readErrors, writeInput) = (outputPipe[0], errorPipe[0], inputPipe[1])
        let thread = Thread {
            if let input {
                input.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let count = write(writeInput, raw.baseAddress! + offset, raw.count - offset)
                        if count <= 0 { break }
                        offset += count
                    }
                }
            }
            close(writeInput)
            process.pump(output: readOutput, errors: readErrors, terminal: process.terminalInput, timeout: timeout)
        }
        thread.start()
        return process
    }

    private init(pid: pid_t, terminalInput: Int32, peakFile: String?) {
        self.pid = pid
        self.terminalInput = terminalInput
        self.peakFile = peakFile
    }

    /// Types `text` on the terminal that is standard input.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(terminalInput, $0.baseAddress, $0.count) }
    }

    /// What the terminal on standard input echoed so far.
    var terminalEcho: String { state.withLock { String(decoding: $0.echo, as: UTF8.self) } }

    /// Waits until standard error contains `text`, the process ends, or `timeout` passes.
    func waitForError(containing text: String, timeout: Duration = ToolProcess.eventWait) async -> Bool {
        _ = await changes.wait(timeout: timeout) {
            self.state.withLock { $0.result != nil || String(decoding: $0.errors, as: UTF8.self).contains(text) }
        }
        return state.withLock { String(decoding: $0.errors, as: UTF8.self).contains(text) }
    }

    /// A pseudo-terminal: the side the test reads, and the side the child writes.
    private static func pseudoTerminal() throws -> (Int32, Int32) {
        // Linux: /dev/ptmx, unlocked with TIOCSPTLCK, its number from TIOCGPTN (Glibc does not
        // import posix_openpt and friends).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, UInt(0x4004_5431), &unlock) == 0,
            ioctl(master, UInt(0x8004_5430), &number) == 0
        else {
            throw ExecutableTests.SetupError("cannot open a pseudo-terminal")
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { throw ExecutableTests.SetupError("cannot open /dev/pts/\(number)") }
        return (master, slave)
    }

    /// Reads both pipes until they close or the deadline passes (then kills the process), then
    /// reaps it.
    private func pump(output: Int32, errors: Int32, terminal: Int32, timeout: Duration) {
        let deadline = ContinuousClock.now + timeout
        var open = [output, errors, terminal]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var timedOut = false
        while open.contains(where: { $0 >= 0 }) {
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + 1, 1000))
            let ready = poll(&descriptors, 3, milliseconds)
            if ready < 0 && errno != EINTR { break }
            for index in 0..<3 where open[index] >= 0 && descriptors[index].revents != 0 {
                let count = read(open[index], &buffer, buffer.count)
                if count > 0 {
                    let chunk = Array(buffer[0..<count])
                    state.withLock { state in
                        switch index {
                        case 0: state.output += chunk
                        case 1: state.errors += chunk
                        default: state.echo += chunk
                        }
                    }
                    changes.notify()
                } else if count == 0 || errno != EINTR {
                    // A pseudo-terminal reports EIO once the child has closed its side.
                    close(open[index])
                    open[index] = -1
                }
            }
        }
        for descriptor in open where descriptor >= 0 { close(descriptor) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
        let code = TestProcess.exitCode(status)
        var peak: Int?
        if let peakFile {
            peak = (try? String(contentsOfFile: peakFile, encoding: .utf8)).flatMap { Int($0) }
            unlink(peakFile)
        }
        state.withLock { state in
            state.result = ToolResult(
                status: code, timedOut: timedOut, standardOutput: String(decoding: state.output, as: UTF8.self),
                standardError: String(decoding: state.errors, as: UTF8.self),
                maximumResidentKiB: peak)
        }
        changes.notify()
    }

    /// Sends `signal` (SIGINT for Ctrl-C).
    func send(_ signal: Int32) { kill(pid, signal) }

    /// The standard output so far, as complete lines.
    var outputLines: [String] {
        state.withLock { state in
            let text = String(decoding: state.output, as: UTF8.self)
            return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    /// How long a wait for the tool's next line may last before it counts as a hang. Generous:
    /// the tool's first line needs it to start, connect and log in, and the mock server it talks
    /// to shares this test process's cooperative pool with every suite running beside it (a
    /// `watch` printed its first line after more than 30 s in a loaded CI run).
    static let eventWait: Duration = .seconds(90)

    /// Waits until a complete line of standard output satisfies `predicate`, the process ends, or
    /// `timeout` passes; the line, or nil.
    func waitForLine(
        timeout: Duration = ToolProcess.eventWait, where predicate: @escaping @Sendable (String) -> Bool
    ) async -> String? {
        _ = await changes.wait(timeout: timeout) {
            self.state.withLock { $0.result != nil } || self.outputLines.contains(where: predicate)
        }
        return outputLines.first(where: predicate)
    }

    /// Waits for the process to end (it is killed at its timeout at the latest).
    func finished() async -> ToolResult {
        while true {
            _ = await changes.wait(timeout: .seconds(3600)) { self.state.withLock { $0.result != nil } }
            if let result = state.withLock({ $0.result }) { return result }
        }
    }
}
