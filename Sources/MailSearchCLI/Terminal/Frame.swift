/// How a piece of text looks on the screen. Attributes (bold, dim, reverse, underline) are not
/// colours and stay with `NO_COLOR`; the foreground colour is left out then.
package struct TextStyle: Hashable, Sendable {
    /// The colours the UI uses (the terminal's palette, so they follow its theme).
    package enum Color: Hashable, Sendable {
        case red, green, yellow, blue, magenta, cyan

        /// The SGR parameter.
        package var code: Int {
            switch self {
            case .red: return 31
            case .green: return 32
            case .yellow: return 33
            case .blue: return 34
            case .magenta: return 35
            case .cyan: return 36
            }
        }
    }

    package var bold = false
    package var dim = false
    package var reverse = false
    package var underline = false
    package var foreground: Color?

    /// No attributes.
    package static let plain = TextStyle()
    package static let bold = TextStyle(bold: true)
    package static let dim = TextStyle(dim: true)
    package static let reverse = TextStyle(reverse: true)

    /// A copy with the foreground `color`.
    package func colored(_ color: Color) -> TextStyle {
        var copy = self
        copy.foreground = color
        return copy
    }

    /// A copy with reverse video on (the selected row).
    package var reversed: TextStyle {
        var copy = self
        copy.reverse = true
        return copy
    }

    /// The SGR sequence that sets exactly this style (starting from a reset).
    package func sequence(colors: Bool) -> String {
        var parameters = ["0"]
        if bold { parameters.append("1") }
        if dim { parameters.append("2") }
        if underline { parameters.append("4") }
        if reverse { parameters.append("7") }
        if colors, let foreground { parameters.append(String(foreground.code)) }
        return ANSI.csi + parameters.joined(separator: ";") + "m"
    }
}

/// A run of text in one style.
package struct Span: Hashable, Sendable {
    package var text: String
    package var style: TextStyle

    /// `text` in `style`.
    package init(text: String, style: TextStyle) {
        self.text = text
        self.style = style
    }
}

/// One row of the screen: spans of styled text, measured in terminal columns (a CJK character
/// or an emoji takes two).
package struct FrameLine: Hashable, Sendable {
    /// The spans, left to right.
    package private(set) var spans: [Span] = []
    /// The columns the line takes.
    package private(set) var width = 0

    /// An empty line.
    package init() {}

    /// A line of `text` in `style`.
    package init(_ text: String, _ style: TextStyle = .plain) {
        append(text, style)
    }

    /// The text without styles.
    package var text: String { spans.map(\.text).joined() }

    /// Appends `text` in `style`, with control characters replaced (mail text must not be able
    /// to move the cursor or change the terminal).
    package mutating func append(_ text: String, _ style: TextStyle = .plain) {
        let clean = TerminalText.sanitized(text)
        guard !clean.isEmpty else { return }
        width += TerminalText.width(of: clean)
        if let last = spans.last, last.style == style {
            spans[spans.count - 1].text += clean
        } else {
            spans.append(Span(text: clean, style: style))
        }
    }

    /// Appends `line`'s spans.
    package mutating func append(_ line: FrameLine) {
        for span in line.spans { append(span.text, span.style) }
    }

    /// Appends `count` spaces in `style`.
    package mutating func pad(_ count: Int, _ style: TextStyle = .plain) {
        if count > 0 { append(String(repeating: " ", count: count), style) }
    }

    /// The line cut to at most `columns` columns: a wide character that would straddle the edge
    /// is left out, so the line never overflows; with `ellipsis`, a cut line ends in `…`.
    package func truncated(to columns: Int, ellipsis: Bool = false) -> FrameLine {
        guard width > columns else { return self }
        let room = ellipsis ? columns - 1 : columns
        var result = FrameLine()
        var used = 0
        outer: for span in spans {
            var piece = ""
            for character in span.text {
                let next = TerminalText.width(of: character)
                if used + next > room {
                    result.append(piece, span.style)
                    break outer
                }
                piece.append(character)
                used += next
            }
            result.append(piece, span.style)
        }
        if ellipsis && columns > 0 { result.append("…", spans.last?.style ?? .plain) }
        return result
    }

    /// The line cut or padded with spaces in `style` to exactly `columns` columns (a wide
    /// character cut at the edge leaves one padding space).
    package func fitted(to columns: Int, _ style: TextStyle = .plain) -> FrameLine {
        var result = truncated(to: columns)
        result.pad(columns - result.width, style)
        return result
    }
}

/// What the screen shows: one line per row (each at most `size.width` columns), and where the
/// terminal's cursor goes (the search field while it is typed in) or none (hidden).
package struct Frame: Hashable, Sendable {
    /// A cell, from 0.
    package struct Position: Hashable, Sendable {
        package var row: Int
        package var column: Int

        /// The cell at `row`, `column`.
        package init(row: Int, column: Int) {
            self.row = row
            self.column = column
        }
    }

    /// The terminal size it was made for.
    package var size: TerminalSize
    /// Exactly `size.height` lines.
    package var lines: [FrameLine]
    /// The visible cursor, if any.
    package var cursor: Position?

    /// A frame of `lines`, cut and filled to `size`.
    package init(size: TerminalSize, lines: [FrameLine], cursor: Position? = nil) {
        self.size = size
        var fitted = lines.prefix(max(0, size.height)).map { $0.truncated(to: max(0, size.width)) }
        while fitted.count < size.height { fitted.append(FrameLine()) }
        self.lines = fitted
        self.cursor = cursor
    }

    /// The screen as text, one line per row without trailing spaces (as `tmux capture-pane -p`
    /// shows it).
    package var text: String {
        lines.map { line in
            var text = line.text
            while text.last == " " { text.removeLast() }
            return text
        }.joined(separator: "\n")
    }
}

/// Writes frames to a terminal, rewriting only the rows that changed since the last frame (the
/// whole screen after a resize or ``invalidate()``).
package struct FrameWriter: Sendable {
    /// Whether colours are written (never with `NO_COLOR`).
    package var colors: Bool
    private var previous: Frame?

    /// A writer that has written nothing yet.
    package init(colors: Bool) { self.colors = colors }

    /// The next update draws every row.
    package mutating func invalidate() { previous = nil }

    /// The bytes that turn the screen from the last frame into `frame`.
    package mutating func update(to frame: Frame) -> String {
        var output = ""
        let full = previous?.size != frame.size
        if full { output += ANSI.reset + ANSI.clearScreen }
        for (row, line) in frame.lines.enumerated() {
            if !full, let previous, previous.lines[row] == line { continue }
            output += ANSI.moveTo(row: row, column: 0)
            for span in line.spans { output += span.style.sequence(colors: colors) + span.text }
            output += ANSI.reset
            // With wrapping off the cursor stays on the last column after writing it, and
            // erasing from there would erase that column's character.
            if line.width < frame.size.width { output += ANSI.clearToEndOfLine }
        }
        if let cursor = frame.cursor {
            output += ANSI.moveTo(row: cursor.row, column: cursor.column) + ANSI.showCursor
        } else if full || previous?.cursor != nil {
            output += ANSI.hideCursor
        }
        previous = frame
        return output
    }
}
