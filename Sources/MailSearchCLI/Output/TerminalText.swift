/// Text for a terminal: control characters taken out (a subject must not be able to move the
/// cursor or retitle the window), widths measured in columns, and long text cut with an ellipsis.
enum TerminalText {
    /// Whether a terminal could act on `scalar` instead of showing it: a control character (C0,
    /// DEL, C1: escape sequences, OSC 52 clipboard writes, title changes), a bidirectional
    /// override, isolate or mark (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), or a
    /// line or paragraph separator (U+2028, U+2029). Every text we print that a server or a
    /// message wrote goes through ``sanitized(_:keepingLines:)`` or ``escaped(_:)``, which ask
    /// this.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C, 0x2028, 0x2029:
            return true
        default:
            return false
        }
    }

    /// `text` with every unsafe scalar (``isUnsafe(_:)``) replaced by a space; with
    /// `keepingLines`, line breaks and tabs stay (for a message's body).
    static func sanitized(_ text: String, keepingLines: Bool = false) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if keepingLines && (value == 0x0A || value == 0x09) {
                result.append(scalar)
            } else if isUnsafe(scalar) {
                if !(keepingLines && value == 0x0D) { result.append(" ") }
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `text` with every unsafe scalar written out as an escape (`\r`, `\n`, `\x1B`,
    /// `\u{202E}`), for the `--debug` trace, where a person wants to see what the server sent.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            case _ where !isUnsafe(scalar): result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x100:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\x" + (hex.count < 2 ? "0" : "") + hex
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// How many columns `character` takes: 2 for East Asian wide and emoji, 0 for a combining
    /// mark alone, else 1.
    static func width(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        let value = first.value
        // Printable ASCII, whatever marks follow it: one column, without a property lookup.
        if value >= 0x20 && value < 0x7F { return 1 }
        if first.properties.generalCategory == .nonspacingMark || first.properties.generalCategory == .enclosingMark {
            return 0
        }
        if first.properties.isEmojiPresentation { return 2 }
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    /// The code points East Asian wide characters and emoji take two columns in.
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
        0x1F900...0x1F9FF, 0x20000...0x3FFFD,
    ]

    /// The columns `text` takes (printable ASCII: one a byte, counted without a look at each
    /// character).
    static func width(of text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` cut to at most `columns` columns, ending in `…` when it was cut.
    static func truncated(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard width(of: text) > columns else { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = width(of: character)
            if used + next > columns - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// `text` cut or padded with spaces to exactly `columns` columns.
    static func padded(_ text: String, to columns: Int) -> String {
        let cut = truncated(text, to: columns)
        return cut + String(repeating: " ", count: max(0, columns - width(of: cut)))
    }
}
