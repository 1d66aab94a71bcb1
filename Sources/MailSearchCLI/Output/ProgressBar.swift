import Synchronization

/// Progress on standard error for work that takes more than about a second (fetching thousands
/// of messages): `[=========>          ] 9,000/20,000 messages`, redrawn in place, erased at the
/// end. Only when standard error is a terminal; otherwise it writes nothing at all.
final class ProgressBar: Sendable {
    private struct State {
        var shown = false
        var lastDrawn: ContinuousClock.Instant?
    }

    private let output: any OutputSink
    private let label: String
    private let enabled: Bool
    private let started = ContinuousClock.now
    private let state = Mutex(State())

    /// How long work runs before the bar appears.
    static let delay = Duration.seconds(1)

    /// A bar for `label` (`messages`) on `output`, drawn only when it is a terminal.
    init(output: any OutputSink, label: String) {
        self.output = output
        self.label = label
        self.enabled = output.isTerminal
    }

    /// Whether it may ever draw (standard error is a terminal).
    var isEnabled: Bool { enabled }

    /// Shows `done` of `total`, once the work has taken longer than `delay` (at most ten
    /// redraws a second).
    func update(done: Int, total: Int) {
        guard enabled, total > 0 else { return }
        let now = ContinuousClock.now
        let draw = state.withLock { state -> Bool in
            guard now - started >= Self.delay else { return false }
            if let last = state.lastDrawn, now - last < .milliseconds(100), done < total { return false }
            state.lastDrawn = now
            state.shown = true
            return true
        }
        guard draw else { return }
        output.write("\r" + Self.render(done: done, total: total, label: label) + "\u{1B}[K")
    }

    /// Erases the bar if it is drawn, to print something on the same terminal; the next
    /// ``update(done:total:)`` draws it again.
    func clear() {
        let shown = state.withLock { state in
            defer {
                state.shown = false
                state.lastDrawn = nil
            }
            return state.shown
        }
        if shown { output.write("\r\u{1B}[K") }
    }

    /// Erases the bar if it was drawn.
    func finish() {
        let shown = state.withLock { $0.shown }
        if shown { output.write("\r\u{1B}[K") }
    }

    /// `[=====>    ] 500/1,000 messages`.
    static func render(done: Int, total: Int, label: String, width: Int = 30) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar =
            String(repeating: "=", count: filled) + (filled < width ? ">" : "")
            + String(repeating: " ", count: max(0, width - filled - 1))
        return "[\(bar)] \(grouped(min(done, total)))/\(grouped(total)) \(label)"
    }

    /// `20000` as `20,000`.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }
}
