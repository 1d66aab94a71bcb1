import IMAPCore
import Testing

@Suite struct CommandRoundTripTests {
    /// Every kind of command, with the less common arguments.
    static let commands: [TaggedCommand] = {
        let day = CommandTesting.day(2024, 3, 5)
        let commands: [Command] = [
            .capability, .noop, .logout, .startTLS, .namespace, .close, .unselect, .expunge, .check, .idle,
            .login(username: "alice", password: "secret"),
            .login(username: "jörg@example.com", password: "pass with \"quotes\" and \\"),
            .login(username: "", password: "NIL"),
            .authenticate(mechanism: "PLAIN"),
            .authenticate(mechanism: "PLAIN", initialResponse: "AGFsaWNlAHNlY3JldA=="),
            .authenticate(mechanism: "EXTERNAL", initialResponse: ByteString([])),
            .enable(["CONDSTORE", "QRESYNC", "UTF8=ACCEPT"]),
            .id(nil), .id([]),
            .id([IDParameter(key: "name", value: "MailSearch"), IDParameter(key: "os", value: nil)]),
            .select(.inbox), .select("Lists/swift", parameters: [.condStore]),
            .select(
                .inbox, parameters: [.other(name: "QRESYNC", value: "(67890007 20050715194045000 41:211 (1,3 5,7))")]),
            .examine("Archive", parameters: [.other(name: "X-FAST", value: nil), .condStore]),
            .create("Ärchiv"), .delete("Old Stuff"), .rename(from: "A", to: "B/C"),
            .subscribe("Lists"), .unsubscribe("Lists"),
            .list(reference: "", patterns: ["*"]),
            .list(
                selection: [.subscribed, .remote, .recursiveMatch, .specialUse], reference: "Lists",
                patterns: ["%", "Work/*", "two words"],
                returnOptions: [.subscribed, .children, .specialUse, .status([.messages, .unseen, .size])]),
            .lsub(reference: "", pattern: "Lists/%"),
            .status(.inbox, StatusAttribute.allCases),
            .uidExpunge(SequenceSet(numbers: [3, 4, 5, 9])),
            .append("Sent", AppendMessage(data: "From: a\r\n\r\nhi\r\n")),
            .append(
                "Sent",
                AppendMessage(
                    flags: [.seen, "$Sent"],
                    internalDate: IMAPDateTime(date: day, hour: 23, minute: 59, second: 1, zoneMinutes: -300),
                    data: "x")),
            .append("Drafts", AppendMessage(data: ByteString([0, 1, 2, 0xFF]), binary: true)),
            .search(keys: [.all]),
            .search(charset: "UTF-8", keys: [.from("Müller"), .subject("パリ")]),
            .uidSearch(keys: SearchKeyTests.allKeys),
            .uidSearch(returnOptions: [.min, .max, .all, .count, .save], keys: [.unseen]),
            .uidSearch(charset: "UTF-8", returnOptions: [], keys: [.not(.or(.seen, .and([.flagged, .draft])))]),
            .sort(
                criteria: [SortCriterion(.subject), SortCriterion(.date, reversed: true)], charset: "UTF-8",
                keys: [.all]),
            .uidSort(
                criteria: [SortCriterion(.arrival, reversed: true)], charset: "US-ASCII",
                keys: [.undeleted, .since(day)], returnOptions: [.count, .all]),
            .fetch(SequenceSet(1), FetchAttribute.fullMacro),
            .fetch(
                SequenceSet([SequenceRange(.number(1), .last)]),
                [
                    .envelope, .flags, .internalDate, .rfc822Size, .rfc822, .rfc822Header, .rfc822Text,
                    .bodyStructure(extensions: true), .bodyStructure(extensions: false), .uid,
                    .bodySection(peek: false, section: .complete, partial: nil),
                    .bodySection(peek: true, section: .header, partial: .init(offset: 10, length: 20)),
                    .bodySection(
                        peek: true, section: SectionSpecifier(part: [1, 2], kind: .headerFieldsNot(["X-Spam"])),
                        partial: nil),
                    .binary(peek: true, part: [], partial: nil),
                    .binary(peek: false, part: [1, 3], partial: .init(offset: 0, length: 1)),
                    .binarySize(part: [2]), .preview(lazy: false), .preview(lazy: true), .modificationSequence,
                    .gmailMessageID, .gmailThreadID, .gmailLabels,
                ]),
            .uidFetch(
                SequenceSet(numbers: [1, 2, 3, 7, 100_000]), [.flags], modifiers: [.changedSince(99), .vanished]),
            .uidFetch(.lastSearchResult, [.uid]),
            .store(SequenceSet(2), StoreFlags(.replace, flags: [])),
            .store(SequenceSet(numbers: [1, 5]), unchangedSince: 0, StoreFlags(.add, silent: true, flags: [.deleted])),
            .uidStore(
                SequenceSet(5), unchangedSince: 12_345_678_901, StoreFlags(.remove, flags: ["$Pinned", .flagged])),
            .copy(SequenceSet(1), "Archive"), .uidCopy(SequenceSet(numbers: [4, 8]), "Sent Items"),
            .move(SequenceSet([SequenceRange(.number(3), .last)]), "Trash"), .uidMove(SequenceSet(9), "Ä"),
        ]
        return commands.enumerated().map { TaggedCommand(tag: "t\($0.offset)", command: $0.element) }
    }()

    /// The commands `bytes` parse into, answering every synchronizing literal.
    static func parsedCommands(_ bytes: [UInt8]) throws -> [TaggedCommand] {
        var parser = CommandParser()
        parser.append(bytes)
        var commands: [TaggedCommand] = []
        while let event = try parser.next() {
            switch event {
            case .command(let command): commands.append(command)
            case .continuationNeeded: continue
            case .authenticationResponse, .idleDone: Issue.record("unexpected \(event)")
            }
        }
        return commands
    }

    @Test(arguments: [
        EncodingOptions(literalMode: .synchronizing),
        EncodingOptions(literalMode: .literalPlus),
        EncodingOptions(literalMode: .literalMinus, utf8Quoted: true),
    ])
    func everyCommandRoundTrips(options: EncodingOptions) throws {
        for command in Self.commands {
            let bytes = CommandEncoder.encode(command, options: options).flatMap(\.bytes)
            let parsed = try Self.parsedCommands(bytes)
            #expect(parsed == [command], "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func allCommandsInOneStreamRoundTrip() throws {
        var buffer = EncodeBuffer(options: .init(literalMode: .literalPlus))
        for command in Self.commands { buffer.write(command) }
        #expect(try Self.parsedCommands(buffer.takeBytes()) == Self.commands)
    }

    @Test func synchronizingLiteralsAskForContinuationOncePerLiteral() throws {
        let command = TaggedCommand(
            tag: "a", command: .login(username: "jörg", password: ByteString(String(repeating: "é", count: 40))))
        let chunks = CommandEncoder.encode(command, options: .init())
        #expect(chunks.count == 3)
        var parser = CommandParser()
        var events: [CommandParserEvent] = []
        for chunk in chunks {
            parser.append(chunk.bytes)
            while let event = try parser.next() { events.append(event) }
        }
        #expect(
            events == [.continuationNeeded(literalSize: 5), .continuationNeeded(literalSize: 80), .command(command)])
    }

    /// One case per case of `Command`: `kind(of:)` switches over `Command` with no `default`, so
    /// a new command is a compile error here until it has a kind, and then a test failure until
    /// the table holds one.
    enum CommandKind: CaseIterable {
        case capability, noop, logout, startTLS, login, authenticate, enable, id, select, examine, create, delete,
            rename, subscribe, unsubscribe, list, lsub, status, namespace, close, unselect, expunge, uidExpunge, append,
            check, search, uidSearch, sort, uidSort, fetch, uidFetch, store, uidStore, copy, uidCopy, move, uidMove,
            idle
    }

    static func kind(of command: Command) -> CommandKind {
        switch command {
        case .capability: .capability
        case .noop: .noop
        case .logout: .logout
        case .startTLS: .startTLS
        case .login: .login
        case .authenticate: .authenticate
        case .enable: .enable
        case .id: .id
        case .select: .select
        case .examine: .examine
        case .create: .create
        case .delete: .delete
        case .rename: .rename
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .list: .list
        case .lsub: .lsub
        case .status: .status
        case .namespace: .namespace
        case .close: .close
        case .unselect: .unselect
        case .expunge: .expunge
        case .uidExpunge: .uidExpunge
        case .append: .append
        case .check: .check
        case .search: .search
        case .uidSearch: .uidSearch
        case .sort: .sort
        case .uidSort: .uidSort
        case .fetch: .fetch
        case .uidFetch: .uidFetch
        case .store: .store
        case .uidStore: .uidStore
        case .copy: .copy
        case .uidCopy: .uidCopy
        case .move: .move
        case .uidMove: .uidMove
        case .idle: .idle
        }
    }

    @Test func theTableCoversEveryCommandCase() {
        let covered = Set(Self.commands.map { Self.kind(of: $0.command) })
        let missing = CommandKind.allCases.filter { !covered.contains($0) }
        #expect(missing.isEmpty, "the table has no command of kind \(missing)")
    }
}
