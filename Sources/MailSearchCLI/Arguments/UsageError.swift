/// The command line does not fit the command: an unknown command or option, a missing or extra
/// argument, a value of the wrong form. The tool prints `error: <message>; <hint>` and exits 64.
public struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in words (`unknown option "--jsn"`).
    public var message: String
    /// What to try instead (`did you mean "--json"?`); when nil the tool points at the help.
    public var hint: String?

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    public var description: String { hint.map { "\(message); \($0)" } ?? message }
}

/// Words close to `word` (edit distance of at most 2, or a prefix), for "did you mean" hints.
func nearestCandidate(to word: String, in candidates: [String]) -> String? {
    let scored = candidates.map { candidate -> (String, Int) in
        if candidate.hasPrefix(word) && !word.isEmpty { return (candidate, 1) }
        return (candidate, editDistance(word, candidate))
    }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2, best.1 < word.count else { return nil }
    return best.0
}

/// Levenshtein distance over Unicode scalars.
func editDistance(_ lhs: String, _ rhs: String) -> Int {
    let left = Array(lhs.unicodeScalars)
    let right = Array(rhs.unicodeScalars)
    if left.isEmpty { return right.count }
    if right.isEmpty { return left.count }
    var previous = Array(0...right.count)
    var current = [Int](repeating: 0, count: right.count + 1)
    for row in 1...left.count {
        current[0] = row
        for column in 1...right.count {
            let substitution = previous[column - 1] + (left[row - 1] == right[column - 1] ? 0 : 1)
            current[column] = min(previous[column] + 1, current[column - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[right.count]
}
