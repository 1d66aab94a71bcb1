package import MailSearch

/// The message opened with Enter: its headers and text, fetched with `BODY.PEEK[]` (reading
/// never marks it read), scrolled by line.
package struct MessageReader: Hashable, Sendable {
    /// What the reader shows.
    package enum Content: Hashable, Sendable {
        /// Being fetched.
        case loading
        /// Its lines as `mailsearch show` prints them, before wrapping.
        case loaded([String])
        /// It could not be fetched: why.
        case failed(String)
    }

    /// The message.
    package var id: Email.ID
    /// What shows.
    package var content: Content = .loading
    /// The first wrapped line in view.
    package var top = 0

    /// The lines to show at `width` columns: long lines wrapped at spaces where possible.
    package func wrappedLines(width: Int) -> [String] {
        switch content {
        case .loading: return []
        case .loaded(let lines): return Self.wrap(lines, width: width)
        case .failed(let reason): return Self.wrap([reason], width: width)
        }
    }

    /// `lines` wrapped to `width` columns (tabs as four spaces, control characters replaced):
    /// at the last space that fits, or anywhere in a word longer than a line.
    package static func wrap(_ lines: [String], width: Int) -> [String] {
        guard width > 0 else { return [] }
        var wrapped: [String] = []
        for line in lines {
            var rest = TerminalText.sanitized(line.replacing("\t", with: "    "))
            if TerminalText.width(of: rest) <= width {
                wrapped.append(rest)
                continue
            }
            while TerminalText.width(of: rest) > width {
                var used = 0
                var cut = rest.startIndex
                var lastSpace: String.Index?
                for index in rest.indices {
                    let next = TerminalText.width(of: rest[index])
                    if used + next > width { break }
                    used += next
                    if rest[index] == " " { lastSpace = index }
                    cut = rest.index(after: index)
                }
                if cut == rest.startIndex { cut = rest.index(after: rest.startIndex) }  // a character wider than a line
                if let lastSpace, lastSpace > rest.startIndex, cut < rest.endIndex {
                    wrapped.append(String(rest[..<lastSpace]))
                    rest = String(rest[rest.index(after: lastSpace)...])
                } else {
                    wrapped.append(String(rest[..<cut]))
                    rest = String(rest[cut...])
                }
            }
            wrapped.append(rest)
        }
        return wrapped
    }
}

extension MessageContent {
    /// The message as `mailsearch show` prints it: the header fields, a blank line, the text,
    /// and a note when it was too large to fetch whole.
    package var readerLines: [String] {
        var lines = ShowCommand.text(of: self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
