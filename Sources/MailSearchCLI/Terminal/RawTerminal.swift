import Synchronization

// libc: termios and the terminal size: the raw-mode terminal is this file's job.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The size of a terminal, in character cells.
package struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
    /// Columns.
    package var width: Int
    /// Rows.
    package var height: Int

    /// A size.
    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `80x24`.
    package var description: String { "\(width)x\(height)" }
}

/// The terminal on standard input and output in full-screen mode: raw input (no echo, no line
/// editing, no signals from Ctrl-C, no CR-to-LF translation), output without post-processing, the
/// alternate screen with the cursor hidden and line wrapping off. ``restore()`` puts back exactly
/// the settings it found (`stty -a` reads the same before and after) and leaves the alternate
/// screen, so the shell's screen reappears as it was.
///
/// The settings are also kept process-wide, so an `exit()` from anywhere (an `atexit` handler)
/// still restores them; ``restore()`` may be called any number of times.
package final class RawTerminal: Sendable {
    /// The terminal could not be set up.
    package struct SetupError: Error, Hashable, Sendable {
        /// What failed, for a person.
        package var message: String
    }

    /// The descriptor keys are read from (standard input).
    package let input: Int32
    /// The descriptor the screen is written to (standard output).
    package let output: Int32

    /// Whether both descriptors are terminals.
    package static func isAvailable(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) -> Bool {
        isatty(input) == 1 && isatty(output) == 1
    }

    /// Switches the terminal to full-screen mode.
    ///
    /// - Throws: `SetupError` when the descriptors are not a terminal or its settings cannot be
    ///   read or changed (nothing is changed then).
    package init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) throws(SetupError) {
        self.input = input
        self.output = output
        guard Self.isAvailable(input: input, output: output) else {
            throw SetupError(message: "standard input and output are not a terminal")
        }
        var original = termios()
        guard tcgetattr(input, &original) == 0 else {
            throw SetupError(message: "cannot read the terminal's settings: \(String(cString: strerror(errno)))")
        }
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        activeTerminal.withLock { $0 = SavedTerminal(input: input, output: output, settings: original, raw: raw) }
        Self.installExitHandler()
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            let reason = String(cString: strerror(errno))
            activeTerminal.withLock { $0 = nil }
            throw SetupError(message: "cannot switch the terminal to raw mode: \(reason)")
        }
        Self.write(ANSI.enterFullScreen, to: output)
    }

    deinit { restore() }

    /// Leaves full-screen mode: the attributes reset, wrapping and the cursor back on, the
    /// alternate screen left, the original settings restored (pending typed-ahead input is
    /// discarded so it does not reach the shell). Does nothing the second time.
    package func restore() {
        Self.restoreActiveTerminal(matching: input)
    }

    /// Whether the program runs as a job of a shell with job control, in the foreground: only
    /// then can it stop (Ctrl-Z) and be brought back (`fg`); stopped elsewhere, nothing would
    /// ever continue it.
    package var hasJobControl: Bool {
        let group = getpgrp()
        return group != getsid(0) && tcgetpgrp(input) == group
    }

    /// Gives the terminal back for a while (Ctrl-Z): the shell's screen and settings, as
    /// ``restore()`` leaves them, but ``resume()`` can take it again.
    package func suspend() {
        guard var saved = activeTerminal.withLock({ $0 }), saved.input == input else { return }
        Self.write(ANSI.leaveFullScreen, to: output)
        _ = tcsetattr(input, TCSAFLUSH, &saved.settings)
    }

    /// Full-screen mode again after ``suspend()`` (the caller redraws everything).
    package func resume() {
        guard var saved = activeTerminal.withLock({ $0 }), saved.input == input else { return }
        _ = tcsetattr(input, TCSAFLUSH, &saved.raw)
        Self.write(ANSI.enterFullScreen, to: output)
    }

    /// The window's size now (TIOCGWINSZ); 80x24 when the terminal does not say.
    package var size: TerminalSize {
        var window = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return TerminalSize(width: 80, height: 24)
        }
        return TerminalSize(width: Int(window.ws_col), height: Int(window.ws_row))
    }

    /// Writes `text` completely (retrying after EINTR and short writes). A terminal that went
    /// away ends the writing silently; the reader sees the end of input and the screen closes.
    package func write(_ text: String) { Self.write(text, to: output) }

    private static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { writeBytes(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 { return }
            offset += count
        }
    }

    static func restoreActiveTerminal(matching input: Int32?) {
        let saved = activeTerminal.withLock { active -> SavedTerminal? in
            guard let terminal = active, input == nil || terminal.input == input else { return nil }
            active = nil
            return terminal
        }
        guard var saved else { return }
        write(ANSI.leaveFullScreen, to: saved.output)
        _ = tcsetattr(saved.input, TCSAFLUSH, &saved.settings)
    }

    private static let exitHandlerInstalled = Atomic<Bool>(false)

    private static func installExitHandler() {
        guard exitHandlerInstalled.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else {
            return
        }
        atexit { RawTerminal.restoreActiveTerminal(matching: nil) }
    }
}

private func writeBytes(_ descriptor: Int32, _ start: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, start, count)
}

/// The settings to restore and where.
private struct SavedTerminal {
    package var input: Int32
    package var output: Int32
    package var settings: termios
    /// The full-screen settings, to take the terminal again after a suspend.
    package var raw: termios
}

/// The terminal in full-screen mode, if any: the `atexit` handler's way back to its settings.
private let activeTerminal = Mutex<SavedTerminal?>(nil)
