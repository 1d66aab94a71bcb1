import Foundation
import IMAPCore
import MailSearch
import Testing

@Suite struct QueryParserTests {
    struct ParseRow: Sendable, CustomTestStringConvertible {
        var text: String
        var query: Query
        var testDescription: String { text.debugDescription }
    }

    static let rows: [ParseRow] = [
        ParseRow(text: "", query: .all),
        ParseRow(text: "   ", query: .all),
        ParseRow(text: "invoice", query: .term(.text("invoice"))),
        ParseRow(
            text: "from:alice OR from:bob is:unread",
            query: .and([.or(.term(.from("alice")), .term(.from("bob"))), .term(.flag(.unread))])),
        ParseRow(text: "-(is:read OR from:bob)", query: .not(.or(.term(.flag(.read)), .term(.from("bob"))))),
        ParseRow(text: "NOT is:read", query: .not(.term(.flag(.read)))),
        ParseRow(text: "a AND (b c)", query: .and([.term(.text("a")), .term(.text("b")), .term(.text("c"))])),
        ParseRow(text: "e-mail", query: .term(.text("e-mail"))),
        ParseRow(text: #""say \"hi\" \\ \x""#, query: .term(.text(#"say "hi" \ \x"#))),
        ParseRow(text: "meeting 10:30", query: .and([.term(.text("meeting")), .term(.text("10:30"))])),
        ParseRow(
            text: "date:2024-01..2024-06",
            query: .term(.receivedBetween(.month(year: 2024, month: 1), .month(year: 2024, month: 6)))),
        ParseRow(text: "after:2024/3/5", query: .term(.receivedAfter(.day(IMAPDate(year: 2024, month: 3, day: 5)!)))),
        ParseRow(text: "before:today", query: .term(.receivedBefore(.today))),
        ParseRow(text: "on:2023", query: .term(.receivedOn(.year(2023)))),
        ParseRow(text: "newer_than:3M", query: .term(.newerThan(QueryAge(3, .months)))),
        ParseRow(text: "larger:2k", query: .term(.larger(2048))),
        ParseRow(text: "uid:5:*", query: .term(.uid(SequenceSet([SequenceRange(.number(5), .last)])))),
        ParseRow(text: "in:inbox", query: .term(.mailbox(.mailbox("INBOX")))),
        ParseRow(text: "in:ALL", query: .term(.mailbox(.allMailboxes))),
        ParseRow(text: "header:List-Id=swift", query: .term(.header(name: "List-Id", value: "swift"))),
        ParseRow(text: "raw:\"a b\"", query: .term(.raw("a b"))),
        ParseRow(text: "is:starred", query: .term(.flag(.flagged))),
        ParseRow(text: "has:attachment", query: .term(.hasAttachment)),
        // NFC: a decomposed ü becomes the precomposed one, in words and in field values.
        ParseRow(text: "Mu\u{308}ller", query: .term(.text("M\u{FC}ller"))),
        ParseRow(text: "subject:\"Cafe\u{301} au lait\"", query: .term(.subject("Caf\u{E9} au lait"))),
    ]

    @Test(arguments: rows)
    func parses(_ row: ParseRow) throws {
        #expect(try QueryParser.parse(row.text).query == row.query)
    }

    @Test func valuesAreNFC() throws {
        let parsed = try QueryParser.parse("from:Mu\u{308}ller")
        guard case .term(.from(let value)) = parsed.query else {
            Issue.record("expected from:, got \(parsed.query)")
            return
        }
        #expect(Array(value.unicodeScalars) == Array("M\u{FC}ller".unicodeScalars))
    }

    @Test func lowercaseOrBetweenTermsGivesAHint() throws {
        let parsed = try QueryParser.parse("from:alice or from:bob")
        #expect(parsed.hints == [.lowercaseOr(column: 12)])
        #expect(parsed.hints.first?.message == "did you mean OR? (column 12)")
        #expect(try QueryParser.parse("Or b").hints.isEmpty)
        #expect(try QueryParser.parse("a or").hints.isEmpty)
        #expect(try QueryParser.parse("a \"or\" b").hints.isEmpty)
        #expect(try QueryParser.parse("a OR b").hints.isEmpty)
        #expect(try QueryParser.parse("(a) oR (b)").hints == [.lowercaseOr(column: 5)])
    }

    @Test func errorsCarryCodeAndColumn() {
        do {
            let parsed = try QueryParser.parse(#"from:"alice"#)
            Issue.record("expected an error, got \(parsed)")
        } catch {
            #expect(error.code == .unterminatedQuote)
            #expect(error.column == 6)
        }
        do {
            let parsed = try QueryParser.parse("a\nb")
            Issue.record("expected an error, got \(parsed)")
        } catch {
            #expect(error.code == .forbiddenCharacter)
            #expect(error.column == 2)
        }
    }
}

@Suite struct CompileTests {
    @Test func scopeAndDeletedAndKeys() throws {
        let context = Server.rev1.context
        let compiled = try QueryCompiler.compile("in:Archive is:deleted from:bob", context: context)
        #expect(compiled.scope == .mailbox("Archive"))
        #expect(compiled.keys == [.deleted, .from("bob")])
        #expect(!compiled.excludesDeleted)
        #expect(compiled.programKeys == [.deleted, .from("bob")])
        let all = try QueryCompiler.compile("in:all", context: context)
        #expect(all.scope == .allMailboxes)
        #expect(all.programKeys == [.all, .undeleted])
        #expect(try QueryCompiler.compile("x", context: context).scope == .current)
    }

    @Test func commandChoice() throws {
        let compiled = try QueryCompiler.compile("from:bob", context: Server.rev1.context)
        #expect(
            compiled.command(for: Server.sort.context)
                == .uidSort(
                    criteria: [SortCriterion(.arrival, reversed: true)], charset: "UTF-8",
                    keys: [.from("bob"), .undeleted]))
        #expect(
            compiled.command(for: Server.esearch.context)
                == .uidSearch(charset: nil, returnOptions: [.count, .all], keys: [.from("bob"), .undeleted]))
        #expect(compiled.command(for: Server.rev1.context) == .uidSearch(keys: [.from("bob"), .undeleted]))
    }

    @Test func synchronizingLiteralWaits() throws {
        let context = Server.rev1.context
        let chunks = try QueryCompiler.compile("from:Müller", context: context).encode(tag: "a1", for: context)
        #expect(chunks.map(\.waitsForContinuation) == [true, false])
        #expect(chunks.first?.bytes == Array("a1 UID SEARCH CHARSET UTF-8 FROM {7}\r\n".utf8))
        #expect(chunks.last?.bytes == Array("Müller UNDELETED\r\n".utf8))
    }

    @Test func pinWarningOnlyWhenPinIsUsed() throws {
        let refused = Server.pinKeywordRefused.context
        let pinned = try QueryCompiler.compile("is:pinned", context: refused)
        #expect(pinned.keys == [.flagged])
        #expect(pinned.warnings == [FlagPolicyWarning(keyword: "$Pinned")])
        #expect(try QueryCompiler.compile("is:read", context: refused).warnings.isEmpty)
        #expect(try QueryCompiler.compile("is:pinned", context: Server.pinKeyword.context).warnings.isEmpty)
    }

    @Test func todayFollowsTheTimeZone() {
        // 2024-03-15 23:30 UTC is already the 16th in Tokyo and still the 15th in New York.
        let moment = Date(timeIntervalSince1970: 1_710_545_400)
        #expect(
            SearchContext.day(of: moment, in: TimeZone(identifier: "UTC")!) == IMAPDate(year: 2024, month: 3, day: 15))
        #expect(
            SearchContext.day(of: moment, in: TimeZone(identifier: "Asia/Tokyo")!)
                == IMAPDate(year: 2024, month: 3, day: 16))
        #expect(
            SearchContext.day(of: Date(timeIntervalSince1970: -1), in: TimeZone(identifier: "UTC")!)
                == IMAPDate(year: 1969, month: 12, day: 31))
    }
}

@Suite struct FlagPolicyTests {
    @Test func defaultPinsWithFlagged() {
        let resolution = FlagPolicy().pinFlag(flags: [.seen], permanentFlags: [.seen])
        #expect(resolution == PinFlagResolution(flag: .flagged, warning: nil))
        #expect(FlagPolicy().readFlag == .seen)
    }

    @Test func keywordWhenTheMailboxCanStoreIt() {
        let policy = FlagPolicy(pinKeyword: "$Pinned")
        #expect(policy.pinFlag(flags: [], permanentFlags: [.seen, .wildcard]).flag == "$Pinned")
        #expect(policy.pinFlag(flags: [], permanentFlags: [.seen, "$pinned"]).flag == "$Pinned")
        // No PERMANENTFLAGS: the FLAGS decide.
        #expect(policy.pinFlag(flags: ["$Pinned"], permanentFlags: nil).flag == "$Pinned")
    }

    @Test func keywordFallsBackWithAWarning() {
        let policy = FlagPolicy(pinKeyword: "$Pinned")
        let resolution = policy.pinFlag(flags: ["$Pinned"], permanentFlags: [.seen, .flagged])
        #expect(resolution.flag == .flagged)
        #expect(resolution.warning == FlagPolicyWarning(keyword: "$Pinned"))
        #expect(resolution.warning?.message.contains("$Pinned") == true)
    }
}
