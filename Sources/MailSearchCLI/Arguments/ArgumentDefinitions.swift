/// An option a command accepts: a flag (`--json`) or an option with a value (`--limit 20`,
/// `--limit=20`).
public struct OptionDefinition: Hashable, Sendable {
    /// Whether the option takes a value.
    public enum Kind: Hashable, Sendable {
        /// `--json`: present or not.
        case flag
        /// `--limit <n>`: takes one value; `valueName` is what the help shows in angle brackets.
        case value(valueName: String)
    }

    /// The long name without the dashes (`limit`).
    public var name: String
    /// The one-letter name without the dash (`n` for `-n`), if any.
    public var shortName: Character?
    public var kind: Kind
    /// One line for the OPTIONS section of the help.
    public var help: String

    public init(name: String, shortName: Character? = nil, kind: Kind, help: String) {
        self.name = name
        self.shortName = shortName
        self.kind = kind
        self.help = help
    }

    /// A flag such as `--json`.
    public static func flag(_ name: String, short shortName: Character? = nil, help: String) -> OptionDefinition {
        OptionDefinition(name: name, shortName: shortName, kind: .flag, help: help)
    }

    /// An option with a value such as `--limit <n>`.
    public static func option(
        _ name: String, short shortName: Character? = nil, value valueName: String, help: String
    ) -> OptionDefinition {
        OptionDefinition(name: name, shortName: shortName, kind: .value(valueName: valueName), help: help)
    }

    /// `--limit <n>` or `--json`, as usage lines and help show it.
    public var synopsis: String {
        switch kind {
        case .flag: return "--\(name)"
        case .value(let valueName): return "--\(name) <\(valueName)>"
        }
    }

    /// `-n, --limit <n>` for the OPTIONS section.
    var helpLabel: String {
        guard let shortName else { return synopsis }
        return "-\(shortName), \(synopsis)"
    }
}

/// A positional argument (`<file>`, `<uid>...`).
public struct ArgumentDefinition: Hashable, Sendable {
    /// The name the usage shows in angle brackets and `ParsedArguments` files values under.
    public var name: String
    /// One line for the ARGUMENTS section of the help.
    public var help: String
    /// Whether it may be left out.
    public var isOptional: Bool
    /// Whether it takes every remaining positional argument (only the last one may).
    public var isRepeating: Bool

    public init(name: String, help: String, isOptional: Bool = false, isRepeating: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isRepeating = isRepeating
    }

    /// `<file>`, `[<file>]`, `<uid> ...`, as usage lines show it.
    public var synopsis: String {
        let base = "<\(name)>" + (isRepeating ? " ..." : "")
        return isOptional ? "[\(base)]" : base
    }
}
