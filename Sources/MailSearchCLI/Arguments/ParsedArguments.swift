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

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flagCounts[name, default: 0] > 0 }

    /// The value of `--name`; the last one wins when it was given more than once.
    public func value(_ name: String) -> String? { optionValues[name]?.last }

    /// Every value given for `--name`.
    public func values(_ name: String) -> [String] { optionValues[name] ?? [] }

    /// The value of the positional argument `name`.
    public func argument(_ name: String) -> String? { argumentValues[name]?.first }

    /// Every value of the (repeating) positional argument `name`.
    public func arguments(_ name: String) -> [String] { argumentValues[name] ?? [] }

    /// The value of `--name` as a whole number in `range`, or nil when it was not given.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "--\(name) expects a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
    }
}
