import IMAPCore
import Testing

/// What a server sees from `CommandParser`: an event, or a refused command with its tag.
enum CommandOutcome: Hashable, Sendable, CustomTestStringConvertible {
    case event(CommandParserEvent)
    case refused(tag: String?, code: IMAPParseError.Code)

    static func command(_ tag: String, _ command: Command) -> CommandOutcome {
        .event(.command(TaggedCommand(tag: tag, command: command)))
    }

    var testDescription: String {
        switch self {
        case .event(let event): return "\(event)"
        case .refused(let tag, let code): return "refused \(tag ?? "-") \(code)"
        }
    }
}

/// Helpers shared by the command tests.
enum CommandTesting {
    /// A calendar day (the tables only use real ones).
    static func day(_ year: Int, _ month: Int, _ day: Int) -> IMAPDate {
        IMAPDate(year: year, month: month, day: day)!
    }

    /// Every outcome of `parser` for the bytes it holds. IDLE switches it to idle mode, as a
    /// server that accepted the IDLE would.
    static func drain(_ parser: inout CommandParser) -> [CommandOutcome] {
        var outcomes: [CommandOutcome] = []
        while true {
            do {
                guard let event = try parser.next() else { return outcomes }
                if case .command(let command) = event, command.command == .idle { parser.mode = .idle }
                outcomes.append(.event(event))
            } catch {
                #expect(!error.message.isEmpty)
                outcomes.append(.refused(tag: error.tag, code: error.code))
            }
        }
    }

    /// Every outcome for `bytes` fed at once.
    static func outcomes(_ bytes: [UInt8], options: ParserOptions = .init()) -> [CommandOutcome] {
        var parser = CommandParser(options: options)
        parser.append(bytes)
        return drain(&parser)
    }

    /// Every outcome for `text` fed at once.
    static func outcomes(_ text: String, options: ParserOptions = .init()) -> [CommandOutcome] {
        outcomes(Array(text.utf8), options: options)
    }

    /// The one command in `text`.
    static func parse(_ text: String) throws -> TaggedCommand {
        var parser = CommandParser()
        parser.append(Array(text.utf8))
        while let event = try parser.next() {
            if case .command(let command) = event { return command }
        }
        throw TestFailure.noCommand
    }

    enum TestFailure: Error { case noCommand }
}

/// The commands of `session.client.txt`, as the server must understand them.
private let sessionExpectation: [CommandOutcome] = {
    let day = CommandTesting.day
    let headerFields = SectionSpecifier(kind: .headerFields(["FROM", "TO", "SUBJECT", "DATE", "MESSAGE-ID"]))
    return [
        .command("a1", .capability),
        .command("a2", .login(username: "alice", password: "secret")),
        .command("a3", .id([IDParameter(key: "name", value: "transcript")])),
        .command("a4", .enable(["CONDSTORE"])),
        .command("a5", .namespace),
        .command("a6", .list(reference: "", patterns: ["*"])),
        .command("a7", .status(.inbox, [.messages, .uidNext, .uidValidity, .unseen, .highestModSeq])),
        .command("a8", .select(.inbox, parameters: [.condStore])),
        .command("a9", .uidSearch(keys: [.from("grace"), .since(day(2025, 1, 1))])),
        .command("b1", .uidSearch(returnOptions: [.min, .max, .count, .all], keys: [.subject("meeting")])),
        .command("b2", .uidSearch(returnOptions: [.count], keys: [.unseen])),
        .command(
            "b3",
            .uidSort(criteria: [SortCriterion(.date, reversed: true)], charset: "UTF-8", keys: [.subject("invoice")])),
        .command("b4", .uidSearch(charset: "KOI8-Q", keys: [.subject("x")])),
        .command("b5", .uidSearch(keys: [.not(.or(.seen, .flagged)), .larger(4000)])),
        .command(
            "b6",
            .uidFetch(
                SequenceSet([SequenceRange(1...40)]),
                [
                    .uid, .flags, .modificationSequence, .internalDate, .rfc822Size, .envelope,
                    .bodyStructure(extensions: true), .preview(lazy: false),
                ])),
        .command(
            "b7",
            .uidFetch(
                SequenceSet(numbers: [2, 5, 9]),
                [
                    .bodySection(peek: true, section: headerFields, partial: nil),
                    .bodySection(peek: true, section: .text, partial: .init(offset: 0, length: 300)),
                ])),
        .command("b8", .uidFetch(SequenceSet(3), [.bodySection(peek: true, section: .complete, partial: nil)])),
        .command(
            "b9",
            .uidFetch(
                SequenceSet(7),
                [
                    .bodySection(peek: true, section: SectionSpecifier(part: [1], kind: .mime), partial: nil),
                    .bodySection(
                        peek: true, section: SectionSpecifier(part: [1]), partial: .init(offset: 0, length: 100)),
                    .binary(peek: true, part: [1], partial: .init(offset: 0, length: 50)),
                ])),
        .command("c1", .uidStore(SequenceSet([SequenceRange(1...3)]), StoreFlags(.add, flags: [.seen, .flagged]))),
        .command("c2", .uidStore(SequenceSet(4), StoreFlags(.remove, silent: true, flags: [.seen]))),
        .command("c3", .uidStore(SequenceSet(5), unchangedSince: 1, StoreFlags(.add, flags: ["$Pinned"]))),
        .command("c4", .uidStore(SequenceSet(6), StoreFlags(.replace, flags: [.answered, "$Label1"]))),
        .refused(tag: "c5", code: .unknownCommand),
        .refused(tag: "c6", code: .unexpectedByte),
        .command("c7", .select("NoSuchBox")),
        .command("c8", .select(.inbox)),
        .command("c9", .uidFetch(SequenceSet([SequenceRange(1...10)]), [.flags], modifiers: [.changedSince(1)])),
        .command("d1", .noop),
        .event(.continuationNeeded(literalSize: 9)),
        .command("d2", .uidSearch(charset: "UTF-8", keys: [.subject(ByteString("会议纪"))])),
        .command("d3", .idle),
        .event(.idleDone),
        .command("d4", .uidExpunge(SequenceSet(999_999))),
        .command("d5", .logout),
    ]
}()

@Suite struct CommandParseTests {
    @Test func everyLineOfTheDovecotClientSessionParses() throws {
        let outcomes = CommandTesting.outcomes(try Fixtures.dovecot("session.client.txt"))
        #expect(outcomes.count == sessionExpectation.count)
        for (actual, expected) in zip(outcomes, sessionExpectation) {
            #expect(actual == expected)
        }
    }

    @Test func sessionValuesAreTheConcreteOnes() throws {
        let outcomes = CommandTesting.outcomes(try Fixtures.dovecot("session.client.txt"))
        guard case .event(.command(let login)) = outcomes[1], case .login(let user, let password) = login.command
        else {
            Issue.record("a2 is not LOGIN: \(outcomes[1])")
            return
        }
        #expect(user.string == "alice")
        #expect(password.string == "secret")
        guard case .event(.command(let search)) = outcomes[29],
            case .uidSearch(let charset, _, let keys) = search.command
        else {
            Issue.record("d2 is not UID SEARCH: \(outcomes[29])")
            return
        }
        #expect(search.tag == "d2")
        #expect(charset == "UTF-8")
        #expect(keys == [.subject(ByteString([0xE4, 0xBC, 0x9A, 0xE8, 0xAE, 0xAE, 0xE7, 0xBA, 0xAA]))])
        guard case .event(.command(let store)) = outcomes[20],
            case .uidStore(let set, let since, let flags) = store.command
        else {
            Issue.record("c3 is not UID STORE: \(outcomes[20])")
            return
        }
        #expect(set.numbers == [5])
        #expect(since == 1)
        #expect(flags.flags.map(\.rawValue) == ["$Pinned"])
    }

    @Test(arguments: [
        // Command names and keywords are case-insensitive.
        ("x1 noop\r\n", TaggedCommand(tag: "x1", command: .noop)),
        (
            "x2 uid fetch 1:* (flags) (changedsince 7 vanished)\r\n",
            TaggedCommand(tag: "x2", command: .uidFetch(.all, [.flags], modifiers: [.changedSince(7), .vanished]))
        ),
        ("x3 FETCH 1 ALL\r\n", TaggedCommand(tag: "x3", command: .fetch(SequenceSet(1), FetchAttribute.allMacro))),
        ("x4 FETCH 1 FAST\r\n", TaggedCommand(tag: "x4", command: .fetch(SequenceSet(1), FetchAttribute.fastMacro))),
        ("x5 FETCH 1 full\r\n", TaggedCommand(tag: "x5", command: .fetch(SequenceSet(1), FetchAttribute.fullMacro))),
        (
            "x6 FETCH 1 BODY[]\r\n",
            TaggedCommand(
                tag: "x6",
                command: .fetch(SequenceSet(1), [.bodySection(peek: false, section: .complete, partial: nil)]))
        ),
        (
            "x7 STORE 2 +FLAGS \\Seen \\Deleted\r\n",
            TaggedCommand(tag: "x7", command: .store(SequenceSet(2), StoreFlags(.add, flags: [.seen, .deleted])))
        ),
        (
            "x8 LOGIN {5}\r\nalice \"se cret\"\r\n",
            TaggedCommand(tag: "x8", command: .login(username: "alice", password: "se cret"))
        ),
        (
            "x9 AUTHENTICATE PLAIN =\r\n",
            TaggedCommand(tag: "x9", command: .authenticate(mechanism: "PLAIN", initialResponse: ByteString([])))
        ),
        ("y1 SELECT \"inbox\"\r\n", TaggedCommand(tag: "y1", command: .select(.inbox))),
        ("y2 LIST \"\" %\r\n", TaggedCommand(tag: "y2", command: .list(reference: "", patterns: ["%"]))),
        // list-char includes "~" and "]": only "~{" starts a literal8.
        (
            "y2a LIST ~user/ ~%/*]\r\n",
            TaggedCommand(tag: "y2a", command: .list(reference: "~user/", patterns: ["~%/*]"]))
        ),
        ("y2b LSUB \"\" ~\r\n", TaggedCommand(tag: "y2b", command: .lsub(reference: "", pattern: "~"))),
        (
            "y3 UID SEARCH 1:5 UID 10:*\r\n",
            TaggedCommand(
                tag: "y3",
                command: .uidSearch(keys: [
                    .sequenceNumbers(SequenceSet([SequenceRange(1...5)])),
                    .uid(SequenceSet([SequenceRange(.number(10), .last)])),
                ]))
        ),
        (
            "y4 SEARCH BEFORE \"5-Mar-2024\"\r\n",
            TaggedCommand(tag: "y4", command: .search(keys: [.before(CommandTesting.day(2024, 3, 5))]))
        ),
        (
            "y5 APPEND Drafts ~{3}\r\na\u{0}b\r\n",
            TaggedCommand(
                tag: "y5", command: .append("Drafts", AppendMessage(data: ByteString([0x61, 0, 0x62]), binary: true)))
        ),
    ])
    func parsesCommand(text: String, expected: TaggedCommand) throws {
        #expect(try CommandTesting.parse(text) == expected)
    }

    @Test func incompleteInputReturnsNilAndKeepsItsPlace() throws {
        var parser = CommandParser()
        parser.append(Array("a1 NOO".utf8))
        #expect(try parser.next() == nil)
        #expect(parser.bufferedByteCount == 6)
        parser.append(Array("P\r\na2 LOGIN {5}\r\nal".utf8))
        #expect(try parser.next() == .command(TaggedCommand(tag: "a1", command: .noop)))
        #expect(try parser.next() == .continuationNeeded(literalSize: 5))
        #expect(try parser.next() == nil)
        #expect(try parser.next() == nil)
        parser.append(Array("ice {6+}\r\nsecr".utf8))
        #expect(try parser.next() == nil)
        parser.append(Array("et\r".utf8))
        #expect(try parser.next() == nil)
        parser.append(Array("\n".utf8))
        #expect(
            try parser.next()
                == .command(TaggedCommand(tag: "a2", command: .login(username: "alice", password: "secret"))))
        #expect(try parser.next() == nil)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func failureNamesTheOffsetAndTheTag() throws {
        var parser = CommandParser()
        parser.append(Array("a0 NOOP\r\na1 FETCH 1 (FLAGS\r\na2 NOOP\r\n".utf8))
        #expect(try parser.next() == .command(TaggedCommand(tag: "a0", command: .noop)))
        do {
            _ = try parser.next()
            Issue.record("an unbalanced FETCH list parsed")
        } catch {
            #expect(error.tag == "a1")
            #expect(error.code == .unexpectedByte)
            #expect(error.underlying.offset == 9 + 17)  // the CR after "FLAGS", in the whole stream
            #expect(error.message == "expected a FETCH data item")
            #expect(error.underlying.excerpt.contains(">>>\\r\\n"))
        }
        #expect(try parser.next() == .command(TaggedCommand(tag: "a2", command: .noop)))
    }

    @Test func loginArgumentsNeverAppearInAnError() throws {
        let outcomes = CommandTesting.outcomes("a1 LOGIN alice hunter2 extra\r\n")
        #expect(outcomes == [.refused(tag: "a1", code: .unexpectedByte)])
        var parser = CommandParser()
        parser.append(Array("a1 LOGIN alice hunter2 extra\r\n".utf8))
        do {
            _ = try parser.next()
            Issue.record("LOGIN with three arguments parsed")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(error.underlying.excerpt.contains("***"))
        }
    }

    @Test func authenticationModeReturnsRawSASLLines() throws {
        var parser = CommandParser()
        parser.append(Array("a1 AUTHENTICATE PLAIN\r\nAGFsaWNlAHNlY3JldA==\r\n*\r\na2 NOOP\r\n".utf8))
        #expect(
            try parser.next() == .command(TaggedCommand(tag: "a1", command: .authenticate(mechanism: "PLAIN"))))
        parser.mode = .authentication
        #expect(try parser.next() == .authenticationResponse("AGFsaWNlAHNlY3JldA=="))
        #expect(try parser.next() == .authenticationResponse("*"))
        parser.mode = .command
        #expect(try parser.next() == .command(TaggedCommand(tag: "a2", command: .noop)))
    }

    @Test func idleModeAcceptsOnlyDone() throws {
        var parser = CommandParser()
        parser.append(Array("a1 IDLE\r\na2 NOOP\r\ndone\r\na3 NOOP\r\n".utf8))
        #expect(try parser.next() == .command(TaggedCommand(tag: "a1", command: .idle)))
        parser.mode = .idle
        do {
            _ = try parser.next()
            Issue.record("a command was accepted during IDLE")
        } catch {
            #expect(error.tag == nil)
            #expect(error.message == "expected DONE to end IDLE")
        }
        #expect(parser.mode == .idle)
        #expect(try parser.next() == .idleDone)
        #expect(parser.mode == .command)
        #expect(try parser.next() == .command(TaggedCommand(tag: "a3", command: .noop)))
    }
}
