import MailSearchCLI
import TestSupport
import Testing

@Suite(.hangGuard) struct ArgumentParserTests {
    static let json = FlagOption("json", help: "JSON Lines.")
    static let limit = ValueOption<String>("limit", short: "n", value: "n", help: "At most n.")
    static let mailbox = ValueOption<String>("mailbox", value: "name", help: "The mailbox.")
    static let options = [json.definition, limit.definition, mailbox.definition]
    static let queryArgument = PositionalArgument("query", help: "Words.", isOptional: true, isRepeating: true)
    static let fileArgument = PositionalArgument("file", help: "A file.")
    static let query = [queryArgument.definition]
    static let file = [fileArgument.definition]

    func parse(
        _ words: [String], arguments: [ArgumentDefinition] = query
    ) throws(UsageError) -> ParsedArguments {
        let outcome = try ArgumentParser.parse(
            words, options: Self.options, arguments: arguments, commandName: "mailsearch test")
        guard case .parsed(let parsed) = outcome else { throw UsageError("asked for help") }
        return parsed
    }

    func usageError(_ words: [String], arguments: [ArgumentDefinition] = query) -> UsageError? {
        do {
            _ = try parse(words, arguments: arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func optionsFlagsAndPositionalsInAnyOrder() throws {
        let parsed = try parse(["from:bob", "--limit", "5", "--json", "is:unread"])
        #expect(Self.json.read(from: parsed))
        #expect(try Self.limit.read(from: parsed) == "5")
        #expect(Self.queryArgument.readAll(from: parsed) == ["from:bob", "is:unread"])
        #expect(try Self.mailbox.read(from: parsed) == nil)
    }

    @Test func valueAfterEqualsSignAndShortName() throws {
        #expect(try Self.limit.read(from: parse(["--limit=7"])) == "7")
        #expect(try Self.limit.read(from: parse(["-n", "3"])) == "3")
        #expect(try Self.mailbox.read(from: parse(["--mailbox=-odd-"])) == "-odd-")
        #expect(try Self.mailbox.read(from: parse(["--mailbox="])) == "")
    }

    @Test func lastValueWinsAndAllAreKept() throws {
        let parsed = try parse(["--limit", "1", "--limit", "2"])
        #expect(try Self.limit.read(from: parsed) == "2")
        #expect(try Self.limit.readAll(from: parsed) == ["1", "2"])
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parse(["--json", "--", "-is:read", "--limit", "--help"])
        #expect(Self.json.read(from: parsed))
        #expect(try Self.limit.read(from: parsed) == nil)
        #expect(Self.queryArgument.readAll(from: parsed) == ["-is:read", "--limit", "--help"])
    }

    @Test func loneDashIsPositional() throws {
        #expect(try Self.fileArgument.read(from: parse(["-"], arguments: Self.file)) == "-")
    }

    @Test(arguments: [["--help"], ["-h"], ["x", "--help"], ["--bogus", "-h"], ["--limit", "1", "--help", "extra"]])
    func helpWinsBeforeDoubleDash(words: [String]) throws {
        let outcome = try ArgumentParser.parse(
            words, options: Self.options, arguments: Self.file, commandName: "mailsearch test")
        #expect(outcome == .help)
    }

    @Test func helpAfterDoubleDashIsAnArgument() throws {
        #expect(try Self.fileArgument.read(from: parse(["--", "--help"], arguments: Self.file)) == "--help")
    }

    @Test func unknownOptionSuggestsTheNearestOne() {
        let error = usageError(["--jsno"])
        #expect(error?.message == "unknown option \"--jsno\" for \"mailsearch test\"")
        #expect(error?.hint == "did you mean \"--json\"?")
        #expect(usageError(["--zzzzzz"])?.hint == nil)
        #expect(usageError(["-x"])?.message == "unknown option \"-x\" for \"mailsearch test\"")
    }

    @Test func missingValues() {
        #expect(usageError(["--limit"])?.message == "missing value for --limit <n>")
        #expect(usageError(["--mailbox", "--json"])?.message == "missing value for --mailbox <name>")
    }

    @Test func negativeNumberIsAValue() throws {
        #expect(try Self.limit.read(from: parse(["--limit", "-5"])) == "-5")
    }

    /// A declared option converts its text when read: a typed value, or the usage error that
    /// its declaration words.
    @Test func typedOptionsConvertWhenRead() throws {
        let count = ValueOption.integer("count", value: "n", in: 1...9, help: "How many.")
        let words = { (words: [String]) throws(UsageError) -> ParsedArguments in
            guard
                case .parsed(let parsed) = try ArgumentParser.parse(
                    words, options: [count.definition], arguments: [], commandName: "mailsearch test")
            else { throw UsageError("asked for help") }
            return parsed
        }
        #expect(try count.read(from: words(["--count", "3"])) == 3)
        #expect(try count.read(from: words([])) == nil)
        #expect(throws: UsageError("--count expects a whole number from 1 to 9, not \"12\"")) {
            try count.read(from: words(["--count", "12"]))
        }
    }

    @Test func flagWithValueIsRefused() {
        #expect(usageError(["--json=yes"])?.message == "--json takes no value (in \"--json=yes\")")
    }

    @Test func missingAndExtraArguments() {
        #expect(usageError([], arguments: Self.file)?.message == "missing argument <file>")
        #expect(usageError(["a", "b"], arguments: Self.file)?.message == "unexpected argument \"b\"")
    }

    @Test func optionalArgumentLeavesValuesForRequiredOnes() throws {
        let mailbox = PositionalArgument("mailbox", help: "", isOptional: true)
        let uid = PositionalArgument("uid", help: "", isRepeating: true)
        let definitions = [mailbox.definition, uid.definition]
        let one = try parse(["12"], arguments: definitions)
        #expect(mailbox.readAll(from: one).isEmpty)
        #expect(uid.readAll(from: one) == ["12"])
        let three = try parse(["Sent", "12", "15:20"], arguments: definitions)
        #expect(try mailbox.read(from: three) == "Sent")
        #expect(uid.readAll(from: three) == ["12", "15:20"])
        #expect(usageError([], arguments: definitions)?.message == "missing argument <uid> ...")
    }

    @Test func integerValues() throws {
        let limit = ValueOption.integer("limit", short: "n", value: "n", in: 1...1000, help: "At most n.")
        #expect(try limit.read(from: parse(["--limit", "20"])) == 20)
        #expect(try limit.read(from: parse([])) == nil)
        #expect(throws: UsageError("--limit expects a whole number from 1 to 1000, not \"abc\"")) {
            try limit.read(from: parse(["--limit", "abc"]))
        }
        #expect(throws: UsageError("--limit expects a whole number from 1 to 1000, not \"0\"")) {
            try limit.read(from: parse(["--limit", "0"]))
        }
    }

    @Test func synopses() {
        #expect(Self.options[1].synopsis == "--limit <n>")
        #expect(Self.query[0].synopsis == "[<query> ...]")
        #expect(Self.file[0].synopsis == "<file>")
    }
}
