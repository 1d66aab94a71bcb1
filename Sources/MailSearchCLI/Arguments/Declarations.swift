/// A flag (`--json`) declared once: the parser and the help take its definition, and the
/// command reads it back through the same value, so a name cannot be misspelt on one side only
/// (the way swift-argument-parser's `@Flag` works).
///
/// ```swift
/// static let json = FlagOption("json", help: "Print JSON Lines.")
/// // configuration: options: [json.definition]
/// // init(parsing:): json = Self.json.read(from: arguments)
/// ```
public struct FlagOption: Hashable, Sendable {
    /// What the parser and the help see.
    public let definition: OptionDefinition

    /// `--name` (and `-short`), with one line of help.
    public init(_ name: String, short: Character? = nil, help: String) {
        definition = .flag(name, short: short, help: help)
    }

    /// Whether the flag was given.
    public func read(from arguments: ParsedArguments) -> Bool {
        arguments.checkDeclared(option: definition.name)
        return arguments.flag(definition.name)
    }
}

/// An option with a value (`--limit <n>`) declared once: its definition for the parser and the
/// help, and how its text becomes a `Value`, which the command reads through it (the way
/// swift-argument-parser's `@Option` works).
public struct ValueOption<Value>: Sendable {
    /// What the parser and the help see.
    public let definition: OptionDefinition
    private let convert: @Sendable (String) throws(UsageError) -> Value

    /// `--name <valueName>`, whose text `convert` turns into a value or a usage error.
    public init(
        _ name: String, short: Character? = nil, value valueName: String, help: String,
        convert: @escaping @Sendable (String) throws(UsageError) -> Value
    ) {
        definition = .option(name, short: short, value: valueName, help: help)
        self.convert = convert
    }

    /// The value given (the last one when given more than once), or nil when it was not given.
    public func read(from arguments: ParsedArguments) throws(UsageError) -> Value? {
        arguments.checkDeclared(option: definition.name)
        guard let text = arguments.value(definition.name) else { return nil }
        return try convert(text)
    }

    /// Every value given, in command-line order.
    public func readAll(from arguments: ParsedArguments) throws(UsageError) -> [Value] {
        arguments.checkDeclared(option: definition.name)
        var values: [Value] = []
        for text in arguments.values(definition.name) { values.append(try convert(text)) }
        return values
    }
}

extension ValueOption where Value == String {
    /// `--name <valueName>`, taken as it is written.
    public init(_ name: String, short: Character? = nil, value valueName: String, help: String) {
        self.init(name, short: short, value: valueName, help: help) { (text) throws(UsageError) in text }
    }
}

extension ValueOption where Value == Int {
    /// `--name <valueName>`, a whole number in `range`.
    public static func integer(
        _ name: String, short: Character? = nil, value valueName: String, in range: ClosedRange<Int>, help: String
    ) -> ValueOption<Int> {
        ValueOption(name, short: short, value: valueName, help: help) { (text) throws(UsageError) in
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(
                    "--\(name) expects a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
            }
            return number
        }
    }
}

/// A positional argument (`<uid> ...`) declared once: its definition for the parser and the
/// help, and the command reads it back through it.
public struct PositionalArgument: Hashable, Sendable {
    /// What the parser and the help see.
    public let definition: ArgumentDefinition

    /// `<name>`, optional and repeating as said.
    public init(_ name: String, help: String, isOptional: Bool = false, isRepeating: Bool = false) {
        definition = ArgumentDefinition(name: name, help: help, isOptional: isOptional, isRepeating: isRepeating)
    }

    /// Its value, which the definition makes required (the parser has checked it is there).
    public func read(from arguments: ParsedArguments) throws(UsageError) -> String {
        arguments.checkDeclared(argument: definition.name)
        return try arguments.required(definition.name)
    }

    /// Every value given (several for a repeating argument; none for a missing optional one).
    public func readAll(from arguments: ParsedArguments) -> [String] {
        arguments.checkDeclared(argument: definition.name)
        return arguments.arguments(definition.name)
    }
}
