import IMAPClient
import IMAPCore
import MailSearch
import TestSupport
import Testing

/// One row: a query on a server kind and the exact lines `explain` prints, or the error message.
struct ExplainRow: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable {
        case lines([String])
        case error(String)
    }

    var label: String
    var query: String
    var server: Server
    var expected: Expected

    init(_ label: String, _ query: String, on server: Server = .rev1, _ lines: String...) {
        self.label = label
        self.query = query
        self.server = server
        self.expected = .lines(lines)
    }

    init(_ label: String, _ query: String, on server: Server = .rev1, lines: [String]) {
        self.label = label
        self.query = query
        self.server = server
        self.expected = .lines(lines)
    }

    init(_ label: String, _ query: String, on server: Server = .rev1, error: String) {
        self.label = label
        self.query = query
        self.server = server
        self.expected = .error(error)
    }

    var testDescription: String { "\(label): \(query.debugDescription) on \(server.rawValue)" }
}

func words(_ word: String) -> String {
    "OR FROM \(word) OR SUBJECT \(word) OR TO \(word) OR CC \(word) BODY \(word)"
}

@Suite(.hangGuard) struct ExplainTests {
    /// The 22 examples of docs/query-language.md, word for word (shared with the CLI's
    /// `mailsearch explain` tests).
    static let specExamples: [ExplainRow] = QueryLanguageExamples.rows.map { example in
        let server = Server(rawValue: example.server) ?? .rev1
        if let error = example.error { return ExplainRow(example.label, example.query, on: server, error: error) }
        return ExplainRow(example.label, example.query, on: server, lines: example.lines ?? [])
    }

    /// Every operator and server-dependent choice beyond the spec's examples.
    static let operators: [ExplainRow] = [
        ExplainRow("phrase", #""quarterly report""#, "UID SEARCH \(words(#""quarterly report""#)) UNDELETED"),
        ExplainRow("to", "to:bob", #"UID SEARCH TO "bob" UNDELETED"#),
        ExplainRow("cc bcc", "cc:carol bcc:dave", #"UID SEARCH CC "carol" BCC "dave" UNDELETED"#),
        ExplainRow("body", #"body:"see attached""#, #"UID SEARCH BODY "see attached" UNDELETED"#),
        ExplainRow("text", "text:swift", #"UID SEARCH TEXT "swift" UNDELETED"#),
        ExplainRow("header", "header:List-Id=swift.org", #"UID SEARCH HEADER List-Id "swift.org" UNDELETED"#),
        ExplainRow("header quoted", #"header:X-Note="a b""#, #"UID SEARCH HEADER X-Note "a b" UNDELETED"#),
        ExplainRow("read", "is:read", "UID SEARCH SEEN UNDELETED"),
        ExplainRow("not read folds", "-is:read", "UID SEARCH UNSEEN UNDELETED"),
        ExplainRow("NOT unread folds", "NOT is:unread", "UID SEARCH SEEN UNDELETED"),
        ExplainRow("double negation", "- -is:flagged", error: #""-" needs something after it (column 1)"#),
        ExplainRow("double negation adjacent", "--is:flagged", "UID SEARCH FLAGGED UNDELETED"),
        ExplainRow("pinned default", "is:pinned", "UID SEARCH FLAGGED UNDELETED"),
        ExplainRow("unpinned default", "is:unpinned", "UID SEARCH UNFLAGGED UNDELETED"),
        ExplainRow("pinned keyword", "is:pinned", on: .pinKeyword, "UID SEARCH KEYWORD $Pinned UNDELETED"),
        ExplainRow("unpinned keyword", "is:unpinned", on: .pinKeyword, "UID SEARCH UNKEYWORD $Pinned UNDELETED"),
        ExplainRow("not pinned keyword", "-is:pinned", on: .pinKeyword, "UID SEARCH UNKEYWORD $Pinned UNDELETED"),
        ExplainRow("pin keyword refused", "is:pinned", on: .pinKeywordRefused, "UID SEARCH FLAGGED UNDELETED"),
        ExplainRow("starred", "is:starred", "UID SEARCH FLAGGED UNDELETED"),
        ExplainRow("unflagged", "is:unflagged", "UID SEARCH UNFLAGGED UNDELETED"),
        ExplainRow("answered draft", "is:answered -is:draft", "UID SEARCH ANSWERED UNDRAFT UNDELETED"),
        ExplainRow("not answered", "-is:answered", "UID SEARCH UNANSWERED UNDELETED"),
        ExplainRow("deleted: no UNDELETED", "is:deleted", "UID SEARCH DELETED"),
        ExplainRow("deleted inside OR", "is:deleted OR is:draft", "UID SEARCH OR DELETED DRAFT"),
        ExplainRow("not deleted", "-is:deleted", "UID SEARCH UNDELETED"),
        ExplainRow(
            "attachment by headers", "has:attachment",
            #"UID SEARCH OR HEADER Content-Type "multipart/mixed" HEADER Content-Disposition "attachment" UNDELETED"#),
        ExplainRow(
            "attachment on Gmail", "has:attachment", on: .gmail, #"UID SEARCH X-GM-RAW "has:attachment" UNDELETED"#),
        ExplainRow(
            "attachment keyword wins", "has:attachment", on: .hasAttachmentKeyword,
            "UID SEARCH KEYWORD $HasAttachment UNDELETED"),
        ExplainRow(
            "no attachment keyword", "-has:attachment", on: .hasAttachmentKeyword,
            "UID SEARCH UNKEYWORD $HasAttachment UNDELETED"),
        ExplainRow("on day", "on:2024-03-01", "UID SEARCH ON 1-Mar-2024 UNDELETED"),
        ExplainRow("on month", "on:2024-02", "UID SEARCH SINCE 1-Feb-2024 BEFORE 1-Mar-2024 UNDELETED"),
        ExplainRow("after year", "after:2023", "UID SEARCH SINCE 1-Jan-2023 UNDELETED"),
        ExplainRow("on today", "on:today", "UID SEARCH ON 15-Mar-2024 UNDELETED"),
        ExplainRow("after yesterday", "after:yesterday", "UID SEARCH SINCE 14-Mar-2024 UNDELETED"),
        ExplainRow("date open end", "date:2024-03-01..", "UID SEARCH SINCE 1-Mar-2024 UNDELETED"),
        ExplainRow("date open start", "date:..2024", "UID SEARCH BEFORE 1-Jan-2025 UNDELETED"),
        ExplainRow("date single day", "date:2024-02-29", "UID SEARCH SINCE 29-Feb-2024 BEFORE 1-Mar-2024 UNDELETED"),
        ExplainRow(
            "sent", "sent-after:2024-01-01 sent-before:2024-02-01",
            "UID SEARCH SENTSINCE 1-Jan-2024 SENTBEFORE 1-Feb-2024 UNDELETED"),
        ExplainRow("on the last year", "on:9999", "UID SEARCH SINCE 1-Jan-9999 UNDELETED"),
        ExplainRow("through the last day", "date:..9999-12-31", "UID SEARCH ALL UNDELETED"),
        ExplainRow("age clamps to year 1000", "newer_than:999999d", "UID SEARCH SINCE 1-Jan-1000 UNDELETED"),
        ExplainRow("months clamp to year 1000", "older_than:99999m", "UID SEARCH BEFORE 1-Jan-1000 UNDELETED"),
        ExplainRow("older weeks", "older_than:2w", "UID SEARCH BEFORE 1-Mar-2024 UNDELETED"),
        ExplainRow("newer months", "newer_than:1m", "UID SEARCH SINCE 15-Feb-2024 UNDELETED"),
        ExplainRow("newer year", "newer_than:1y", "UID SEARCH SINCE 15-Mar-2023 UNDELETED"),
        ExplainRow("newer WITHIN", "newer_than:7d", on: .within, "UID SEARCH YOUNGER 604800 UNDELETED"),
        ExplainRow("older WITHIN", "older_than:1d", on: .within, "UID SEARCH OLDER 86400 UNDELETED"),
        ExplainRow("larger G on rev2", "larger:5G", on: .rev2, "UID SEARCH LARGER 5368709120 UNDELETED"),
        ExplainRow("larger limit", "larger:4294967295", "UID SEARCH LARGER 4294967295 UNDELETED"),
        ExplainRow("smaller bytes", "smaller:100", "UID SEARCH SMALLER 100 UNDELETED"),
        ExplainRow("uid", "uid:1:100,200", "UID SEARCH UID 1:100,200 UNDELETED"),
        ExplainRow("uid compressed", "uid:3,1,2,10:12,11,500:*", "UID SEARCH UID 1:3,10:12,500:* UNDELETED"),
        ExplainRow("raw on Gmail", #"raw:"has:drive""#, on: .gmail, #"UID SEARCH X-GM-RAW "has:drive" UNDELETED"#),
        ExplainRow("in", "in:Archive from:bob", #"UID SEARCH FROM "bob" UNDELETED"#),
        ExplainRow("in alone", "in:all", "UID SEARCH ALL UNDELETED"),
        ExplainRow("AND", "from:a AND from:b", #"UID SEARCH FROM "a" FROM "b" UNDELETED"#),
        ExplainRow(
            "OR binds tighter than AND", "from:a OR from:b from:c OR from:d",
            #"UID SEARCH OR FROM "a" FROM "b" OR FROM "c" FROM "d" UNDELETED"#),
        ExplainRow("OR chain", "is:read OR is:draft OR is:answered", "UID SEARCH OR OR SEEN DRAFT ANSWERED UNDELETED"),
        ExplainRow(
            "OR of groups", "(from:a is:read) OR to:b", #"UID SEARCH OR (FROM "a" SEEN) TO "b" UNDELETED"#),
        ExplainRow("NOT of a word", "-from:bob", #"UID SEARCH NOT FROM "bob" UNDELETED"#),
        ExplainRow("group at top", "(from:a)", #"UID SEARCH FROM "a" UNDELETED"#),
        ExplainRow("e-mail is a word", "e-mail", "UID SEARCH \(words(#""e-mail""#)) UNDELETED"),
        ExplainRow(
            "lowercase or is a word", "a or b",
            "UID SEARCH \(words(#""a""#)) \(words(#""or""#)) \(words(#""b""#)) UNDELETED"),
        ExplainRow("unknown field is text", "foo:bar", "UID SEARCH \(words(#""foo:bar""#)) UNDELETED"),
        ExplainRow("field names ignore case", "FROM:bob", #"UID SEARCH FROM "bob" UNDELETED"#),
        ExplainRow("spaces around", "   is:read   ", "UID SEARCH SEEN UNDELETED"),
        ExplainRow(
            "SORT, and US-ASCII when UTF-8 is refused", "from:bob", on: .sort,
            #"UID SORT (REVERSE ARRIVAL) UTF-8 FROM "bob" UNDELETED"#, SearchPlan.charsetRefusedHeading,
            #"UID SORT (REVERSE ARRIVAL) US-ASCII FROM "bob" UNDELETED"#),
        ExplainRow(
            "SORT non-ASCII", "from:Müller", on: .sort, "UID SORT (REVERSE ARRIVAL) UTF-8 FROM {7}", "Müller UNDELETED"),
        ExplainRow("ESEARCH", "from:bob", on: .esearch, #"UID SEARCH RETURN (COUNT ALL) FROM "bob" UNDELETED"#),
        ExplainRow(
            "ESEARCH non-ASCII", "from:Müller", on: .esearch, "UID SEARCH RETURN (COUNT ALL) CHARSET UTF-8 FROM {7}",
            "Müller UNDELETED"),
        ExplainRow("UTF8=ACCEPT", "from:Müller", on: .utf8Accept, #"UID SEARCH FROM "Müller" UNDELETED"#),
        ExplainRow(
            "NFC", "from:Mu\u{308}ller", on: .literalPlus, "UID SEARCH CHARSET UTF-8 FROM {7+}", "Müller UNDELETED"),
        ExplainRow(
            "LITERAL- small", "subject:パリ", on: .literalMinus, "UID SEARCH CHARSET UTF-8 SUBJECT {6+}", "パリ UNDELETED"),
        ExplainRow(
            "LITERAL- over 4096", "subject:" + String(repeating: "é", count: 2049), on: .literalMinus,
            "UID SEARCH CHARSET UTF-8 SUBJECT {4098}", String(repeating: "é", count: 2049) + " UNDELETED"),
        ExplainRow(
            "70 bytes quoted", "subject:" + String(repeating: "x", count: 70),
            "UID SEARCH SUBJECT \"\(String(repeating: "x", count: 70))\" UNDELETED"),
        ExplainRow(
            "71 bytes literal", "subject:" + String(repeating: "x", count: 71), "UID SEARCH SUBJECT {71}",
            String(repeating: "x", count: 71) + " UNDELETED"),
        ExplainRow(
            "control character literal", "subject:a\u{1}b", "UID SEARCH SUBJECT {3}", "a\u{1}b UNDELETED"),
    ]

    /// Every error the parser and compiler give.
    static let errors: [ExplainRow] = [
        ExplainRow("unbalanced )", "from:a)", error: #"unbalanced ")" at column 7"#),
        ExplainRow("unbalanced ( nested", "((a)", error: #"unbalanced "(" at column 1"#),
        ExplainRow("empty parentheses", "a ()", error: "empty parentheses at column 3"),
        ExplainRow("OR first", "OR a", error: #""OR" needs something on both sides (column 1)"#),
        ExplainRow("OR OR", "a OR OR b", error: #""OR" needs something on both sides (column 3)"#),
        ExplainRow("OR before )", "(a OR)", error: #""OR" needs something on both sides (column 4)"#),
        ExplainRow("AND last", "a AND", error: #""AND" needs something on both sides (column 3)"#),
        ExplainRow("AND first", "AND a", error: #""AND" needs something on both sides (column 1)"#),
        ExplainRow("NOT last", "a NOT", error: #""NOT" needs something after it (column 3)"#),
        ExplainRow("minus alone", "a -", error: #""-" needs something after it (column 3)"#),
        ExplainRow("empty field", "from: bob", error: #""from:" at column 1 needs a value"#),
        ExplainRow("empty quoted field", #"subject:"""#, error: #""subject:" at column 1 needs a value"#),
        ExplainRow("empty quotes", #"a """#, error: "empty quotes at column 3; put the words between them"),
        ExplainRow("unterminated later", #"a "b"#, error: "unterminated quote starting at column 3"),
        ExplainRow("CR", "a\rb", error: "a search value cannot contain a line break"),
        ExplainRow("NUL", "a\u{0}b", error: "a search value cannot contain a NUL character"),
        ExplainRow("bad month", "before:2024-13", error: #"invalid date "2024-13" (column 8)"#),
        ExplainRow("three-digit year", "after:0999-01-01", error: #"invalid date "0999-01-01" (column 7)"#),
        ExplainRow("bad date shape", "on:03/05/2024", error: #"invalid date "03/05/2024" (column 4)"#),
        ExplainRow("bad range end", "date:2024..2024-02-30", error: #"invalid date "2024-02-30" (column 12)"#),
        ExplainRow(
            "backwards range", "date:2024-06..2024-01",
            error: #"the date range "2024-06..2024-01" (column 6) ends before it starts"#),
        ExplainRow("open range", "date:..", error: "date: at column 6 needs at least one end, like date:2024-01.."),
        ExplainRow(
            "bad age", "newer_than:7", error: #"invalid age "7" (column 12); write digits and d, w, m or y, like 7d"#),
        ExplainRow(
            "zero age", "older_than:0d", error: #"invalid age "0d" (column 12); write digits and d, w, m or y, like 7d"#
        ),
        ExplainRow(
            "bad size", "larger:10T",
            error: #"invalid size "10T" (column 8); write digits with an optional K, M or G, like 10M"#),
        ExplainRow(
            "huge size", "larger:99999999999999999999",
            error: #"the size "99999999999999999999" (column 8) is too large"#),
        ExplainRow(
            "overflowing size", "smaller:99999999999G", error: #"the size "99999999999G" (column 9) is too large"#),
        ExplainRow(
            "smaller over limit", "smaller:4G", error: "4294967296 is larger than this server can search (4294967295)"),
        ExplainRow(
            "bad is", "is:blue",
            error: #"unknown value "blue" for is: (column 4); try is:unread, is:read, is:pinned or is:flagged"#),
        ExplainRow("bad has", "has:music", error: #"unknown value "music" for has: (column 5); try has:attachment"#),
        ExplainRow(
            "bad uid", "uid:1-5", error: #"invalid UID set "1-5" (column 5); write numbers and ranges, like 1:100,200"#),
        ExplainRow(
            "zero uid", "uid:0", error: #"invalid UID set "0" (column 5); write numbers and ranges, like 1:100,200"#),
        ExplainRow(
            "header without =", "header:X-Spam",
            error: "header: at column 8 needs Name=value, like header:List-Id=swift"),
        ExplainRow(
            "header bad name", "header:X{1}=a",
            error: #"invalid header name "X{1}" (column 8); use letters, digits and -"#),
        ExplainRow(
            "header empty value", "header:X-Spam=", error: "header:X-Spam= at column 8 needs a value after the ="),
        ExplainRow(
            "raw off Gmail", "raw:foo",
            error: "raw: works only on Gmail (X-GM-EXT-1), and this server does not offer it"),
        ExplainRow(
            "in negated", "-in:Archive",
            error: "in: at column 2 cannot be negated or combined with OR; it chooses where the whole search runs"),
        ExplainRow(
            "in inside OR", "a OR in:Archive",
            error: "in: at column 6 cannot be negated or combined with OR; it chooses where the whole search runs"),
        ExplainRow("two in", "in:A in:B", error: "only one in: is allowed (column 6)"),
        ExplainRow(
            "too deep", String(repeating: "(", count: 300) + "a" + String(repeating: ")", count: 300),
            error: "the query nests too deeply at column 257 (at most 256 levels)"),
        ExplainRow(
            "too many ORs", String(repeating: "a OR ", count: 300) + "a",
            error: "the query nests too deeply at column 1278 (at most 256 levels)"),
        ExplainRow(
            "negations count", String(repeating: "-", count: 300) + "a",
            error: "the query nests too deeply at column 257 (at most 256 levels)"),
    ]

    @Test(arguments: specExamples)
    func specExample(_ row: ExplainRow) { check(row) }

    @Test(arguments: operators)
    func operatorRow(_ row: ExplainRow) { check(row) }

    @Test(arguments: errors)
    func errorRow(_ row: ExplainRow) { check(row) }

    func check(_ row: ExplainRow) {
        switch row.expected {
        case .lines(let expected):
            do {
                let lines = try explain(row.query, context: row.server.context)
                #expect(lines == expected)
            } catch {
                Issue.record("expected \(expected), got error: \(error.message)")
            }
        case .error(let message):
            do {
                let lines = try explain(row.query, context: row.server.context)
                Issue.record("expected error \(message.debugDescription), got \(lines)")
            } catch {
                #expect(error.message == message)
            }
        }
    }
}

@Suite(.hangGuard) struct LimitTests {
    /// The longest OR chain and deepest nesting accepted still compile and encode.
    @Test func deepestAcceptedQueriesEncode() throws {
        let chain = String(repeating: "a OR ", count: 255) + "a"
        let lines = try explain(chain, context: Server.rev1.context)
        #expect(lines.count == 1)
        #expect(lines[0].hasPrefix("UID SEARCH " + String(repeating: "OR ", count: 255)))
        let nested = String(repeating: "-(", count: 126) + "a" + String(repeating: ")", count: 126)
        #expect(try explain(nested, context: Server.rev1.context) == ["UID SEARCH \(words(#""a""#)) UNDELETED"])
    }
}
