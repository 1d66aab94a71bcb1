internal import FoundationEssentials

/// One suggestion for the search field: the whole text the field would hold if chosen.
public struct Suggestion: Hashable, Sendable, CustomStringConvertible {
    /// Where a suggestion comes from.
    public enum Kind: Hashable, Sendable {
        /// A recent search that starts with what was typed.
        case recentSearch
        /// A completion of an operator or of its value (`fr` -> `from:`, `is:` -> `is:unread`).
        case operatorCompletion
        /// An address or name seen in the account's mail, after `from:` or `to:`.
        case person
    }

    /// Where it comes from.
    public var kind: Kind
    /// The text of the search field with the suggestion applied.
    public var text: String

    /// A suggestion.
    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    /// The same as `text`.

    public var description: String { text }
}

/// What to offer while a person types (docs/cli.md, "History and suggestions"): recent searches
/// that start with the text, then operator completions, then people after `from:`/`to:`; at most
/// `limit`, no duplicates. Local only: no server round trip.
public enum Suggestions {
    /// The most suggestions returned.
    public static let limit = 10

    /// The operators in the order they are offered.
    public static let operators = [
        "from:", "to:", "subject:", "is:", "has:", "in:", "after:", "before:", "on:", "date:", "newer_than:",
        "older_than:", "larger:", "smaller:", "cc:", "bcc:", "body:", "text:", "header:", "sent-after:",
        "sent-before:", "uid:", "raw:",
    ]

    /// Values offered after an operator.
    public static let operatorValues: [String: [String]] = [
        "is:": ["unread", "read", "pinned", "unpinned", "flagged", "unflagged", "answered", "draft", "deleted"],
        "has:": ["attachment"],
        "in:": ["all", "INBOX"],
        "newer_than:": ["7d", "1d", "2w", "1m", "1y"],
        "older_than:": ["7d", "1d", "2w", "1m", "1y"],
        "after:": ["today", "yesterday"],
        "before:": ["today", "yesterday"],
        "on:": ["today", "yesterday"],
        "larger:": ["1M", "10M"],
        "smaller:": ["100K", "1M"],
    ]

    /// The operators whose values are people.
    public static let personOperators: Set<String> = ["from:", "to:"]

    /// Suggestions for `typed`, from `history` (newest first) and `people`.
    public static func suggest(
        for typed: String, history: [String], people: PeopleIndex = PeopleIndex()
    ) -> [Suggestion] {
        var suggestions: [Suggestion] = []
        var seen: Set<String> = []
        func offer(_ suggestion: Suggestion) {
            guard suggestions.count < limit, seen.insert(suggestion.text.lowercased()).inserted else { return }
            suggestions.append(suggestion)
        }
        let prefix = String(typed.drop { $0.isWhitespace })
        let foldedPrefix = prefix.lowercased()
        for entry in history where entry.lowercased().hasPrefix(foldedPrefix) {
            offer(Suggestion(.recentSearch, entry))
        }
        // The token being typed: after the last space; a leading "-" stays in front.
        let tokenStart = prefix.lastIndex(where: { $0 == " " }).map(prefix.index(after:)) ?? prefix.startIndex
        var head = String(prefix[..<tokenStart])
        var token = String(prefix[tokenStart...])
        if token.hasPrefix("-") {
            head += "-"
            token.removeFirst()
        }
        guard !token.isEmpty else { return suggestions }
        guard let colon = token.firstIndex(of: ":") else {
            for name in operators where name.hasPrefix(token.lowercased()) {
                offer(Suggestion(.operatorCompletion, head + name))
            }
            return suggestions
        }
        let name = token[...colon].lowercased()
        var partial = String(token[token.index(after: colon)...])
        if partial.hasPrefix("\"") { partial.removeFirst() }
        for value in operatorValues[name] ?? [] where value.lowercased().hasPrefix(partial.lowercased()) {
            offer(Suggestion(.operatorCompletion, head + name + value))
        }
        if personOperators.contains(name) {
            for person in people.matching(partial) {
                offer(Suggestion(.person, head + name + quotedIfNeeded(person)))
            }
        }
        return suggestions
    }

    /// `person` as a query value: quoted (with `"` and `\` escaped) when it has a space, quote or
    /// parenthesis.
    static func quotedIfNeeded(_ person: String) -> String {
        guard person.contains(where: { $0 == " " || $0 == "\"" || $0 == "(" || $0 == ")" || $0 == "\\" }) else {
            return person
        }
        var quoted = "\""
        for scalar in person.unicodeScalars {
            if scalar == "\\" || scalar == "\"" { quoted += "\\" }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }
}
