/// The 22 examples of docs/query-language.md ("Examples that must hold"), word for word, as
/// plain data: the library's explain tests and the `mailsearch explain` binary tests both run
/// them. Today is 2024-03-15; the server is IMAP4rev1 unless `server` says otherwise.
public struct QueryLanguageExample: Sendable, CustomStringConvertible {
    /// The spec's row number.
    public let label: String
    public let query: String
    /// `rev1` (IMAP4rev1), `rev2` (IMAP4rev2) or `literalPlus` (IMAP4rev1 LITERAL+).
    public let server: String
    /// The lines `explain` prints, or nil when the query is an error.
    public let lines: [String]?
    /// The error message, or nil.
    public let error: String?

    init(_ label: String, _ query: String, on server: String = "rev1", _ lines: String...) {
        self.label = label
        self.query = query
        self.server = server
        self.lines = lines
        self.error = nil
    }

    init(_ label: String, _ query: String, error: String) {
        self.label = label
        self.query = query
        self.server = "rev1"
        self.lines = nil
        self.error = error
    }

    /// The capability list of `server`, as `mailsearch explain --capabilities` takes it.
    public var capabilities: String {
        switch server {
        case "rev2": return "IMAP4rev2"
        case "literalPlus": return "IMAP4rev1 LITERAL+"
        default: return "IMAP4rev1"
        }
    }

    public var description: String { "\(label): \(query.debugDescription) on \(server)" }
}

public enum QueryLanguageExamples {
    /// The day relative dates count from in the examples.
    public static let today = "2024-03-15"

    private static func words(_ word: String) -> String {
        "OR FROM \(word) OR SUBJECT \(word) OR TO \(word) OR CC \(word) BODY \(word)"
    }

    /// Every other form docs/query-language.md lists ("Fields and their IMAP meaning" and "On
    /// the wire"), beyond the examples: each field and operator, each date form, strings that
    /// must go as literals, and a UID set too long for one command line.
    public static let forms: [(label: String, query: String)] = [
        ("phrase", #""quarterly report""#),
        ("to cc bcc", "to:bob cc:carol bcc:dave"),
        ("body", #"body:"see attached""#),
        ("text", "text:swift"),
        ("header", "header:List-Id=swift.org"),
        ("read", "is:read"),
        ("pinned", "is:pinned"),
        ("unpinned", "is:unpinned"),
        ("starred", "is:starred"),
        ("unflagged", "is:unflagged"),
        ("answered, not draft", "is:answered -is:draft"),
        ("deleted", "is:deleted"),
        ("attachment", "has:attachment"),
        ("on", "on:2024-03-01"),
        ("on a month", "on:2024-02"),
        ("open date range", "date:2024-03-01.."),
        ("today and yesterday", "after:yesterday before:today"),
        ("sent", "sent-after:2024-01-01 sent-before:2024-02-01"),
        ("older", "older_than:2w"),
        ("newer months", "newer_than:1m"),
        ("uid", "uid:1:100,200"),
        ("uid to the end", "uid:3,1,2,10:12,500:*"),
        ("raw", #"raw:"has:drive""#),
        ("in a mailbox", "in:Archive from:bob"),
        ("in every mailbox", "in:all subject:meeting"),
        ("AND", "from:a AND from:b"),
        ("NOT", "NOT from:bob"),
        ("NOT OR", "-(from:a OR to:b)"),
        ("OR of groups", "(from:a is:read) OR to:b"),
        ("71 bytes: a literal", "subject:" + String(repeating: "x", count: 71)),
        ("control character: a literal", "subject:a\u{1}b"),
        ("non-ASCII word", "Müller"),
        ("non-ASCII over 4096 bytes", "subject:" + String(repeating: "é", count: 2049)),
        ("a long UID set", "uid:" + stride(from: 2, through: 4000, by: 2).map(String.init).joined(separator: ",")),
    ]

    /// The spec's examples, in its order.
    public static let rows: [QueryLanguageExample] = [
        QueryLanguageExample("1", "", "UID SEARCH ALL UNDELETED"),
        QueryLanguageExample(
            "2", "invoice",
            #"UID SEARCH OR FROM "invoice" OR SUBJECT "invoice" OR TO "invoice" OR CC "invoice" BODY "invoice" UNDELETED"#
        ),
        QueryLanguageExample(
            "3", "from:alice@example.com is:unread", #"UID SEARCH FROM "alice@example.com" UNSEEN UNDELETED"#),
        QueryLanguageExample("4", #"subject:"say \"hi\"""#, #"UID SEARCH SUBJECT "say \"hi\"" UNDELETED"#),
        QueryLanguageExample("5", #"subject:C:\temp"#, #"UID SEARCH SUBJECT "C:\\temp" UNDELETED"#),
        QueryLanguageExample("6", "from:Müller", "UID SEARCH CHARSET UTF-8 FROM {7}", "Müller UNDELETED"),
        QueryLanguageExample("7", "from:Müller", on: "rev2", #"UID SEARCH FROM "Müller" UNDELETED"#),
        QueryLanguageExample(
            "8", "subject:パリ", on: "literalPlus", "UID SEARCH CHARSET UTF-8 SUBJECT {6+}", "パリ UNDELETED"),
        QueryLanguageExample("9", #"from:"alice"#, error: "unterminated quote starting at column 6"),
        QueryLanguageExample("10", "(from:a OR from:b", error: #"unbalanced "(" at column 1"#),
        QueryLanguageExample(
            "11", "from:alice OR from:bob is:unread", #"UID SEARCH OR FROM "alice" FROM "bob" UNSEEN UNDELETED"#),
        QueryLanguageExample(
            "12", "is:unread -is:flagged -is:pinned", "UID SEARCH UNSEEN UNFLAGGED UNFLAGGED UNDELETED"),
        QueryLanguageExample("13", "-(is:read OR from:bob)", #"UID SEARCH NOT (OR SEEN FROM "bob") UNDELETED"#),
        QueryLanguageExample(
            "14", "after:2024-03-05 before:2024/03/08", "UID SEARCH SINCE 5-Mar-2024 BEFORE 8-Mar-2024 UNDELETED"),
        QueryLanguageExample(
            "15", "date:2024-01..2024-06", "UID SEARCH SINCE 1-Jan-2024 BEFORE 1-Jul-2024 UNDELETED"),
        QueryLanguageExample("16", "newer_than:7d", "UID SEARCH SINCE 8-Mar-2024 UNDELETED"),
        QueryLanguageExample("17", "larger:10M smaller:500K", "UID SEARCH LARGER 10485760 SMALLER 512000 UNDELETED"),
        QueryLanguageExample("18", "larger:5G", error: "5368709120 is larger than this server can search (4294967295)"),
        QueryLanguageExample("19", "after:2024-02-30", error: #"invalid date "2024-02-30" (column 7)"#),
        QueryLanguageExample("20", "a OR", error: #""OR" needs something on both sides (column 3)"#),
        QueryLanguageExample("21", "\"line\nbreak\"", error: "a search value cannot contain a line break"),
        QueryLanguageExample(
            "22", "meeting 10:30", "UID SEARCH \(words(#""meeting""#)) \(words(#""10:30""#)) UNDELETED"),
    ]
}
