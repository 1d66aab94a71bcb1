import IMAPClient
import SystemLayer

// libc: the no-echo password prompt (termios, and a SIGINT handler that restores the echo).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Gets the password or token of an account: never from the command line. In order:
/// `--password-command` (its first output line), `MAILSEARCH_PASSWORD`, the config file's
/// `passwordCommand`, then a no-echo prompt when standard input is a terminal;
/// `--oauth2-token-command` (or `oauth2TokenCommand`) logs in with XOAUTH2 instead.
///
/// Commands and the prompt block, so they run on a thread of their own. What they print is
/// never written anywhere.
enum Secrets {
    /// The most a password or token command may print.
    static let largestOutput = 64 * 1024

    /// The credentials for `settings`.
    static func credentials(
        for settings: AccountSettings, environment: [String: String]
    ) async throws(CommandFailure) -> Credentials {
        switch settings.secret {
        case .oauth2TokenCommand(let command):
            let token = try await firstLine(of: command, what: "OAuth 2 token")
            return .oauth2(user: settings.user, token: token)
        case .passwordCommandFlag(let command):
            return .password(user: settings.user, password: try await firstLine(of: command, what: "password"))
        case .passwordCommandFile(let command):
            if let password = environment["MAILSEARCH_PASSWORD"], !password.isEmpty {
                return .password(user: settings.user, password: password)
            }
            return .password(user: settings.user, password: try await firstLine(of: command, what: "password"))
        case .environmentOrPrompt:
            if let password = environment["MAILSEARCH_PASSWORD"], !password.isEmpty {
                return .password(user: settings.user, password: password)
            }
            guard isatty(STDIN_FILENO) == 1 else {
                throw CommandFailure(
                    "no password for \(settings.user) on \(settings.host): set MAILSEARCH_PASSWORD, pass "
                        + "--password-command \"pass show mail/work\", or run in a terminal to be asked",
                    exitCode: .usageError)
            }
            let prompt = "Password for \(settings.user) on \(settings.host): "
            let password = try await BlockingWork.run { () throws(CommandFailure) -> String in
                try readWithoutEcho(prompt: prompt)
            }
            guard !password.isEmpty else { throw CommandFailure("no password was typed", exitCode: .usageError) }
            return .password(user: settings.user, password: password)
        }
    }

    /// The first line `command` prints, run with `/bin/sh -c`.
    static func firstLine(of command: String, what: String) async throws(CommandFailure) -> String {
        let output = try await BlockingWork.run { () throws(CommandFailure) -> [UInt8] in
            try runCapturingOutput(command, what: what)
        }
        var line = output.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard !line.isEmpty else {
            throw CommandFailure(
                "the \(what) command \(shownName(of: command)) printed nothing; run it in a shell to check it")
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Runs `command` with standard input and error inherited (so a password manager can ask for
    /// its passphrase) and returns what it printed.
    static func runCapturingOutput(_ command: String, what: String) throws(CommandFailure) -> [UInt8] {
        let outcome: ChildProcess.Outcome
        do throws(SystemCallError) {
            // The child gets our environment less the password we may have been given: a
            // password manager has no need of it, and whatever it runs would inherit it.
            outcome = try ChildProcess.runShell(command, environment: childEnvironment(), outputLimit: largestOutput)
        } catch {
            throw CommandFailure("cannot run the \(what) command: \(error)")
        }
        let (exitStatus, signal) = (outcome.exitStatus, outcome.signal)
        if signal != 0 {
            throw CommandFailure("the \(what) command \(shownName(of: command)) was killed by signal \(signal)")
        }
        if exitStatus != 0 {
            throw CommandFailure(
                "the \(what) command \(shownName(of: command)) failed (exit status \(exitStatus)); run it in a shell to see why"
            )
        }
        if outcome.truncated {
            throw CommandFailure(
                "the \(what) command \(shownName(of: command)) printed more than \(largestOutput) bytes")
        }
        return outcome.output
    }

    /// How an error names a command: its program, without its arguments (which may hold a
    /// secret, a vault path or a token's scope), e.g. `"pass" (its arguments not shown)`.
    static func shownName(of command: String) -> String {
        let words = command.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let program = words.first else { return "\"\"" }
        return "\"\(program)\"" + (words.count > 1 ? " (its arguments not shown)" : "")
    }

    /// This process's environment for a password or token command: without MAILSEARCH_PASSWORD.
    static func childEnvironment() -> [String] {
        ProcessEnvironment.entries().filter { !$0.hasPrefix("MAILSEARCH_PASSWORD=") }
    }

    /// Asks on standard error and reads one line from the terminal on standard input without
    /// echoing it. Ctrl-C restores the echo before the process ends.
    static func readWithoutEcho(prompt: String) throws(CommandFailure) -> String {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw CommandFailure("cannot read the terminal's settings to ask for the password", exitCode: .usageError)
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ICANON)
        savedTerminal = original
        let previousHandler = signal(SIGINT, restoreTerminalAndExit)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            signal(SIGINT, previousHandler)
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        writeAll(STDERR_FILENO, Array(prompt.utf8))
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 4096 {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        writeAll(STDERR_FILENO, Array("\n".utf8))
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            offset += count
        }
    }
}

/// The terminal's settings before the password prompt turned the echo off, for the SIGINT
/// handler. Written only before the handler is installed, read only by it.
nonisolated(unsafe) private var savedTerminal = termios()

/// SIGINT during the prompt: give the terminal its echo back, then end as SIGINT would.
private func restoreTerminalAndExit(_ signal: Int32) {
    tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
    _exit(130)
}
