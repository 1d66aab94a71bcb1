import IMAPCore
import MailSearch
import TestSupport
import Testing

@Suite(.hangGuard) struct QueryParserTests {
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
