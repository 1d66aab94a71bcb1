import IMAPCore
import Testing

/// A bad command, the limits in force, and the refusal it must get.
struct MalformedCommandFixture: Sendable, CustomTestStringConvertible {
    let bytes: String
    let options: ParserOptions
    let tag: String?
    let code: IMAPParseError.Code

    init(_ bytes: String, tag: String?, _ code: IMAPParseError.Code, options: ParserOptions = .init()) {
        self.bytes = bytes
        self.options = options
        self.tag = tag
        self.code = code
    }

    var testDescription: String { String(bytes.prefix(60)).debugDescription }
}

private let smallLines = ParserOptions(maximumLineLength: 64)
private let smallLiterals = ParserOptions(maximumLiteralSize: 16)

private let malformedFixtures: [MalformedCommandFixture] = [
    // Unbalanced parentheses.
    .init("m1 UID FETCH 1 (FLAGS UID\r\n", tag: "m1", .unexpectedByte),
    .init("m2 UID SEARCH (SEEN (FLAGGED)\r\n", tag: "m2", .unexpectedByte),
    .init("m3 UID SEARCH SEEN)\r\n", tag: "m3", .unexpectedByte),
    .init("m4 STATUS INBOX (MESSAGES\r\n", tag: "m4", .unexpectedByte),
    .init("m5 UID STORE 1 +FLAGS (\\Seen\r\n", tag: "m5", .unexpectedByte),
    // Bad literal lengths.
    .init("n1 LOGIN {5x}\r\n", tag: "n1", .unexpectedByte),
    .init("n2 LOGIN {123456789012345678901}\r\n", tag: "n2", .literalTooLarge),
    .init("n3 APPEND INBOX {}\r\n", tag: "n3", .unexpectedByte),
    // Unknown commands and items.
    .init("o1 BOGUS\r\n", tag: "o1", .unknownCommand),
    .init("o2 UID BOGUS 1\r\n", tag: "o2", .unknownCommand),
    .init("o3 UID FETCH 1 (NOSUCHITEM)\r\n", tag: "o3", .unexpectedByte),
    .init("o4 UID SEARCH RETURN (FIRST) ALL\r\n", tag: "o4", .unexpectedByte),
    // Missing arguments.
    .init("p1 SELECT\r\n", tag: "p1", .unexpectedByte),
    .init("p2 LOGIN alice\r\n", tag: "p2", .unexpectedByte),
    .init("p3 UID FETCH 1:3\r\n", tag: "p3", .unexpectedByte),
    .init("p4 STATUS INBOX ()\r\n", tag: "p4", .unexpectedByte),
    .init("p5 UID SEARCH\r\n", tag: "p5", .unexpectedByte),
    .init("p6 UID SORT (DATE) UTF-8\r\n", tag: "p6", .unexpectedByte),
    .init("p7 APPEND INBOX (\\Seen)\r\n", tag: "p7", .unexpectedByte),
    .init("p8 RENAME A\r\n", tag: "p8", .unexpectedByte),
    .init("p9 UID EXPUNGE\r\n", tag: "p9", .unexpectedByte),
    // Extra arguments, bad values.
    .init("q1 NOOP now\r\n", tag: "q1", .unexpectedByte),
    .init("q2 UID FETCH 0:x (FLAGS)\r\n", tag: "q2", .unexpectedByte),
    .init("q3 UID FETCH 99999999999 (FLAGS)\r\n", tag: "q3", .numberOutOfRange),
    .init("q4 SEARCH SINCE 31-Apr-2024\r\n", tag: "q4", .invalidDate),
    .init("q5 AUTHENTICATE PLAIN abc\r\n", tag: "q5", .unexpectedByte),
    // Not a command at all.
    .init("\r\n", tag: nil, .unexpectedByte),
    .init("+ NOOP\r\n", tag: nil, .unexpectedByte),
    // Limits.
    .init(
        "r1 UID FETCH " + String(repeating: "1,", count: 40) + "2 (FLAGS)\r\n", tag: "r1", .lineTooLong,
        options: smallLines),
    .init(
        "r2 LOGIN {3}\r\nabc " + String(repeating: "x", count: 80) + "\r\n", tag: "r2", .lineTooLong,
        options: smallLines),
    .init("r3 APPEND INBOX {100}\r\n", tag: "r3", .literalTooLarge, options: smallLiterals),
    .init(
        "r4 APPEND INBOX {100+}\r\n" + String(repeating: "y", count: 100) + "\r\n", tag: "r4", .literalTooLarge,
        options: smallLiterals),
    .init(
        "r5 UID SEARCH " + String(repeating: "(", count: 150) + "SEEN" + String(repeating: ")", count: 150) + "\r\n",
        tag: "r5", .nestingTooDeep),
]

@Suite struct CommandMalformedTests {
    @Test(arguments: malformedFixtures)
    func refusesWithTheTagAndTheNextCommandStillParses(fixture: MalformedCommandFixture) {
        var parser = CommandParser(options: fixture.options)
        parser.append(Array(fixture.bytes.utf8))
        parser.append(Array("z9 NOOP\r\n".utf8))
        var refusal: CommandParseError?
        var events: [CommandParserEvent] = []
        while true {
            do {
                guard let event = try parser.next() else { break }
                events.append(event)
            } catch {
                #expect(refusal == nil, "refused twice: \(error)")
                refusal = error
            }
        }
        #expect(refusal?.tag == fixture.tag)
        #expect(refusal?.code == fixture.code)
        #expect(refusal?.message.isEmpty == false)
        let commands = events.filter { event in
            if case .continuationNeeded = event { return false }
            return true
        }
        #expect(commands == [.command(TaggedCommand(tag: "z9", command: .noop))])
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func errorsNameWhereTheyHappened() throws {
        var parser = CommandParser()
        parser.append(Array("a1 NOOP\r\nb2 SELECT INBOX (CONDSTORE\r\n".utf8))
        #expect(try parser.next() == .command(TaggedCommand(tag: "a1", command: .noop)))
        let error = #expect(throws: CommandParseError.self, "unbalanced SELECT parameters parsed") {
            try parser.next()
        }
        #expect(error?.tag == "b2")
        #expect(error?.code == .unexpectedByte)
        #expect(error?.underlying.offset == 9 + 26)  // the CR where ")" was due
        #expect(error?.description.hasPrefix("b2: IMAP protocol error at byte 35") == true)
        // The refused command is gone, and nothing else is left.
        #expect(parser.bufferedByteCount == 0)
        #expect(try parser.next() == nil)
    }

    @Test func aRefusedSynchronizingLiteralIsNotWaitedFor() throws {
        // The client waits for "+" that never comes; after "r3 BAD" its next command follows directly.
        var parser = CommandParser(options: ParserOptions(maximumLiteralSize: 16))
        parser.append(Array("r3 APPEND INBOX {100}\r\n".utf8))
        #expect(throws: CommandParseError.self) { try parser.next() }
        #expect(try parser.next() == nil)
        parser.append(Array("r4 APPEND INBOX {3}\r\n".utf8))
        #expect(try parser.next() == .continuationNeeded(literalSize: 3))
        parser.append(Array("abc\r\n".utf8))
        #expect(
            try parser.next()
                == .command(TaggedCommand(tag: "r4", command: .append(.inbox, AppendMessage(data: "abc")))))
    }
}
