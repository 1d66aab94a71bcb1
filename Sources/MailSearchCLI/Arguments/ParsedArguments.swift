/// The options and positional arguments of one command line, sorted out by `ArgumentParser`
/// against a command's definitions. Commands read their values from it in `init(parsing:)`.
public struct ParsedArguments: Hashable, Sendable {
    /// How often each flag was given, by long name.
    public var flagCounts: [String: Int]
    /// The values of each option, by long name, in command-line order.
    public var optionValues: [String: [String]]
    /// The positional values, by argument name (several for a repeating argument).
    public var argumentValues: [String: [String]]

    public init(
        flagCounts: [String: Int] = [:], optionValues: [String: [String]] = [:],
        argumentValues: [String: [String]] = [:]
    ) {
        self.flagCounts = flagCounts
        self.optionValues = optionValues
        self.argumentValues = argumentValues
    }

    /// The long names of the options, and the names of the arguments, the command declared
    /// (set by `ArgumentParser`; nil when these were made by hand).
    var declaredOptions: Set<String>?
    var declaredArguments: Set<String>?

    // Commands read values through their declarations (`FlagOption`, `ValueOption`,
    // `PositionalArgument`), never by these names.

    /// Whether the flag `--name` was given.
    func flag(_ name: String) -> Bool { flagCounts[name, default: 0] > 0 }

    /// The value of `--name`; the last one wins when it was given more than once.
    func value(_ name: String) -> String? { optionValues[name]?.last }

    /// Every value given for `--name`.
    func values(_ name: String) -> [String] { optionValues[name] ?? [] }

    /// The value of the positional argument `name`.
    func argument(_ name: String) -> String? { argumentValues[name]?.first }

    /// Every value of the (repeating) positional argument `name`.
    func arguments(_ name: String) -> [String] { argumentValues[name] ?? [] }

    /// Stops when a command reads an option it did not declare: its value could never be given,
    /// so the read would pass silently.
    func checkDeclared(option name: String) {
        precondition(declaredOptions?.contains(name) ?? true, "--\(name) is read but the command does not declare it")
    }

    /// Stops when a command reads an argument it did not declare.
    func checkDeclared(argument name: String) {
        precondition(
            declaredArguments?.contains(name) ?? true, "<\(name)> is read but the command does not declare it")
    }
}
