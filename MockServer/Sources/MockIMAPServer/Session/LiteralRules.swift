package import IMAPCore

/// Which non-synchronizing literals a client may send (RFC 7888): any size under LITERAL+, at
/// most 4096 bytes under LITERAL- (or IMAP4rev2), none without either.
package enum LiteralRules {
    /// The largest non-synchronizing literal LITERAL- allows.
    package static let literalMinusLimit = 4096

    /// How a command broke the rules.
    package enum Violation: Hashable, Sendable {
        /// A non-synchronizing literal, and neither LITERAL+ nor LITERAL- was announced.
        case notAnnounced
        /// A non-synchronizing literal larger than LITERAL- allows.
        case tooLarge(size: Int, limit: Int)

        /// The text of the BAD response.
        package var reason: String {
            switch self {
            case .notAnnounced:
                return "a non-synchronizing literal needs LITERAL+ or LITERAL-, which this server does not announce"
            case .tooLarge(let size, let limit):
                return "a non-synchronizing literal of \(size) bytes (LITERAL- allows \(limit)); send it as {\(size)}"
            }
        }
    }

    /// How a complete command frame breaks the rules of `capabilities`, or nil when it does not.
    ///
    /// `C: a APPEND INBOX {5000+}` under LITERAL- is `.tooLarge(size: 5000, limit: 4096)`; the
    /// server answers `a BAD [TOOBIG] ...` after reading and discarding the literal (RFC 7888 4).
    package static func violation(in frame: [UInt8], capabilities: [Capability]) -> Violation? {
        if capabilities.contains(.literalPlus) { return nil }
        let limit =
            capabilities.contains(.literalMinus) || capabilities.contains(.imap4rev2) ? literalMinusLimit : nil
        var position = 0
        while position < frame.count {
            var lineEnd = position
            while lineEnd < frame.count && frame[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            guard let (size, synchronizing) = announcement(in: frame[position..<lineEnd]) else {
                position = lineEnd + 1
                continue
            }
            if !synchronizing {
                guard let limit else { return .notAnnounced }
                if size > limit { return .tooLarge(size: size, limit: limit) }
            }
            position = lineEnd + 1 + size
        }
        return nil
    }

    /// `{n}`, `{n+}` or `{n-}` at the end of a line: the size and whether it is synchronizing.
    private static func announcement(in line: ArraySlice<UInt8>) -> (Int, Bool)? {
        var end = line.endIndex
        if end > line.startIndex && line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end > line.startIndex, line[end - 1] == UInt8(ascii: "}") else { return nil }
        var cursor = end - 2
        var synchronizing = true
        if cursor >= line.startIndex && (line[cursor] == UInt8(ascii: "+") || line[cursor] == UInt8(ascii: "-")) {
            synchronizing = false
            cursor -= 1
        }
        var size = 0
        var multiplier = 1
        var digits = 0
        while cursor >= line.startIndex && line[cursor] >= UInt8(ascii: "0") && line[cursor] <= UInt8(ascii: "9") {
            guard digits < 18 else { return nil }
            size += Int(line[cursor] - UInt8(ascii: "0")) * multiplier
            multiplier *= 10
            digits += 1
            cursor -= 1
        }
        guard digits > 0, cursor >= line.startIndex, line[cursor] == UInt8(ascii: "{") else { return nil }
        return (size, synchronizing)
    }
}
