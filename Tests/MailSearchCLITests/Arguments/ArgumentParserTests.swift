import MailSearchCLI
import TestSupport
import Testing

@Suite(.hangGuard) struct ArgumentParserTests {
    static let options: [OptionDefinition] = [
        .flag("json", help: "JSON Lines."),
        .option("limit", short: "n", value: "n", help: "At most n."),
        .option("mailbox", value: "name", help: "The mailbox."),
    ]
    static let query = [ArgumentDefinition(name: "query", help: "Words.", isOptional: true, isRepeating: true)]
    static let file = [ArgumentDefinition(name: "file", help: "A file.")]

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
        #expect(parsed.flag("json"))
        #expect(parsed.value("limit") == "5")
        #expect(parsed.arguments("query") == ["from:bob", "is:unread"])
        #expect(!parsed.flag("mailbox"))
    }

    @Test func valueAfterEqualsSignAndShortName() throws {
        #expect(try parse(["--limit=7"]).value("limit") == "7")
        #expect(try parse(["-n", "3"]).value("limit") == "3")
        #expect(try parse(["--mailbox=-odd-"]).value("mailbox") == "-odd-")
        #expect(try parse(["--mailbox="]).value("mailbox") == "")
    }

    @Test func lastValueWinsAndAllAreKept() throws {
        let parsed = try parse(["--limit", "1", "--limit", "2"])
        #expect(parsed.value("limit") == "2")
        #expect(parsed.values("limit") == ["1", "2"])
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parse(["--json", "--", "-is:read", "--limit", "--help"])
        #expect(parsed.flag("json"))
        #expect(parsed.value("limit") == nil)
        #expect(parsed.arguments("query") == ["-is:read", "--limit", "--help"])
    }

    @Test func loneDashIsPositional() throws {
        #expect(try parse(["-"], arguments: Self.file).argument("file") == "-")
    }

    @Test(arguments: [["--help"], ["-h"], ["x", "--help"], ["--bogus", "-h"], ["--limit", "1", "--help", "extra"]])
    func helpWinsBeforeDoubleDash(words: [String]) throws {
        let outcome = try ArgumentParser.parse(
            words, options: Self.options, arguments: Self.file, commandName: "mailsearch test")
        #expect(outcome == .help)
    }

    @Test func helpAfterDoubleDashIsAnArgument() throws {
        #expect(try parse(["--", "--help"], arguments: Self.file).argument("file") == "--help")
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
        #expect(try parse(["--limit", "-5"]).value("limit") == "-5")
    }

    @Test func flagWithValueIsRefused() {
        #expect(usageError(["--json=yes"])?.message == "--json takes no value (in \"--json=yes\")")
    }

    @Test func missingAndExtraArguments() {
        #expect(usageError([], arguments: Self.file)?.message == "missing argument <file>")
        #expect(usageError(["a", "b"], arguments: Self.file)?.message == "unexpected argument \"b\"")
    }

    @Test func optionalArgumentLeavesValuesForRequiredOnes() throws {
        let definitions = [
            ArgumentDefinition(name: "mailbox", help: "", isOptional: true),
            ArgumentDefinition(name: "uid", help: "", isRepeating: true),
        ]
        let one = try parse(["12"], arguments: definitions)
        #expect(one.argument("mailbox") == nil)
        #expect(one.arguments("uid") == ["12"])
        let three = try parse(["Sent", "12", "15:20"], arguments: definitions)
        #expect(three.argument("mailbox") == "Sent")
        #expect(three.arguments("uid") == ["12", "15:20"])
        #expect(usageError([], arguments: definitions)?.message == "missing argument <uid> ...")
    }

    @Test func integerValues() throws {
        #expect(try parse(["--limit", "20"]).integer("limit", in: 1...1000) == 20)
        #expect(try parse([]).integer("limit", in: 1...1000) == nil)
        #expect(throws: UsageError("--limit expects a whole number from 1 to 1000, not \"abc\"")) {
            try parse(["--limit", "abc"]).integer("limit", in: 1...1000)
        }
        #expect(throws: UsageError("--limit expects a whole number from 1 to 1000, not \"0\"")) {
            try parse(["--limit", "0"]).integer("limit", in: 1...1000)
        }
    }

    @Test func synopses() {
        #expect(Self.options[1].synopsis == "--limit <n>")
        #expect(Self.query[0].synopsis == "[<query> ...]")
        #expect(Self.file[0].synopsis == "<file>")
    }
}
