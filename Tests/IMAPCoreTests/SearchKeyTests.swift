import IMAPCore
import Testing

@Suite struct SearchKeyTests {
    /// One key of every kind, with nesting, used by the round-trip tables.
    static let allKeys: [SearchKey] = {
        let day = CommandTesting.day(2024, 3, 5)
        return [
            .all, .answered, .bcc("bob@example.com"), .before(day), .body("quarterly report"), .cc("carol"),
            .deleted, .draft, .flagged, .from("grace"), .header(field: "Content-Type", value: "multipart/mixed"),
            .header(field: "X-Spam", value: ""), .keyword("$HasAttachment"), .larger(5_000_000_000), .new,
            .not(.seen), .old, .on(day), .or(.from("alice"), .to("alice")), .recent, .seen, .sentBefore(day),
            .sentOn(day), .sentSince(day), .since(day), .smaller(512_000), .subject("say \"hi\""),
            .text("C:\\temp"), .to("dave"), .uid(SequenceSet(numbers: [1, 2, 3, 10])), .unanswered, .undeleted,
            .undraft, .unflagged, .unkeyword("$Junk"), .unseen,
            .sequenceNumbers(SequenceSet([SequenceRange(.number(5), .last)])), .sequenceNumbers(.lastSearchResult),
            .and([.seen, .flagged]), .modificationSequence(SearchModificationSequence(value: 620_162_338)),
            .modificationSequence(
                SearchModificationSequence(entry: .init(flag: .draft, type: .all), value: 7)),
            .modificationSequence(
                SearchModificationSequence(entry: .init(flag: "$Pinned", type: .private), value: 0)),
            .modificationSequence(
                SearchModificationSequence(entry: .init(flag: .seen, type: .shared), value: 1)),
            .younger(seconds: 3600), .older(seconds: 86400), .gmailRaw("has:attachment in:inbox"),
            .filter("on-the-road"), .savedBefore(day), .savedOn(day), .savedSince(day), .savedDateSupported,
            // Nesting.
            .not(.or(.seen, .flagged)),
            .or(.or(.from("a"), .subject("a")), .or(.to("a"), .or(.cc("a"), .body("a")))),
            .not(.and([.from("bob"), .not(.uid(.lastSearchResult))])),
            .and([.or(.seen, .and([.not(.deleted)])), .not(.not(.answered))]),
        ]
    }()

    /// The name of the case, through an exhaustive switch: a new case does not compile until it is
    /// listed here (and so in `allKeys`).
    static func caseName(_ key: SearchKey) -> String {
        switch key {
        case .all: return "all"
        case .answered: return "answered"
        case .bcc: return "bcc"
        case .before: return "before"
        case .body: return "body"
        case .cc: return "cc"
        case .deleted: return "deleted"
        case .draft: return "draft"
        case .flagged: return "flagged"
        case .from: return "from"
        case .header: return "header"
        case .keyword: return "keyword"
        case .larger: return "larger"
        case .new: return "new"
        case .not: return "not"
        case .old: return "old"
        case .on: return "on"
        case .or: return "or"
        case .recent: return "recent"
        case .seen: return "seen"
        case .sentBefore: return "sentBefore"
        case .sentOn: return "sentOn"
        case .sentSince: return "sentSince"
        case .since: return "since"
        case .smaller: return "smaller"
        case .subject: return "subject"
        case .text: return "text"
        case .to: return "to"
        case .uid: return "uid"
        case .unanswered: return "unanswered"
        case .undeleted: return "undeleted"
        case .undraft: return "undraft"
        case .unflagged: return "unflagged"
        case .unkeyword: return "unkeyword"
        case .unseen: return "unseen"
        case .sequenceNumbers: return "sequenceNumbers"
        case .and: return "and"
        case .modificationSequence: return "modificationSequence"
        case .younger: return "younger"
        case .older: return "older"
        case .gmailRaw: return "gmailRaw"
        case .filter: return "filter"
        case .savedBefore: return "savedBefore"
        case .savedOn: return "savedOn"
        case .savedSince: return "savedSince"
        case .savedDateSupported: return "savedDateSupported"
        }
    }

    @Test func theTableHoldsEveryKind() {
        #expect(Set(Self.allKeys.map(Self.caseName)).count == 46)
    }

    static func encoded(_ key: SearchKey, options: EncodingOptions = .init()) -> String {
        var buffer = EncodeBuffer(options: options)
        buffer.write(key)
        return String(decoding: buffer.takeBytes(), as: UTF8.self)
    }

    static func parsed(_ text: String) throws -> SearchKey {
        var cursor = ByteCursor(text)
        let key = try cursor.parseSearchKey()
        #expect(cursor.isAtEnd, "left over: \(text.utf8.dropFirst(cursor.index).count) bytes")
        return key
    }

    @Test(arguments: [
        (SearchKey.or(.from("alice"), .from("bob")), "OR FROM \"alice\" FROM \"bob\""),
        (.not(.or(.seen, .from("bob"))), "NOT OR SEEN FROM \"bob\""),
        (.not(.and([.or(.seen, .from("bob"))])), "NOT (OR SEEN FROM \"bob\")"),
        (.header(field: "Content-Type", value: "multipart/mixed"), "HEADER Content-Type \"multipart/mixed\""),
        (.header(field: "X-Spam", value: ""), "HEADER X-Spam \"\""),
        (.subject("say \"hi\""), "SUBJECT \"say \\\"hi\\\"\""),
        (.subject("C:\\temp"), "SUBJECT \"C:\\\\temp\""),
        (.since(CommandTesting.day(2024, 3, 5)), "SINCE 5-Mar-2024"),
        (.sentBefore(CommandTesting.day(2024, 12, 31)), "SENTBEFORE 31-Dec-2024"),
        (.larger(10_485_760), "LARGER 10485760"),
        (.larger(5_368_709_120), "LARGER 5368709120"),
        (.smaller(512_000), "SMALLER 512000"),
        (.uid(SequenceSet(numbers: [1, 2, 3, 500, 502, 900, 901])), "UID 1:3,500,502,900:901"),
        (.uid(.lastSearchResult), "UID $"),
        (.sequenceNumbers(SequenceSet([SequenceRange(.number(5), .last)])), "5:*"),
        (.keyword("$HasAttachment"), "KEYWORD $HasAttachment"),
        (.unkeyword("$Pinned"), "UNKEYWORD $Pinned"),
        (.modificationSequence(SearchModificationSequence(value: 42)), "MODSEQ 42"),
        (
            .modificationSequence(
                SearchModificationSequence(entry: .init(flag: .draft, type: .all), value: 620_162_338)),
            "MODSEQ \"/flags/\\\\Draft\" all 620162338"
        ),
        (.younger(seconds: 604_800), "YOUNGER 604800"),
        (.older(seconds: 60), "OLDER 60"),
        (.gmailRaw("has:attachment"), "X-GM-RAW \"has:attachment\""),
        (.filter("on-the-road"), "FILTER on-the-road"),
        (.savedSince(CommandTesting.day(2024, 1, 1)), "SAVEDSINCE 1-Jan-2024"),
        (.and([]), "ALL"),
        (.and([.unseen, .and([.flagged, .deleted])]), "(UNSEEN (FLAGGED DELETED))"),
    ])
    func encodes(key: SearchKey, wire: String) {
        #expect(Self.encoded(key) == wire)
    }

    @Test func nonASCIIStringsAreLiteralsUnlessUTF8MayBeQuoted() {
        #expect(Self.encoded(.from("Müller")) == "FROM {7}\r\nMüller")
        #expect(Self.encoded(.from("Müller"), options: .init(utf8Quoted: true)) == "FROM \"Müller\"")
        #expect(Self.encoded(.subject("パリ"), options: .init(literalMode: .literalPlus)) == "SUBJECT {6+}\r\nパリ")
        let long = String(repeating: "a", count: 71)
        #expect(Self.encoded(.body(ByteString(long))) == "BODY {71}\r\n" + long)
    }

    @Test(arguments: [
        ("unseen", SearchKey.unseen),
        ("Subject meeting", .subject("meeting")),
        ("FROM {5}\r\nalice", .from("alice")),
        ("BEFORE \"1-Feb-2024\"", .before(CommandTesting.day(2024, 2, 1))),
        ("OR (SEEN) NOT FLAGGED", .or(.and([.seen]), .not(.flagged))),
        ("( SEEN  FLAGGED )", .and([.seen, .flagged])),
        (
            "MODSEQ \"/flags/\\\\Seen\" priv 5",
            .modificationSequence(.init(entry: .init(flag: .seen, type: .private), value: 5))
        ),
        ("x-gm-raw \"in:sent\"", .gmailRaw("in:sent")),
        (
            "1,3:5,*",
            .sequenceNumbers(SequenceSet([SequenceRange(1), SequenceRange(3...5), SequenceRange(.last, .last)]))
        ),
    ])
    func parses(text: String, expected: SearchKey) throws {
        #expect(try Self.parsed(text) == expected)
    }

    @Test(arguments: [
        ("FROBNICATE", 0, "unknown search key FROBNICATE"),
        ("SINCE 30-Feb-2024", 6, "30-Feb-2024 is not a real day"),
        ("LARGER x", 7, "expected a number"),
        ("()", 1, "a parenthesized search needs at least one key"),
        ("(SEEN", 5, "expected a search key"),
        ("OR SEEN", 7, "expected a space"),
        ("YOUNGER 0", 8, "expected a non-zero number"),
        ("MODSEQ \"/annotations/x\" all 5", 7, "expected a MODSEQ entry name \"/flags/<flag>\""),
        ("MODSEQ \"/flags/\\\\Seen\" mine 5", 23, "expected a MODSEQ entry type (priv, shared or all)"),
    ])
    func rejects(text: String, offset: Int, message: String) {
        var cursor = ByteCursor(text)
        do {
            let key = try cursor.parseSearchKey()
            Issue.record("parsed \(key)")
        } catch {
            #expect(error.offset == offset)
            #expect(error.message == message)
            #expect(cursor.index == 0)
        }
    }

    @Test func deepNestingHitsTheLimit() throws {
        let text = String(repeating: "NOT ", count: 200) + "SEEN"
        var cursor = ByteCursor(text, options: ParserOptions(maximumNestingDepth: 50))
        do {
            let key = try cursor.parseSearchKey()
            Issue.record("parsed \(key)")
        } catch {
            #expect(error.code == .nestingTooDeep)
        }
        var relaxed = ByteCursor(text, options: ParserOptions(maximumNestingDepth: 1000))
        var key = try relaxed.parseSearchKey()
        var depth = 0
        while case .not(let inner) = key {
            depth += 1
            key = inner
        }
        #expect(depth == 200)
        #expect(key == .seen)
    }

    @Test(arguments: allKeys)
    func roundTrips(key: SearchKey) throws {
        #expect(try Self.parsed(Self.encoded(key)) == key)
        #expect(try Self.parsed(Self.encoded(key, options: .init(literalMode: .literalPlus))) == key)
    }
}
