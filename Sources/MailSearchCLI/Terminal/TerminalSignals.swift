import Dispatch

// libc: signal dispositions and kill for the screen's suspend, resize and quit signals.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The signals a full-screen program must answer, caught with dispatch sources (no work in a
/// signal handler) and handed over as an `AsyncStream`: the window's size changed, or the
/// program is asked to end (SIGTERM, SIGINT from `kill`, SIGHUP when the terminal closes), so
/// it can restore the terminal first.
final class TerminalSignals {
    /// A signal that came.
    enum Signal: Hashable, Sendable {
        /// SIGWINCH: the window was resized.
        case resized
        /// SIGTERM, SIGINT or SIGHUP: end, restoring the terminal.
        case terminate(Int32)
        /// SIGTSTP (from `kill -TSTP`; Ctrl-Z comes as a key in raw mode): give the terminal
        /// back and stop.
        case suspend
        /// SIGCONT: the program runs again (after `fg`, or a stop it could not catch): take the
        /// terminal again and redraw.
        case resumed
    }

    /// The signals, in order.
    let signals: AsyncStream<Signal>
    private let sources: [any DispatchSourceSignal]
    private static let caught: [Int32] = [SIGWINCH, SIGTERM, SIGINT, SIGHUP, SIGTSTP, SIGCONT]

    /// Starts catching; until ``stop()`` these signals no longer have their default effect.
    init() {
        let (stream, continuation) = AsyncStream<Signal>.makeStream()
        signals = stream
        let queue = DispatchQueue(label: "mailsearch.tui.signals")
        sources = Self.caught.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                switch number {
                case SIGWINCH: continuation.yield(.resized)
                case SIGTSTP: continuation.yield(.suspend)
                case SIGCONT: continuation.yield(.resumed)
                default: continuation.yield(.terminate(number))
                }
            }
            source.resume()
            return source
        }
    }

    /// Stops catching: the signals act as before again.
    func stop() {
        for source in sources { source.cancel() }
        for number in Self.caught { signal(number, SIG_DFL) }
    }
}
