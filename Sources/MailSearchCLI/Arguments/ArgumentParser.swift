/// Sorts a command's words into options and positional arguments, in the conventions of
/// swift-argument-parser:
///
/// - `--name value` and `--name=value` for options, `--name` for flags, `-x` for one-letter names;
/// - `-h`/`--help` anywhere before `--` asks for the help, whatever else is wrong;
/// - `--` ends the options, so a positional argument may begin with `-`
///   (`mailsearch search -- -is:read`); a lone `-` is positional (standard input);
/// - a value that starts with `-` is not taken as an option's value unless written `--name=-x`
///   or it is a number (`--offset -5`), so `--mailbox --json` reports the missing value.
public enum ArgumentParser {
    /// What the words asked for.
    public enum Outcome: Hashable, Sendable {
        /// `-h` or `--help` was among the options.
        case help
        /// The words fit the definitions.
        case parsed(ParsedArguments)
    }

    /// Parses `words` (the words after the command's name) against `options` and `arguments`.
    ///
    /// - Parameter commandName: the command as the user types it (`mailsearch debug parse`), used
    ///   in error messages.
    public static func parse(
        _ words: [String], options: [OptionDefinition], arguments: [ArgumentDefinition], commandName: String
    ) throws(UsageError) -> Outcome {
        let optionWords = words.prefix { $0 != "--" }
        if optionWords.contains(where: { $0 == "-h" || $0 == "--help" }) { return .help }

        var parsed = ParsedArguments()
        parsed.declaredOptions = Set(options.map(\.name))
        parsed.declaredArguments = Set(arguments.map(\.name))
        var positionals: [String] = []
        var position = 0
        var optionsEnded = false
        while position < words.count {
            let word = words[position]
            position += 1
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            let (definition, inlineValue) = try lookUp(word, in: options, commandName: commandName)
            switch definition.kind {
            case .flag:
                if inlineValue != nil { throw UsageError("\(definition.synopsis) takes no value (in \"\(word)\")") }
                parsed.flagCounts[definition.name, default: 0] += 1
            case .value:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if position < words.count, isValue(words[position]) {
                    value = words[position]
                    position += 1
                } else {
                    throw UsageError("missing value for \(definition.synopsis)")
                }
                parsed.optionValues[definition.name, default: []].append(value)
            }
        }
        parsed.argumentValues = try assign(positionals, to: arguments)
        return .parsed(parsed)
    }

    /// The definition `word` names, and the value after `=` in `--name=value`.
    private static func lookUp(
        _ word: String, in options: [OptionDefinition], commandName: String
    ) throws(UsageError) -> (OptionDefinition, String?) {
        if word.hasPrefix("--") {
            let body = word.dropFirst(2)
            let name = body.prefix { $0 != "=" }
            let inlineValue = body.count > name.count ? String(body.dropFirst(name.count + 1)) : nil
            if let definition = options.first(where: { $0.name == name }) { return (definition, inlineValue) }
            let suggestion = nearestCandidate(to: String(name), in: options.map(\.name) + ["help"])
            throw UsageError(
                "unknown option \"--\(name)\" for \"\(commandName)\"",
                hint: suggestion.map { "did you mean \"--\($0)\"?" })
        }
        let letters = word.dropFirst()
        if letters.count == 1, let letter = letters.first,
            let definition = options.first(where: { $0.shortName == letter })
        {
            return (definition, nil)
        }
        throw UsageError("unknown option \"\(word)\" for \"\(commandName)\"")
    }

    /// Whether `word` can be an option's value: not an option itself, but `-` and negative
    /// numbers are fine.
    private static func isValue(_ word: String) -> Bool {
        !word.hasPrefix("-") || word == "-" || Int(word) != nil
    }

    /// Hands positional values to the argument definitions in order.
    private static func assign(
        _ values: [String], to definitions: [ArgumentDefinition]
    ) throws(UsageError) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var remaining = values[...]
        for (position, definition) in definitions.enumerated() {
            let requiredAfter = definitions[(position + 1)...].filter { !$0.isOptional }.count
            if definition.isRepeating {
                let taken = remaining.dropLast(requiredAfter)
                if taken.isEmpty && !definition.isOptional {
                    throw UsageError("missing argument \(definition.synopsis)")
                }
                if !taken.isEmpty { result[definition.name] = Array(taken) }
                remaining = remaining.dropFirst(taken.count)
                continue
            }
            if remaining.count > requiredAfter || (!definition.isOptional && !remaining.isEmpty),
                let value = remaining.first
            {
                result[definition.name] = [value]
                remaining = remaining.dropFirst()
            } else if !definition.isOptional {
                throw UsageError("missing argument <\(definition.name)>")
            }
        }
        if let extra = remaining.first {
            throw UsageError("unexpected argument \"\(extra)\"")
        }
        return result
    }
}
