/// The search field as a shell's line editor (readline's emacs keys): a text, a cursor in it
/// and the first character in view, as a value that does no I/O. ``TerminalScreen`` keeps one
/// for the field (the text is the model's query; the screen starts a new editor, the cursor at
/// the end, whenever the query changes by anything but an edit); ``InboxRenderer`` draws
/// ``visible(columns:)``.
///
/// | keys | |
/// |---|---|
/// | Left Right, Ctrl-B Ctrl-F | a character left, right |
/// | Alt-B Alt-F | to the start of this or the previous word, to the end of this or the next |
/// | Home End, Ctrl-A Ctrl-E | the start, the end |
/// | Backspace, Delete, Ctrl-D | delete the character before, under the cursor |
/// | Ctrl-W, Alt-Backspace | delete the word before the cursor (up to a space; Alt: a word) |
/// | Alt-D | delete to the end of the word |
/// | Ctrl-U, Ctrl-K | delete to the start, to the end |
///
/// Positions count characters (grapheme clusters), so the cursor never lands inside an emoji
/// or a letter with its accent; columns count cells (a CJK character takes two).
package struct LineEditor: Hashable, Sendable {
    /// The text.
    package private(set) var text: String
    /// How many characters are before the cursor.
    package private(set) var cursor: Int
    /// The first character in view, kept as the cursor moves so the view only scrolls when the
    /// cursor would leave it (set by ``keepCursorVisible(columns:)``).
    package private(set) var firstVisible = 0

    /// `text` with the cursor at `cursor` characters, or at its end.
    package init(text: String = "", cursor: Int? = nil) {
        self.text = text
        self.cursor = min(max(0, cursor ?? text.count), text.count)
    }

    /// What a key did.
    package enum Outcome: Hashable, Sendable {
        /// Not an editing key: nothing changed.
        case ignored
        /// The cursor moved (or could not: it was at the end already); the text is the same.
        case moved
        /// The text changed.
        case edited
    }

    /// Applies an editing key.
    package mutating func handle(_ key: Key) -> Outcome {
        let characters = Array(text)
        switch key {
        case .left, .control("b"): return move(to: cursor - 1)
        case .right, .control("f"): return move(to: cursor + 1)
        case .home, .control("a"): return move(to: 0)
        case .end, .control("e"): return move(to: characters.count)
        case .alt("b"), .alt("B"): return move(to: Self.wordStart(before: cursor, in: characters))
        case .alt("f"), .alt("F"): return move(to: Self.wordEnd(after: cursor, in: characters))
        case .backspace: return delete(cursor - 1..<cursor)
        case .delete, .control("d"): return delete(cursor..<cursor + 1)
        case .control("u"): return delete(0..<cursor)
        case .control("k"): return delete(cursor..<characters.count)
        case .control("w"):
            var start = cursor
            while start > 0, characters[start - 1].isWhitespace { start -= 1 }
            while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
            return delete(start..<cursor)
        case .alt("\u{7F}"): return delete(Self.wordStart(before: cursor, in: characters)..<cursor)
        case .alt("d"), .alt("D"): return delete(cursor..<Self.wordEnd(after: cursor, in: characters))
        case .character(let character):
            insert(String(character))
            return .edited
        default:
            return .ignored
        }
    }

    /// Puts `inserted` at the cursor, the cursor after it.
    package mutating func insert(_ inserted: String) {
        guard !inserted.isEmpty else { return }
        var characters = Array(text)
        let added = Array(inserted)
        characters.insert(contentsOf: added, at: cursor)
        text = String(characters)
        // Joined to its neighbours, the text may hold fewer characters (an accent after a letter).
        cursor = min(cursor + added.count, text.count)
    }

    /// `pasted` as the field takes it: line breaks, tabs and other control characters (and the
    /// marks ``TerminalText`` keeps off the screen) as spaces, so a paste is one line.
    /// A CR LF pair is one space.
    package static func fieldText(_ pasted: String) -> String {
        let lines = pasted.replacing("\r\n", with: "\n")
        return String(String.UnicodeScalarView(lines.unicodeScalars.map { TerminalText.isUnsafe($0) ? " " : $0 }))
    }

    private mutating func move(to position: Int) -> Outcome {
        cursor = min(max(0, position), text.count)
        return .moved
    }

    private mutating func delete(_ range: Range<Int>) -> Outcome {
        var characters = Array(text)
        let clamped = range.clamped(to: 0..<characters.count)
        guard !clamped.isEmpty else { return .moved }
        characters.removeSubrange(clamped)
        text = String(characters)
        cursor = min(clamped.lowerBound, text.count)
        return .edited
    }

    /// Readline's `backward-word`: back over anything but letters and digits, then over them.
    private static func wordStart(before position: Int, in characters: [Character]) -> Int {
        var index = position
        while index > 0, !isWordCharacter(characters[index - 1]) { index -= 1 }
        while index > 0, isWordCharacter(characters[index - 1]) { index -= 1 }
        return index
    }

    /// Readline's `forward-word`: over anything but letters and digits, then over them.
    private static func wordEnd(after position: Int, in characters: [Character]) -> Int {
        var index = position
        while index < characters.count, !isWordCharacter(characters[index]) { index += 1 }
        while index < characters.count, isWordCharacter(characters[index]) { index += 1 }
        return index
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber
    }

    // MARK: - The view

    /// Scrolls as little as needed for the cursor to be in a field `columns` wide, and no
    /// further right than fills it.
    package mutating func keepCursorVisible(columns: Int) {
        firstVisible = Self.first(
            keeping: firstVisible, cursor: cursor, widths: Array(text).map(Self.width), columns: columns)
    }

    /// What a field `columns` wide shows (control characters as spaces) and the cursor's column
    /// in it.
    package func visible(columns: Int) -> (text: String, cursorColumn: Int) {
        let characters = Array(text)
        let widths = characters.map(Self.width)
        let first = Self.first(keeping: firstVisible, cursor: cursor, widths: widths, columns: columns)
        var shown = ""
        var used = 0
        var cursorColumn = 0
        for index in first..<characters.count {
            if index == cursor { cursorColumn = used }
            guard used + widths[index] <= columns else { break }
            shown += TerminalText.sanitized(String(characters[index]))
            used += widths[index]
        }
        if cursor == characters.count { cursorColumn = used }
        return (shown, cursorColumn)
    }

    /// The first character in view: `first` moved as little as needed for the cursor's cell
    /// (the character under it, or one column after the end) to be in view, then back while
    /// the rest of the text and the cursor still fit (after a deletion or a wider window).
    private static func first(keeping first: Int, cursor: Int, widths: [Int], columns: Int) -> Int {
        guard columns > 0 else { return cursor }
        var first = min(max(0, first), cursor)
        let cursorCell = cursor < widths.count ? max(1, widths[cursor]) : 1
        var before = widths[first..<cursor].reduce(0, +)
        while first < cursor, before + cursorCell > columns {
            before -= widths[first]
            first += 1
        }
        var rest = widths[first...].reduce(0, +) + (cursor == widths.count ? 1 : 0)
        while first > 0, rest + widths[first - 1] <= columns {
            first -= 1
            rest += widths[first]
        }
        return first
    }

    private static func width(_ character: Character) -> Int {
        TerminalText.width(of: TerminalText.sanitized(String(character)))
    }
}
