import Foundation
import IMAPCore
import Testing

/// A command and the chunks it must become; every chunk but the last waits for `+`.
struct CommandEncodeFixture: Sendable, CustomTestStringConvertible {
    let command: TaggedCommand
    let options: EncodingOptions
    let chunks: [String]

    init(_ tag: String, _ command: Command, _ chunks: String..., options: EncodingOptions = .init()) {
        self.command = TaggedCommand(tag: tag, command: command)
        self.options = options
        self.chunks = chunks
    }

    var testDescription: String { chunks.joined(separator: " | ") }
}

private let literalPlus = EncodingOptions(literalMode: .literalPlus)
private let literalMinus = EncodingOptions(literalMode: .literalMinus)
private let utf8 = EncodingOptions(literalMode: .synchronizing, utf8Quoted: true)
private let bigMessage = String(repeating: "x", count: 5000)

private let encodeFixtures: [CommandEncodeFixture] = [
    // Commands without arguments.
    .init("a1", .capability, "a1 CAPABILITY\r\n"),
    .init("a", .noop, "a NOOP\r\n"),
    .init("a", .logout, "a LOGOUT\r\n"),
    .init("a", .startTLS, "a STARTTLS\r\n"),
    .init("a", .namespace, "a NAMESPACE\r\n"),
    .init("a", .close, "a CLOSE\r\n"),
    .init("a", .unselect, "a UNSELECT\r\n"),
    .init("a", .expunge, "a EXPUNGE\r\n"),
    .init("a", .check, "a CHECK\r\n"),
    .init("a", .idle, "a IDLE\r\n"),
    // Authentication: atoms where possible, quoted when not, literal for 8-bit.
    .init("a2", .login(username: "alice", password: "secret"), "a2 LOGIN alice secret\r\n"),
    .init("a", .login(username: "alice", password: "p@ss word\""), "a LOGIN alice \"p@ss word\\\"\"\r\n"),
    .init("a", .login(username: "jörg", password: "x"), "a LOGIN {5}\r\n", "jörg x\r\n"),
    .init("a", .login(username: "jörg", password: "x"), "a LOGIN {5+}\r\njörg x\r\n", options: literalPlus),
    .init("a", .authenticate(mechanism: "PLAIN"), "a AUTHENTICATE PLAIN\r\n"),
    .init(
        "a", .authenticate(mechanism: "PLAIN", initialResponse: "AGFsaWNlAHNlY3JldA=="),
        "a AUTHENTICATE PLAIN AGFsaWNlAHNlY3JldA==\r\n"),
    .init("a", .authenticate(mechanism: "EXTERNAL", initialResponse: ByteString([])), "a AUTHENTICATE EXTERNAL =\r\n"),
    .init("a4", .enable(["CONDSTORE", "UTF8=ACCEPT"]), "a4 ENABLE CONDSTORE UTF8=ACCEPT\r\n"),
    .init("a3", .id([IDParameter(key: "name", value: "transcript")]), "a3 ID (\"name\" \"transcript\")\r\n"),
    .init(
        "a", .id([IDParameter(key: "name", value: "x"), IDParameter(key: "version", value: nil)]),
        "a ID (\"name\" \"x\" \"version\" NIL)\r\n"),
    .init("a", .id(nil), "a ID NIL\r\n"),
    // Mailboxes.
    .init("a8", .select(.inbox, parameters: [.condStore]), "a8 SELECT INBOX (CONDSTORE)\r\n"),
    .init(
        "a", .select(.inbox, parameters: [.other(name: "QRESYNC", value: "(67890007 20050715194045000 41:211)")]),
        "a SELECT INBOX (QRESYNC (67890007 20050715194045000 41:211))\r\n"),
    .init("a", .examine("My Folder"), "a EXAMINE \"My Folder\"\r\n"),
    .init("a", .create("Archive/2024"), "a CREATE Archive/2024\r\n"),
    .init("a", .delete("Old"), "a DELETE Old\r\n"),
    .init("a", .rename(from: "Old", to: "New"), "a RENAME Old New\r\n"),
    .init("a", .subscribe("Lists"), "a SUBSCRIBE Lists\r\n"),
    .init("a", .unsubscribe("Lists"), "a UNSUBSCRIBE Lists\r\n"),
    .init("a6", .list(reference: "", patterns: ["*"]), "a6 LIST \"\" *\r\n"),
    .init(
        "a",
        .list(
            selection: [.subscribed, .recursiveMatch], reference: "", patterns: ["INBOX", "Sent Items"],
            returnOptions: [.specialUse, .children, .status([.messages, .unseen])]),
        "a LIST (SUBSCRIBED RECURSIVEMATCH) \"\" (INBOX \"Sent Items\") RETURN (SPECIAL-USE CHILDREN STATUS (MESSAGES UNSEEN))\r\n"
    ),
    .init("a", .lsub(reference: "", pattern: "%"), "a LSUB \"\" %\r\n"),
    .init(
        "a7", .status(.inbox, [.messages, .uidNext, .uidValidity, .unseen, .highestModSeq]),
        "a7 STATUS INBOX (MESSAGES UIDNEXT UIDVALIDITY UNSEEN HIGHESTMODSEQ)\r\n"),
    .init(
        "a", .status("Sent", [.recent, .deleted, .size, .appendLimit]),
        "a STATUS Sent (RECENT DELETED SIZE APPENDLIMIT)\r\n"),
    // APPEND: always a literal; LITERAL- only up to 4096 bytes.
    .init(
        "a",
        .append(
            "Sent",
            AppendMessage(
                flags: [.seen],
                internalDate: IMAPDateTime(
                    date: CommandTesting.day(2024, 3, 5), hour: 10, minute: 0, second: 0, zoneMinutes: 60),
                data: "hello")),
        "a APPEND Sent (\\Seen) \"05-Mar-2024 10:00:00 +0100\" {5}\r\n", "hello\r\n"),
    .init("a", .append("Sent", AppendMessage(data: "hello")), "a APPEND Sent {5+}\r\nhello\r\n", options: literalPlus),
    .init(
        "a", .append("Sent", AppendMessage(data: "hello")), "a APPEND Sent {5+}\r\nhello\r\n", options: literalMinus),
    .init(
        "a", .append("Sent", AppendMessage(data: ByteString(bigMessage))), "a APPEND Sent {5000}\r\n",
        bigMessage + "\r\n", options: literalMinus),
    .init(
        "a", .append("Drafts", AppendMessage(data: "a\u{0}b", binary: true)), "a APPEND Drafts ~{3}\r\n", "a\u{0}b\r\n"),
    // SEARCH: strings quoted (escaped) or literal; CHARSET is what the caller put in.
    .init(
        "a9", .uidSearch(keys: [.from("grace"), .since(CommandTesting.day(2025, 1, 1))]),
        "a9 UID SEARCH FROM \"grace\" SINCE 1-Jan-2025\r\n"),
    .init("a", .search(charset: "UTF-8", keys: [.from("Müller")]), "a SEARCH CHARSET UTF-8 FROM {7}\r\n", "Müller\r\n"),
    .init(
        "a", .uidSearch(charset: "UTF-8", keys: [.subject("パリ")]), "a UID SEARCH CHARSET UTF-8 SUBJECT {6+}\r\nパリ\r\n",
        options: literalPlus),
    .init(
        "a", .uidSearch(charset: "UTF-8", keys: [.subject("パリ")]), "a UID SEARCH CHARSET UTF-8 SUBJECT {6+}\r\nパリ\r\n",
        options: literalMinus),
    .init("a", .uidSearch(keys: [.from("Müller")]), "a UID SEARCH FROM \"Müller\"\r\n", options: utf8),
    .init("a", .uidSearch(keys: [.subject("say \"hi\"")]), "a UID SEARCH SUBJECT \"say \\\"hi\\\"\"\r\n"),
    .init("a", .uidSearch(keys: [.subject("C:\\temp")]), "a UID SEARCH SUBJECT \"C:\\\\temp\"\r\n"),
    .init(
        "a", .uidSearch(keys: [.body("line\r\nbreak"), .unseen]), "a UID SEARCH BODY {11}\r\n",
        "line\r\nbreak UNSEEN\r\n"),
    .init(
        "b1", .uidSearch(returnOptions: [.min, .max, .count, .all], keys: [.subject("meeting")]),
        "b1 UID SEARCH RETURN (MIN MAX COUNT ALL) SUBJECT \"meeting\"\r\n"),
    .init("a", .search(returnOptions: [.save], keys: [.unseen]), "a SEARCH RETURN (SAVE) UNSEEN\r\n"),
    .init("a", .search(returnOptions: [], keys: [.all]), "a SEARCH RETURN () ALL\r\n"),
    .init(
        "a", .uidSearch(charset: "UTF-8", returnOptions: [.count], keys: [.text("x")]),
        "a UID SEARCH RETURN (COUNT) CHARSET UTF-8 TEXT \"x\"\r\n"),
    // SORT.
    .init(
        "b3",
        .uidSort(criteria: [SortCriterion(.date, reversed: true)], charset: "UTF-8", keys: [.subject("invoice")]),
        "b3 UID SORT (REVERSE DATE) UTF-8 SUBJECT \"invoice\"\r\n"),
    .init(
        "a",
        .sort(
            criteria: [
                SortCriterion(.arrival), SortCriterion(.cc), SortCriterion(.from), SortCriterion(.size),
                SortCriterion(.subject, reversed: true), SortCriterion(.to), SortCriterion(.displayFrom),
                SortCriterion(.displayTo),
            ], charset: "US-ASCII", keys: [.all]),
        "a SORT (ARRIVAL CC FROM SIZE REVERSE SUBJECT TO DISPLAYFROM DISPLAYTO) US-ASCII ALL\r\n"),
    .init(
        "a",
        .uidSort(
            criteria: [SortCriterion(.arrival, reversed: true)], charset: "UTF-8", keys: [.undeleted],
            returnOptions: [.count, .all]),
        "a UID SORT RETURN (COUNT ALL) (REVERSE ARRIVAL) UTF-8 UNDELETED\r\n"),
    // FETCH: sets compressed, modifiers after the items.
    .init(
        "b6",
        .uidFetch(
            SequenceSet([SequenceRange(1...40)]),
            [
                .uid, .flags, .modificationSequence, .internalDate, .rfc822Size, .envelope,
                .bodyStructure(extensions: true),
                .preview(lazy: false),
            ]),
        "b6 UID FETCH 1:40 (UID FLAGS MODSEQ INTERNALDATE RFC822.SIZE ENVELOPE BODYSTRUCTURE PREVIEW)\r\n"),
    .init(
        "a",
        .uidFetch(
            SequenceSet(numbers: [9, 1, 2, 3, 5, 7, 8, 3]),
            [
                .bodySection(
                    peek: true, section: SectionSpecifier(kind: .headerFields(["FROM", "SUBJECT"])), partial: nil)
            ]),
        "a UID FETCH 1:3,5,7:9 (BODY.PEEK[HEADER.FIELDS (FROM SUBJECT)])\r\n"),
    .init(
        "a",
        .fetch(
            SequenceSet([SequenceRange(.number(1), .last)]),
            [
                .rfc822, .rfc822Header, .rfc822Text, .bodyStructure(extensions: false),
                .bodySection(
                    peek: false, section: SectionSpecifier(part: [1, 2], kind: .text),
                    partial: .init(offset: 0, length: 300)),
                .binary(peek: false, part: [1], partial: nil), .binarySize(part: [2]), .preview(lazy: true),
                .gmailMessageID, .gmailThreadID, .gmailLabels,
            ]),
        "a FETCH 1:* (RFC822 RFC822.HEADER RFC822.TEXT BODY BODY[1.2.TEXT]<0.300> BINARY[1] BINARY.SIZE[2] "
            + "PREVIEW (LAZY) X-GM-MSGID X-GM-THRID X-GM-LABELS)\r\n"),
    .init(
        "c9", .uidFetch(SequenceSet([SequenceRange(1...10)]), [.flags], modifiers: [.changedSince(1)]),
        "c9 UID FETCH 1:10 (FLAGS) (CHANGEDSINCE 1)\r\n"),
    .init(
        "a",
        .uidFetch(
            SequenceSet([SequenceRange(300...500)]), [.uid, .flags], modifiers: [.changedSince(12345), .vanished]),
        "a UID FETCH 300:500 (UID FLAGS) (CHANGEDSINCE 12345 VANISHED)\r\n"),
    .init("a", .fetch(.lastSearchResult, [.flags]), "a FETCH $ (FLAGS)\r\n"),
    // STORE.
    .init(
        "c1", .uidStore(SequenceSet(numbers: [1, 2, 3]), StoreFlags(.add, flags: [.seen, .flagged])),
        "c1 UID STORE 1:3 +FLAGS (\\Seen \\Flagged)\r\n"),
    .init(
        "c2", .uidStore(SequenceSet(4), StoreFlags(.remove, silent: true, flags: [.seen])),
        "c2 UID STORE 4 -FLAGS.SILENT (\\Seen)\r\n"),
    .init(
        "c3", .uidStore(SequenceSet(5), unchangedSince: 1, StoreFlags(.add, flags: ["$Pinned"])),
        "c3 UID STORE 5 (UNCHANGEDSINCE 1) +FLAGS ($Pinned)\r\n"),
    .init(
        "a", .store(SequenceSet(numbers: [2, 4]), StoreFlags(.replace, flags: [])), "a STORE 2,4 FLAGS ()\r\n"),
    // COPY, MOVE, UID EXPUNGE.
    .init("a", .copy(SequenceSet(numbers: [1, 2]), "Archive"), "a COPY 1:2 Archive\r\n"),
    .init("a", .uidCopy(SequenceSet(numbers: [10, 12]), "Sent Items"), "a UID COPY 10,12 \"Sent Items\"\r\n"),
    .init("a", .move(SequenceSet(3), "Trash"), "a MOVE 3 Trash\r\n"),
    .init(
        "a", .uidMove(SequenceSet(numbers: Array(100...200) + [250]), "Trash"), "a UID MOVE 100:200,250 Trash\r\n"),
    .init("d4", .uidExpunge(SequenceSet(999_999)), "d4 UID EXPUNGE 999999\r\n"),
]

@Suite struct CommandEncodeTests {
    @Test(arguments: encodeFixtures)
    func encodes(fixture: CommandEncodeFixture) {
        let chunks = CommandEncoder.encode(fixture.command, options: fixture.options)
        #expect(chunks.map { String(decoding: $0.bytes, as: UTF8.self) } == fixture.chunks)
        #expect(chunks.map(\.waitsForContinuation) == fixture.chunks.indices.map { $0 < fixture.chunks.count - 1 })
    }

    @Test func everyCommandKindHasAnEncodeFixture() {
        let covered = Set(encodeFixtures.map(\.command.command.name))
        let all = Set(CommandRoundTripTests.commands.map(\.command.name))
        #expect(all.subtracting(covered).isEmpty, "no encode fixture for \(all.subtracting(covered).sorted())")
        #expect(all == Self.commandNamesInTheSource(), "a command kind without a round-trip fixture")
    }

    /// Every wire name in `Command.name`'s exhaustive switch, read from its source: the list of
    /// command kinds grows with the enum (the switch will not compile without the new case),
    /// not with a number written here.
    static func commandNamesInTheSource() -> Set<String> {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/IMAPCore/Grammar/Command/Command.swift")
        guard let text = try? String(contentsOf: source, encoding: .utf8),
            let start = text.range(of: "public var name: String {")
        else {
            Issue.record("cannot read \(source.path)")
            return []
        }
        let body = text[start.upperBound...].prefix { $0 != "}" }
        var names: Set<String> = []
        for line in body.split(separator: "\n") {
            guard line.contains("case ."), let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""),
                open < close
            else { continue }
            names.insert(String(line[line.index(after: open)..<close]))
        }
        return names
    }

    @Test func idleDoneAndSASLLines() {
        #expect(CommandEncoder.encodeIdleDone() == Array("DONE\r\n".utf8))
        #expect(CommandEncoder.encodeAuthenticationResponse("dGVzdA==") == Array("dGVzdA==\r\n".utf8))
        #expect(CommandEncoder.encodeAuthenticationResponse(ByteString([])) == Array("\r\n".utf8))
        #expect(CommandEncoder.encodeAuthenticationCancel() == Array("*\r\n".utf8))
    }

    @Test func commandNamesAreTheWireNames() {
        #expect(Command.uidFetch(.all, [.flags]).name == "UID FETCH")
        #expect(Command.startTLS.name == "STARTTLS")
        #expect(Command.uidExpunge(SequenceSet(1)).name == "UID EXPUNGE")
    }
}
