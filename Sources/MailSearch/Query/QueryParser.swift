internal import FoundationEssentials
internal import IMAPCore

/// A parsed query and the hints worth showing next to it.
public struct ParsedQuery: Hashable, Sendable {
    /// The query tree.
    public var query: Query
    /// Suggestions that do not stop the search (`did you mean OR?`).
    public var hints: [QueryHint]

    /// A parsed query with hints.
    public init(query: Query, hints: [QueryHint] = []) {
        self.query = query
        self.hints = hints
    }
}

/// A suggestion about a query that parsed but may not mean what was meant.
public enum QueryHint: Hashable, Sendable {
    /// A lowercase `or` between two terms is searched as the word "or"; `OR` is the operator.
    case lowercaseOr(column: Int)

    /// One sentence for a person.
    public var message: String {
        switch self {
        case .lowercaseOr(let column): return "did you mean OR? (column \(column))"
        }
    }
}

/// Parses the search language of `docs/query-language.md` into a `Query`.
///
/// ```
/// let parsed = try QueryParser.parse("from:alice OR from:bob is:unread")
/// ```
/// Columns in errors and hints are 1-based and count Unicode scalars of the input.
public enum QueryParser {
    /// The deepest nesting accepted: parentheses, negations and ORs in a row each add a level.
    public static let maximumDepth = 256

    /// Parses `text`; empty or blank text is `.all`.
    public static func parse(_ text: String) throws(QueryError) -> ParsedQuery {
        var lexer = Lexer(Array(text.unicodeScalars))
        let tokens = try lexer.tokens()
        guard !tokens.isEmpty else { return ParsedQuery(query: .all) }
        var parser = Parser(tokens: tokens)
        let query = try parser.parseExpression(depth: 0)
        if let stray = parser.peek {
            // parseExpression stops only at a ")" it did not open.
            throw QueryError(.unbalancedParenthesis, column: stray.column, "unbalanced \")\" at column \(stray.column)")
        }
        try MailboxPlacement.check(query, columns: lexer.mailboxColumns)
        return ParsedQuery(query: query, hints: hints(tokens))
    }

    private static func hints(_ tokens: [Token]) -> [QueryHint] {
        var hints: [QueryHint] = []
        for index in tokens.indices where tokens[index].isLowercaseOr {
            guard index > 0, index + 1 < tokens.count, tokens[index - 1].endsOperand,
                tokens[index + 1].startsOperand
            else { continue }
            hints.append(.lowercaseOr(column: tokens[index].column))
        }
        return hints
    }
}

private struct Token {
    enum Kind {
        case open
        case close
        case minus
        case and
        case or
        case not
        case term(QueryTerm)
    }

    var kind: Kind
    var column: Int
    /// An unquoted bare word spelled `or` in some case other than `OR`.
    var isLowercaseOr = false

    var startsOperand: Bool {
        switch kind {
        case .open, .minus, .not, .term: return true
        case .close, .and, .or: return false
        }
    }

    var endsOperand: Bool {
        switch kind {
        case .close, .term: return true
        case .open, .minus, .not, .and, .or: return false
        }
    }

    var isClose: Bool {
        if case .close = kind { return true }
        return false
    }
}

// MARK: - Lexer

private enum Field: String, CaseIterable {
    case from, to, cc, bcc, subject, body, text, header, `is`, has, after, before, on, date
    case sentAfter = "sent-after"
    case sentBefore = "sent-before"
    case newerThan = "newer_than"
    case olderThan = "older_than"
    case larger, smaller, uid, raw, `in`
}

private struct Lexer {
    let scalars: [Unicode.Scalar]
    var index = 0
    /// Columns of the `in:` terms, in source order.
    var mailboxColumns: [Int] = []

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    static func endsWord(_ scalar: Unicode.Scalar) -> Bool {
        isSeparator(scalar) || scalar == "\"" || scalar == "(" || scalar == ")"
    }

    mutating func tokens() throws(QueryError) -> [Token] {
        var tokens: [Token] = []
        while index < scalars.count {
            let scalar = scalars[index]
            let column = index + 1
            if Self.isSeparator(scalar) {
                index += 1
                continue
            }
            try Self.checkAllowed(scalar, column: column)
            switch scalar {
            case "(":
                tokens.append(Token(kind: .open, column: column))
                index += 1
            case ")":
                tokens.append(Token(kind: .close, column: column))
                index += 1
            case "-":
                guard index + 1 < scalars.count, !Self.isSeparator(scalars[index + 1]), scalars[index + 1] != ")"
                else {
                    throw QueryError(
                        .missingOperand, column: column, "\"-\" needs something after it (column \(column))")
                }
                tokens.append(Token(kind: .minus, column: column))
                index += 1
            case "\"":
                let value = try readQuoted()
                guard !value.isEmpty else {
                    throw QueryError(
                        .emptyValue, column: column, "empty quotes at column \(column); put the words between them")
                }
                tokens.append(Token(kind: .term(.text(value)), column: column))
            default:
                tokens.append(try readWord())
            }
        }
        return tokens
    }

    static func checkAllowed(_ scalar: Unicode.Scalar, column: Int) throws(QueryError) {
        if scalar == "\r" || scalar == "\n" {
            throw QueryError(.forbiddenCharacter, column: column, "a search value cannot contain a line break")
        }
        if scalar == "\0" {
            throw QueryError(.forbiddenCharacter, column: column, "a search value cannot contain a NUL character")
        }
    }

    /// `DQUOTE *(char / "\" DQUOTE / "\\") DQUOTE`, starting at the opening quote.
    mutating func readQuoted() throws(QueryError) -> String {
        let start = index
        index += 1
        var value = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            try Self.checkAllowed(scalar, column: index + 1)
            if scalar == "\"" {
                index += 1
                return Self.normalized(value)
            }
            if scalar == "\\", index + 1 < scalars.count, scalars[index + 1] == "\"" || scalars[index + 1] == "\\" {
                value.append(scalars[index + 1])
                index += 2
                continue
            }
            value.append(scalar)
            index += 1
        }
        throw QueryError(
            .unterminatedQuote, column: start + 1, "unterminated quote starting at column \(start + 1)")
    }

    static func normalized(_ scalars: String.UnicodeScalarView) -> String {
        // ASCII text is already in NFC; normalizing costs more than the whole parse.
        if scalars.allSatisfy(\.isASCII) { return String(scalars) }
        return String(decoding: String(scalars)._nfcCodeUnits, as: UTF8.self)
    }

    /// A run of characters up to a space, quote or parenthesis: an operator, `field:value` or a word.
    mutating func readWord() throws(QueryError) -> Token {
        let start = index
        while index < scalars.count, !Self.endsWord(scalars[index]) {
            try Self.checkAllowed(scalars[index], column: index + 1)
            index += 1
        }
        let run = scalars[start..<index]
        let word = String(String.UnicodeScalarView(run))
        let column = start + 1
        switch word {
        case "OR": return Token(kind: .or, column: column)
        case "AND": return Token(kind: .and, column: column)
        case "NOT": return Token(kind: .not, column: column)
        default: break
        }
        if let colon = run.firstIndex(of: ":"), colon > start,
            let field = Field(rawValue: String(String.UnicodeScalarView(run[start..<colon])).lowercased())
        {
            var valueColumn = colon + 2
            var value = Self.normalized(String.UnicodeScalarView(run[(colon + 1)...]))
            if index < scalars.count, scalars[index] == "\"" {
                // `subject:"a b"`, and `header:X-Note="a b"`: a quoted part continues the value.
                if value.isEmpty { valueColumn = index + 1 }
                value += try readQuoted()
            }
            guard !value.isEmpty else {
                throw QueryError(
                    .emptyValue, column: column, "\"\(field.rawValue):\" at column \(column) needs a value")
            }
            let term = try Self.term(field, value, column: valueColumn)
            if case .mailbox = term { mailboxColumns.append(column) }
            return Token(kind: .term(term), column: column)
        }
        var token = Token(kind: .term(.text(Self.normalized(String.UnicodeScalarView(run)))), column: column)
        token.isLowercaseOr = word.lowercased() == "or"
        return token
    }

    // MARK: Field values

    static func term(_ field: Field, _ value: String, column: Int) throws(QueryError) -> QueryTerm {
        switch field {
        case .from: return .from(value)
        case .to: return .to(value)
        case .cc: return .cc(value)
        case .bcc: return .bcc(value)
        case .subject: return .subject(value)
        case .body: return .body(value)
        case .text: return .fullText(value)
        case .raw: return .raw(value)
        case .header: return try header(value, column: column)
        case .is: return .flag(try flag(value, column: column))
        case .has:
            guard ["attachment", "attachments"].contains(value.lowercased()) else {
                throw QueryError(
                    .invalidValue, column: column,
                    "unknown value \"\(value)\" for has: (column \(column)); try has:attachment")
            }
            return .hasAttachment
        case .after: return .receivedAfter(try date(value, column: column))
        case .before: return .receivedBefore(try date(value, column: column))
        case .on: return .receivedOn(try date(value, column: column))
        case .sentAfter: return .sentAfter(try date(value, column: column))
        case .sentBefore: return .sentBefore(try date(value, column: column))
        case .date: return try dateRange(value, column: column)
        case .newerThan: return .newerThan(try age(value, column: column))
        case .olderThan: return .olderThan(try age(value, column: column))
        case .larger: return .larger(try size(value, column: column))
        case .smaller: return .smaller(try size(value, column: column))
        case .uid: return .uid(try uidSet(value, column: column))
        case .in:
            switch value.lowercased() {
            case "all": return .mailbox(.allMailboxes)
            case "inbox": return .mailbox(.mailbox("INBOX"))
            default: return .mailbox(.mailbox(value))
            }
        }
    }

    static func header(_ value: String, column: Int) throws(QueryError) -> QueryTerm {
        guard let equals = value.firstIndex(of: "=") else {
            throw QueryError(
                .invalidValue, column: column,
                "header: at column \(column) needs Name=value, like header:List-Id=swift")
        }
        let name = String(value[..<equals])
        let headerValue = String(value[value.index(after: equals)...])
        let nameIsValid =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" || $0 == "_" || $0 == "." }
        guard nameIsValid else {
            throw QueryError(
                .invalidValue, column: column,
                "invalid header name \"\(name)\" (column \(column)); use letters, digits and -")
        }
        guard !headerValue.isEmpty else {
            throw QueryError(
                .emptyValue, column: column, "header:\(name)= at column \(column) needs a value after the =")
        }
        return .header(name: name, value: headerValue)
    }

    static func flag(_ value: String, column: Int) throws(QueryError) -> QueryFlag {
        switch value.lowercased() {
        case "starred": return .flagged
        case "unstarred": return .unflagged
        case let name:
            guard let flag = QueryFlag(rawValue: name) else {
                throw QueryError(
                    .invalidValue, column: column,
                    "unknown value \"\(value)\" for is: (column \(column)); try is:unread, is:read, is:pinned or is:flagged"
                )
            }
            return flag
        }
    }

    /// `YYYY-MM-DD` / `YYYY/MM/DD` / `YYYY-MM` / `YYYY` / `today` / `yesterday`.
    static func date(_ value: String, column: Int) throws(QueryError) -> QueryDate {
        switch value.lowercased() {
        case "today": return .today
        case "yesterday": return .yesterday
        default: break
        }
        let invalid = QueryError(.invalidDate, column: column, "invalid date \"\(value)\" (column \(column))")
        let separator: Character = value.contains("/") ? "/" : "-"
        let parts = value.split(separator: separator, omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts[0].count == 4,
            parts.dropFirst().allSatisfy({ (1...2).contains($0.count) }),
            parts.allSatisfy({ $0.unicodeScalars.allSatisfy { $0.isASCIIDigit } })
        else { throw invalid }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count else { throw invalid }
        switch numbers.count {
        case _ where !(1000...9999).contains(numbers[0]):
            // IMAP writes years with four digits.
            throw invalid
        case 1:
            return .year(numbers[0])
        case 2:
            guard IMAPDate(year: numbers[0], month: numbers[1], day: 1) != nil else { throw invalid }
            return .month(year: numbers[0], month: numbers[1])
        default:
            guard let day = IMAPDate(year: numbers[0], month: numbers[1], day: numbers[2]) else { throw invalid }
            return .day(day)
        }
    }

    /// `A..B`, either end open; a single date is the range of that date.
    static func dateRange(_ value: String, column: Int) throws(QueryError) -> QueryTerm {
        guard let dots = value.firstRange(of: "..") else {
            let single = try date(value, column: column)
            return .receivedBetween(single, single)
        }
        let startText = String(value[..<dots.lowerBound])
        let endText = String(value[dots.upperBound...])
        guard !startText.isEmpty || !endText.isEmpty else {
            throw QueryError(
                .invalidDate, column: column, "date: at column \(column) needs at least one end, like date:2024-01..")
        }
        let endColumn = column + startText.unicodeScalars.count + 2
        let start = startText.isEmpty ? nil : try date(startText, column: column)
        let end = endText.isEmpty ? nil : try date(endText, column: endColumn)
        if let start, let end, start != .today, start != .yesterday, end != .today, end != .yesterday {
            // today/yesterday never occur here, so any day works as "today".
            let anyDay = IMAPDate(daysSinceEpoch: 0)
            guard start.start(today: anyDay) <= end.end(today: anyDay) else {
                throw QueryError(
                    .invalidDate, column: column, "the date range \"\(value)\" (column \(column)) ends before it starts"
                )
            }
        }
        return .receivedBetween(start, end)
    }

    /// Digits followed by `d`, `w`, `m` or `y`.
    static func age(_ value: String, column: Int) throws(QueryError) -> QueryAge {
        let invalid = QueryError(
            .invalidAge, column: column,
            "invalid age \"\(value)\" (column \(column)); write digits and d, w, m or y, like 7d")
        guard let last = value.last, let unit = QueryAge.Unit(rawValue: last.lowercased()) else { throw invalid }
        let digits = value.dropLast()
        guard !digits.isEmpty, digits.count <= 6, digits.unicodeScalars.allSatisfy({ $0.isASCIIDigit }),
            let count = Int(digits), count > 0
        else { throw invalid }
        return QueryAge(count, unit)
    }

    /// Digits with an optional `K`, `M` or `G` (powers of 1024).
    static func size(_ value: String, column: Int) throws(QueryError) -> UInt64 {
        let invalid = QueryError(
            .invalidSize, column: column,
            "invalid size \"\(value)\" (column \(column)); write digits with an optional K, M or G, like 10M")
        var digits = Substring(value)
        var multiplier: UInt64 = 1
        switch value.last.map({ $0.uppercased() }) {
        case "K": multiplier = 1 << 10
        case "M": multiplier = 1 << 20
        case "G": multiplier = 1 << 30
        default: break
        }
        if multiplier != 1 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.unicodeScalars.allSatisfy({ $0.isASCIIDigit }) else { throw invalid }
        guard let number = UInt64(digits) else {
            throw QueryError(.invalidSize, column: column, "the size \"\(value)\" (column \(column)) is too large")
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow else {
            throw QueryError(.invalidSize, column: column, "the size \"\(value)\" (column \(column)) is too large")
        }
        return bytes
    }

    /// A UID set as IMAP writes it: `1:100,200`, `500:*`.
    static func uidSet(_ value: String, column: Int) throws(QueryError) -> SequenceSet {
        let invalid = QueryError(
            .invalidValue, column: column,
            "invalid UID set \"\(value)\" (column \(column)); write numbers and ranges, like 1:100,200")
        guard value.unicodeScalars.allSatisfy({ $0.isASCIIDigit || $0 == ":" || $0 == "," || $0 == "*" }) else {
            throw invalid
        }
        var cursor = ByteCursor(value)
        do {
            let set = try cursor.parseSequenceSet()
            let hasZero = set.ranges.contains { $0.first == .number(0) || $0.last == .number(0) }
            guard cursor.isAtEnd, !hasZero else { throw invalid }
            return set
        } catch {
            throw invalid
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    fileprivate var isASCIIAlphanumeric: Bool {
        isASCIIDigit || ("a"..."z").contains(self) || ("A"..."Z").contains(self)
    }
}

// MARK: - Parser

private struct Parser {
    let tokens: [Token]
    var position = 0

    init(tokens: [Token]) { self.tokens = tokens }

    var peek: Token? { position < tokens.count ? tokens[position] : nil }

    // expr = orexpr *(1*SP ["AND" 1*SP] orexpr)
    mutating func parseExpression(depth: Int) throws(QueryError) -> Query {
        var parts = [try parseOr(depth: depth)]
        while let token = peek, !token.isClose {
            if case .and = token.kind {
                position += 1
                guard let next = peek, next.startsOperand else { throw Self.missingOperand("AND", token.column) }
            }
            parts.append(try parseOr(depth: depth))
        }
        let flattened = parts.flatMap { part -> [Query] in
            if case .and(let inner) = part { return inner }
            return [part]
        }
        return flattened.count == 1 ? flattened[0] : .and(flattened)
    }

    // orexpr = unary *(1*SP "OR" 1*SP unary)
    mutating func parseOr(depth: Int) throws(QueryError) -> Query {
        var left = try parseUnary(depth: depth)
        var chain = 0
        while let token = peek, case .or = token.kind {
            position += 1
            guard let next = peek, next.startsOperand else { throw Self.missingOperand("OR", token.column) }
            // Each OR nests the tree one level deeper (`OR OR a b c`), so it counts toward the depth.
            chain += 1
            guard depth + chain < QueryParser.maximumDepth else { throw Self.tooDeep(token.column) }
            left = .or(left, try parseUnary(depth: depth + chain))
        }
        return left
    }

    // unary = "-" unary / "NOT" 1*SP unary / atom
    // atom  = "(" *SP expr *SP ")" / term
    mutating func parseUnary(depth: Int) throws(QueryError) -> Query {
        guard let token = peek else {
            preconditionFailure("parseUnary is called only where an operand starts")
        }
        guard depth < QueryParser.maximumDepth else { throw Self.tooDeep(token.column) }
        switch token.kind {
        case .minus, .not:
            position += 1
            guard let next = peek, next.startsOperand else {
                let name = if case .minus = token.kind { "-" } else { "NOT" }
                throw QueryError(
                    .missingOperand, column: token.column,
                    "\"\(name)\" needs something after it (column \(token.column))")
            }
            return .not(try parseUnary(depth: depth + 1))
        case .open:
            position += 1
            guard let next = peek else { throw Self.unbalancedOpen(token.column) }
            if next.isClose {
                throw QueryError(
                    .emptyValue, column: token.column, "empty parentheses at column \(token.column)")
            }
            let inner = try parseExpression(depth: depth + 1)
            guard let close = peek, close.isClose else { throw Self.unbalancedOpen(token.column) }
            position += 1
            return inner
        case .close:
            throw QueryError(
                .unbalancedParenthesis, column: token.column, "unbalanced \")\" at column \(token.column)")
        case .and:
            throw Self.missingOperand("AND", token.column)
        case .or:
            throw Self.missingOperand("OR", token.column)
        case .term(let term):
            position += 1
            return .term(term)
        }
    }

    static func missingOperand(_ name: String, _ column: Int) -> QueryError {
        QueryError(.missingOperand, column: column, "\"\(name)\" needs something on both sides (column \(column))")
    }

    static func tooDeep(_ column: Int) -> QueryError {
        QueryError(
            .tooDeep, column: column,
            "the query nests too deeply at column \(column) (at most \(QueryParser.maximumDepth) levels)")
    }

    static func unbalancedOpen(_ column: Int) -> QueryError {
        QueryError(.unbalancedParenthesis, column: column, "unbalanced \"(\" at column \(column)")
    }
}

// MARK: - in: placement

/// `in:` chooses where the whole search runs, so it may appear once, as a top-level part.
private enum MailboxPlacement {
    static func check(_ query: Query, columns: [Int]) throws(QueryError) {
        var seen = 0
        var topLevel = 0
        func visit(_ query: Query, atTop: Bool) throws(QueryError) {
            switch query {
            case .all: return
            case .term(let term):
                guard case .mailbox = term else { return }
                let column = seen < columns.count ? columns[seen] : nil
                seen += 1
                guard atTop else {
                    throw QueryError(
                        .misplacedMailbox, column: column,
                        "in: at column \(column ?? 0) cannot be negated or combined with OR; it chooses where the whole search runs"
                    )
                }
                topLevel += 1
                guard topLevel == 1 else {
                    throw QueryError(
                        .misplacedMailbox, column: column, "only one in: is allowed (column \(column ?? 0))")
                }
            case .and(let parts):
                for part in parts { try visit(part, atTop: atTop) }
            case .or(let left, let right):
                try visit(left, atTop: false)
                try visit(right, atTop: false)
            case .not(let inner):
                try visit(inner, atTop: false)
            }
        }
        try visit(query, atTop: true)
    }
}
