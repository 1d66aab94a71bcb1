import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `mailsearch tui` in a tmux pane of its own: a private tmux server (its own socket,
/// no configuration but what the test sets), keys sent with `send-keys`, the screen read with
/// `capture-pane`, resized with `resize-window`.
///
/// The pane runs a shell script that records `stty -a` before and after the program and its
/// exit status, so a test can check the terminal was restored, then stays open (showing the
/// shell's screen again) until the server is killed.
final class TmuxSession: Sendable {
    /// tmux could not be run.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let directory: URL
    private let socket: String
    static let target = "tui"

    /// tmux, where Debian installs it.
    static var executable: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts `mailsearch` with `arguments` and exactly `environment` in a `width` x `height`
    /// pane.
    static func start(
        _ arguments: [String], environment: [String: String], width: Int = 100, height: Int = 30,
        jobControl: Bool = false
    ) async throws -> TmuxSession {
        guard executable != nil else {
            throw Failure(description: "tmux is not installed; apt-get install tmux (CI installs it)")
        }
        let tool = try ToolProcess.executable
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-tmux-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("tmux.conf")
        try "set -g status off\nset -g history-limit 0\n".write(
            to: configuration, atomically: true, encoding: .utf8)
        var variables = environment
        variables["TERM"] = "screen"
        let assignments = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let path = directory.path
        // The inner shell writes its own pid, then becomes mailsearch: the pid is the program's.
        let run =
            "sh -c 'echo $$ > \(path)/pid; exec \"$0\" \"$@\"' "
            + ([tool] + arguments).map(quoted).joined(separator: " ")
        let script =
            "stty -a > \(path)/before; \(run); echo $? > \(path)/status; stty -a > \(path)/after; echo \"mailsearch exited\"; exec tail -f /dev/null"
        let session = TmuxSession(directory: directory)
        // With job control: an interactive shell, where the program is typed as a job (Ctrl-Z
        // stops it, `fg` brings it back); "mailsearch exited N" when it ends.
        let shell = jobControl ? ["bash", "--norc", "--noprofile", "-i"] : ["sh", "-c", script]
        let started = try await session.tmux(
            ["-f", configuration.path, "new-session", "-d", "-s", target, "-x", "\(width)", "-y", "\(height)", "--"]
                + ["env", "-i", "PS1=$ "] + assignments + shell)
        guard started.status == 0 else {
            await session.stop()
            throw Failure(description: "tmux new-session failed: \(started.output)")
        }
        if jobControl {
            try await session.type(run + "; echo \"mailsearch exited $?\"")
            try await session.press("Enter")
        }
        return session
    }

    /// Runs `body` with a session of `mailsearch` with `arguments`, and ends the tmux server
    /// however `body` ends (a tmux server outlives the test process otherwise).
    static func with<Value>(
        _ arguments: [String], environment: [String: String], width: Int = 100, height: Int = 30,
        jobControl: Bool = false, _ body: (TmuxSession) async throws -> Value
    ) async throws -> Value {
        let session = try await start(
            arguments, environment: environment, width: width, height: height, jobControl: jobControl)
        do {
            let value = try await body(session)
            await session.stop()
            return value
        } catch {
            await session.stop()
            throw error
        }
    }

    private init(directory: URL) {
        self.directory = directory
        socket = directory.appendingPathComponent("socket").path
    }

    /// The pane's text, one line per row (trailing spaces dropped), or with `escapes` its
    /// attributes and colours as SGR sequences too.
    func screen(escapes: Bool = false) async throws -> String {
        let result = try await tmux(["capture-pane", "-p"] + (escapes ? ["-e"] : []) + ["-t", Self.target])
        guard result.status == 0 else { throw Failure(description: "capture-pane failed: \(result.output)") }
        return result.output
    }

    /// Polls the screen until `condition` holds or `timeout` passes (the wait for an event on
    /// the screen, which tmux cannot announce); records the screen in the failure.
    ///
    /// `settled`: the screen must also be the same in two captures in a row, so a frame caught
    /// while the program was still writing it (a loaded run captured one) is never returned.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Duration = .seconds(40), settled: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var text = try await screen()
        var previous: String?
        while !condition(text) || (settled && previous != text) {
            previous = text
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting for \(what); the screen:\n\(text)", sourceLocation: sourceLocation)
                throw Failure(description: "timed out waiting for \(what)")
            }
            try await Task.sleep(for: .milliseconds(50))
            text = try await screen()
        }
        return text
    }

    /// Waits until the screen contains `text`.
    @discardableResult
    func waitFor(
        text: String, timeout: Duration = .seconds(40), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        try await waitFor("\"\(text)\"", timeout: timeout, sourceLocation: sourceLocation) { $0.contains(text) }
    }

    /// Sends keys by tmux name (`Enter`, `Escape`, `Down`, `C-c`, `PageDown`).
    func press(_ keys: String...) async throws {
        let result = try await tmux(["send-keys", "-t", Self.target] + keys)
        guard result.status == 0 else { throw Failure(description: "send-keys failed: \(result.output)") }
    }

    /// Types `text` literally.
    func type(_ text: String) async throws {
        let result = try await tmux(["send-keys", "-t", Self.target, "-l", text])
        guard result.status == 0 else { throw Failure(description: "send-keys failed: \(result.output)") }
    }

    /// Pastes `text` as a terminal does: bracketed (`paste-buffer -p`) when the program turned
    /// bracketed paste on, else as typed; line feeds are sent as CR, as from a clipboard.
    func paste(_ text: String) async throws {
        let set = try await tmux(["set-buffer", "-b", "clipboard", "--", text])
        guard set.status == 0 else { throw Failure(description: "set-buffer failed: \(set.output)") }
        let result = try await tmux(["paste-buffer", "-p", "-b", "clipboard", "-t", Self.target])
        guard result.status == 0 else { throw Failure(description: "paste-buffer failed: \(result.output)") }
    }

    /// Resizes the window (the program gets SIGWINCH).
    func resize(width: Int, height: Int) async throws {
        let result = try await tmux(["resize-window", "-t", Self.target, "-x", "\(width)", "-y", "\(height)"])
        guard result.status == 0 else { throw Failure(description: "resize-window failed: \(result.output)") }
    }

    /// The program's process id.
    func programID() async throws -> pid_t {
        let text = try await waitForFile("pid")
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(description: "no pid in \(text)")
        }
        return pid
    }

    /// Waits for the program to end; its exit status, and `stty -a` before and after it.
    func finished() async throws -> (status: Int32, before: String, after: String) {
        try await waitFor(text: "mailsearch exited")
        let status = Int32(try await waitForFile("status").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        return (status, try await waitForFile("before"), try await waitForFile("after"))
    }

    private func waitForFile(_ name: String) async throws -> String {
        let url = directory.appendingPathComponent(name)
        let deadline = ContinuousClock.now + .seconds(40)
        while true {
            if let data = FileManager.default.contents(atPath: url.path), !data.isEmpty {
                return String(decoding: data, as: UTF8.self)
            }
            guard ContinuousClock.now < deadline else { throw Failure(description: "\(name) was never written") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Ends the tmux server (and the program, if it still runs) and removes the directory.
    func stop() async {
        _ = try? await tmux(["kill-server"])
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Running tmux

    private func tmux(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        guard let executable = Self.executable else { throw Failure(description: "tmux is not installed") }
        return try await Self.run([executable, "-S", socket] + arguments)
    }

    /// Runs `argv` to its end on a thread of its own; its status and its standard output and
    /// error together. The output goes to a file, not a pipe: `new-session` starts the tmux
    /// server, which keeps the descriptors it inherited open for as long as it runs.
    private static func run(_ argv: [String]) async throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID()).out").path
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
                // The thread's blocked signals are not tmux's: its server would not hear SIGTERM
                // or SIGCHLD.
                var attributes = posix_spawnattr_t()
                posix_spawnattr_init(&attributes)
                var empty = sigset_t()
                sigemptyset(&empty)
                posix_spawnattr_setsigmask(&attributes, &empty)
                var defaults = sigset_t()
                sigemptyset(&defaults)
                for number in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP, SIGWINCH] { sigaddset(&defaults, number) }
                posix_spawnattr_setsigdefault(&attributes, &defaults)
                posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
                let arguments = argv.map { strdup($0) } + [nil]
                let variables: [String] = ["PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=\(NSTemporaryDirectory())"]
                let environment = variables.map { strdup($0) } + [nil]
                var pid = pid_t()
                let spawned = TestProcess.exclusively {
                    // Nothing else of the test process leaks into tmux: its server lives on.
                    actions.closeInheritedDescriptors()
                    return posix_spawn(&pid, argv[0], &actions, &attributes, arguments, environment)
                }
                posix_spawn_file_actions_destroy(&actions)
                posix_spawnattr_destroy(&attributes)
                arguments.forEach { free($0) }
                environment.forEach { free($0) }
                guard spawned == 0 else {
                    continuation.resume(throwing: Failure(description: "cannot run \(argv[0])"))
                    return
                }
                // A tmux command answers at once; one that has not after 60 s is a hang, and is
                // killed (this thread may sleep: it is not the cooperative pool's).
                var status: Int32 = 0
                let deadline = ContinuousClock.now + .seconds(60)
                var killed = false
                while true {
                    let reaped = waitpid(pid, &status, killed ? 0 : WNOHANG)
                    if reaped == pid || (reaped == -1 && errno != EINTR) { break }
                    if reaped == 0 && ContinuousClock.now >= deadline {
                        kill(pid, SIGKILL)
                        killed = true
                    } else if reaped == 0 {
                        usleep(2000)
                    }
                }
                let output = FileManager.default.contents(atPath: outputPath) ?? Data()
                unlink(outputPath)
                guard !killed else {
                    continuation.resume(
                        throwing: Failure(description: "tmux \(argv.dropFirst(3).first ?? "") did not end in 60 s"))
                    return
                }
                continuation.resume(returning: ((status >> 8) & 0xFF, String(decoding: output, as: UTF8.self)))
            }
            thread.start()
        }
    }

    private static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
