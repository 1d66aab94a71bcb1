public import IMAPCore
import MailMIME
import SearchSemantics

/// What the index answers to a search.
public enum LocalAnswer: Sendable, Equatable {
    /// The UIDs the server's `UID SEARCH` returns, ascending.
    case uids([UInt32])
    /// The mailbox has no index.
    case notIndexed
    /// Only the server can answer, for this reason.
    case serverDecides(String)
}

/// Searching the index: the compiled query's SEARCH keys, answered as the server's `UID SEARCH`
/// would answer them, or not at all.
extension MessageIndex {
    /// Why the index cannot answer `keys` exactly, so the server must; nil when it can.
    ///
    /// - Parameter serverMatchesWords: the server matches whole words (Gmail's X-GM-EXT-1), not
    ///   IMAP's substrings: its answers are its own, and only it can give them.
    public static func reasonForServer(_ keys: [SearchKey], serverMatchesWords: Bool = false) -> String? {
        if serverMatchesWords { return "this server matches whole words, not substrings as IMAP does" }
        func reason(_ key: SearchKey) -> String? {
            switch key {
            case .recent, .new, .old: return "\\Recent belongs to the session that sees it"
            case .sequenceNumbers: return "sequence numbers belong to a session"
            case .gmailRaw: return "X-GM-RAW is Gmail's own search"
            case .filter: return "FILTER names a filter stored on the server"
            case .savedBefore, .savedOn, .savedSince, .savedDateSupported: return "the save date is the server's"
            case .uid(let set): return set.isLastSearchResult ? "$ is the server's saved result" : nil
            case .not(let inner): return reason(inner)
            case .or(let left, let right): return reason(left) ?? reason(right)
            case .and(let keys): return keys.lazy.compactMap(reason).first
            default: return nil
            }
        }
        return keys.lazy.compactMap(reason).first
    }

    /// The UIDs of `mailbox` that match every key, as the server's `UID SEARCH` returns them
    /// (ascending).
    ///
    /// Servers differ on one point the RFCs settle (RFC 5322 2.1): whether BODY finds a word in
    /// the header of an attached message. A sync asks the server which it does and the index
    /// keeps the answer; until then each message is judged both ways and, where the two differ,
    /// the answer is the server's to give (`.serverDecides`), never a guess.
    public func search(
        _ keys: [SearchKey], in mailbox: String, now: Int, serverMatchesWords: Bool = false
    ) async throws(StoreError) -> LocalAnswer {
        try await evaluate(keys, in: mailbox, now: now, serverMatchesWords: serverMatchesWords, newest: nil)
    }

    /// The newest `limit` messages of `mailbox` that match every key, newest first as the
    /// server's `SORT (REVERSE ARRIVAL)` orders them (by INTERNALDATE, a tie by UID): the same
    /// messages as the first `limit` of ``search(_:in:now:serverMatchesWords:)`` ordered so, found
    /// without reading the text of the older ones.
    ///
    /// With a `deadline` (type-ahead, which must not hold up the next key), the search gives up
    /// once it passes: `.serverDecides`, as for a query only the server can answer. A few rare
    /// queries read many messages' text to find none (`invoice -i`: 2.3 s at 100,000).
    public func newest(
        _ limit: Int, matching keys: [SearchKey], in mailbox: String, now: Int, serverMatchesWords: Bool = false,
        deadline: ContinuousClock.Instant? = nil
    ) async throws(StoreError) -> LocalAnswer {
        try await evaluate(
            keys, in: mailbox, now: now, serverMatchesWords: serverMatchesWords, newest: max(limit, 0),
            deadline: deadline)
    }

    /// Without `newest`, the candidates (every message of the mailbox, or those the FTS tables
    /// narrow a text key to) are read from `message` and each is judged by the matcher, reading
    /// its text only when a key looks at text.
    ///
    /// With `newest`, the messages are walked newest first (`message_date`) and judged until
    /// that many match: where matches are common (a frequent word, `is:unread`, a term too short
    /// for the trigrams) this reads a few rows whatever the mailbox's size, where listing the
    /// FTS candidates would read them all. A narrowed query that has not found its matches
    /// within ``walkBudget(_:)`` rows is rare, and the FTS candidates, sorted newest first, are
    /// judged instead.
    private func evaluate(
        _ keys: [SearchKey], in mailbox: String, now: Int, serverMatchesWords: Bool, newest limit: Int?,
        deadline: ContinuousClock.Instant? = nil
    ) async throws(StoreError) -> LocalAnswer {
        if let reason = Self.reasonForServer(keys, serverMatchesWords: serverMatchesWords) {
            return .serverDecides(reason)
        }
        return try await withConnection { (connection) throws(StoreError) -> LocalAnswer in
            do throws(StoreError) {
                return try connection.stopping(at: deadline) { () throws(StoreError) -> LocalAnswer in
                    try Self.evaluate(
                        keys, in: mailbox, now: now, serverMatchesWords: serverMatchesWords, newest: limit,
                        deadline: deadline, on: connection)
                }
            } catch  where error.isOverdue {
                return .serverDecides(error.message)
            }
        }
    }

    /// ``evaluate(_:in:now:serverMatchesWords:newest:deadline:)`` on the index's connection.
    private static func evaluate(
        _ keys: [SearchKey], in mailbox: String, now: Int, serverMatchesWords: Bool, newest limit: Int?,
        deadline: ContinuousClock.Instant?, on connection: SQLiteConnection
    ) throws(StoreError) -> LocalAnswer {
        let narrowing = Self.narrowing(.and(keys))
        let needsText = !SearchMatcher.texts(in: keys).isEmpty || Self.readsSentDate(keys)
        let readsBody = Self.readsBody(keys)
        let readsBodyText = Self.readsBodyText(keys)
        let readsSentDate = Self.readsSentDate(keys)
        let find = try connection.prepare(
            "SELECT id, attached_headers_in_body, undated_sent_date FROM mailbox WHERE name = ?1")
        try find.bind(1, mailbox)
        guard try find.step() else { return .notIndexed }
        let id = find.int64(0)
        let serverRule: Bool? = find.isNull(1) ? nil : find.int64(1) != 0
        let undatedRule = find.isNull(2) ? nil : MessageIndex.UndatedRule(rawValue: find.text(2))?.matcherRule
        let range = "rowid >= ?1 AND rowid < ?2"
        // Two subqueries: SQLite answers a lone max() or min() from the rowid's b-tree, both in
        // one query by reading the whole range.
        let largest = try connection.prepare(
            "SELECT (SELECT max(rowid) FROM message WHERE \(range)), (SELECT min(rowid) FROM message WHERE \(range))"
        )
        try largest.bind(1, id << 32)
        try largest.bind(2, (id + 1) << 32)
        let hasRows = try largest.step() && !largest.isNull(0)
        let largestUID = hasRows ? UInt32(truncatingIfNeeded: largest.int64(0)) : 0
        // At least the mailbox's message count (UIDs ascend with gaps).
        let uidSpan = hasRows ? Int(largest.int64(0) - largest.int64(1)) + 1 : 0
        // ?1 and ?2 come first in the text, so the narrowing's `?`s are ?3, ?4, ... in order.
        func bindRange(_ statement: SQLiteConnection.Statement, narrowed: Bool) throws(StoreError) {
            try statement.bind(1, id << 32)
            try statement.bind(2, (id + 1) << 32)
            guard narrowed else { return }
            for (offset, parameter) in (narrowing?.parameters ?? []).enumerated() {
                try statement.bind(Int32(offset + 3), parameter)
            }
        }
        let rowColumns = "rowid, internal_date, flags, zone, size, modseq"
        let matcher = SearchMatcher(
            keys: keys, largestSequenceNumber: 0, largestUID: largestUID, wholeWords: false, now: now,
            attachedHeadersInBody: serverRule ?? true, undatedSentDate: undatedRule ?? .receivedDate)
        let dovecotLike = SearchMatcher(
            keys: keys, largestSequenceNumber: 0, largestUID: largestUID, wholeWords: false, now: now,
            attachedHeadersInBody: false, undatedSentDate: undatedRule ?? .receivedDate)
        let judgesBothWays = readsBody && serverRule == nil
        let position = SearchMatcher.Position(sequenceNumber: 0, isRecent: false)
        let readText = try connection.prepare(
            readsBodyText
                ? "SELECT header, body FROM message_content WHERE rowid = ?1"
                : "SELECT header FROM message_content WHERE rowid = ?1")
        let inflater = Inflater()
        var found: [UInt32] = []
        var judged = Set<UInt32>()
        /// Rows judged, for looking at the clock every 32nd.
        var judgedCount = 0
        /// Judges `row`; nil when it matches or not, a reason when only the server can say.
        func judge(_ row: Row) throws(StoreError) -> String? {
            judgedCount += 1
            if let deadline, judgedCount & 31 == 0, ContinuousClock.now >= deadline {
                throw SQLiteConnection.overdue("\(judgedCount) messages judged")
            }
            var row = row
            if needsText {
                try readText.bind(1, id << 32 | Int64(row.uid))
                defer { readText.reset() }
                // A body that does not inflate ([0xFF]) makes the text unreadable: damaged.
                guard try readText.step(), let header = inflater.unpacked(readText.blob(0)),
                    let text = SearchableText(
                        header: header, body: readsBodyText ? inflater.unpacked(readText.blob(1)) ?? [0xFF] : nil)
                else {
                    throw StoreError(message: "the index \(connection.path) holds a damaged message; drop it")
                }
                row.text = text
            }
            if readsSentDate, undatedRule == nil, let text = row.text, text.sentDate == nil {
                return
                    "UID \(row.uid) has no readable Date header, whose sent date servers take differently (this one was not seen to follow a rule the index knows)"
            }
            let matches = matcher.matches(row, at: position)
            if judgesBothWays, row.text?.bodyTextWithoutAttachedHeaders != nil,
                matches != dovecotLike.matches(row, at: position)
            {
                return
                    "UID \(row.uid) matches only by a word in an attached message's header, which BODY finds on some servers and not on others"
            }
            if matches { found.append(row.uid) }
            return nil
        }

        /// Judges the candidates `narrowing` gives, not walked yet, newest first, until
        /// `limit` match.
        func judgeCandidates(_ narrowing: Narrowing, limit: Int) throws(StoreError) -> LocalAnswer {
            let statement = try connection.prepare(
                "SELECT rowid FROM message WHERE \(range) AND \(narrowing.sql)")
            try bindRange(statement, narrowed: true)
            var rowids: [Int64] = []
            while try statement.step() {
                let rowid = statement.int64(0)
                if !judged.contains(UInt32(truncatingIfNeeded: rowid)) { rowids.append(rowid) }
            }
            return try judge(rowids, limit: limit)
        }

        /// Judges the messages `rowids` newest first until `limit` match.
        func judge(_ rowids: [Int64], limit: Int) throws(StoreError) -> LocalAnswer {
            let readDate = try connection.prepare("SELECT internal_date FROM message WHERE rowid = ?1")
            var candidates: [(rowid: Int64, seconds: Int64)] = []
            candidates.reserveCapacity(rowids.count)
            for (read, rowid) in rowids.enumerated() {
                if let deadline, read & 255 == 255, ContinuousClock.now >= deadline {
                    throw SQLiteConnection.overdue("\(read) dates read")
                }
                try readDate.bind(1, rowid)
                defer { readDate.reset() }
                if try readDate.step() { candidates.append((rowid, readDate.int64(0))) }
            }
            candidates.sort { $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.rowid > $1.rowid }
            let readRow = try connection.prepare("SELECT \(rowColumns) FROM message WHERE rowid = ?1")
            for candidate in candidates where found.count < limit {
                try readRow.bind(1, candidate.rowid)
                defer { readRow.reset() }
                guard try readRow.step() else { continue }
                if let reason = try judge(Self.row(readRow)) { return .serverDecides(reason) }
            }
            return .uids(found)
        }

        guard let limit else {
            let statement = try connection.prepare(
                "SELECT \(rowColumns) FROM message WHERE \(range)"
                    + (narrowing.map { " AND \($0.sql)" } ?? "") + " ORDER BY rowid")
            try bindRange(statement, narrowed: true)
            while try statement.step() {
                if let reason = try judge(Self.row(statement)) { return .serverDecides(reason) }
            }
            return .uids(found)
        }
        guard limit > 0 else { return .uids([]) }
        let walk = try connection.prepare(
            "SELECT \(rowColumns) FROM message INDEXED BY message_date WHERE \(range) "
                + "ORDER BY internal_date DESC, rowid DESC")
        try bindRange(walk, narrowed: false)
        // A narrowed query whose candidates are few enough to list (up to what a walk would
        // need to hold `limit` of them) judges those: a handful by looking each up and
        // sorting, more by walking newest first and judging only them. One whose candidates
        // are more walks and judges every row (matches are likely near the top), within a
        // budget in case they are not.
        var budget = Int.max
        if let narrowing {
            let cap = max(limit, limit * uidSpan / Self.walkBudget(limit))
            if let listed = try narrowing.candidates(upTo: cap, in: connection) {
                let mine = Narrowing.within(listed, id << 32..<(id + 1) << 32)
                // Looking one up costs about three rows of a walk, and a walk reads about
                // limit * span / count rows to meet `limit` of them.
                if limit * uidSpan >= 3 * mine.count * mine.count {
                    return try judge(mine, limit: limit)
                }
                while found.count < limit, try walk.step() {
                    guard Narrowing.contains(mine, walk.int64(0)) else { continue }
                    if let reason = try judge(Self.row(walk)) { return .serverDecides(reason) }
                }
                return .uids(found)
            }
            budget = Self.walkBudget(limit)
        }
        while found.count < limit, judged.count < budget, try walk.step() {
            let row = Self.row(walk)
            judged.insert(row.uid)
            if let reason = try judge(row) { return .serverDecides(reason) }
        }
        guard found.count < limit, judged.count >= budget, let narrowing else { return .uids(found) }
        // Matches are rarer than the candidates: the candidates, newest first, after those walked.
        return try judgeCandidates(narrowing, limit: limit)
    }

    /// How many rows a narrowed search for the newest `limit` walks before it judges the FTS
    /// candidates instead.
    static func walkBudget(_ limit: Int) -> Int { 100 + 4 * limit }

    /// The row of `rowid, internal_date, flags, zone, size, modseq`, its text not read.
    private static func row(_ statement: SQLiteConnection.Statement) -> Row {
        Row(
            uid: UInt32(truncatingIfNeeded: statement.int64(0)), flags: flags(statement.text(2)),
            internalDate: IMAPDateTime(
                secondsSinceEpoch: Int(statement.int64(1)), zoneMinutes: Int(statement.int64(3))),
            size: Int(statement.int64(4)), modificationSequence: UInt64(bitPattern: statement.int64(5)), text: nil)
    }

    /// Whether any key, or any key inside NOT, OR or a list, satisfies `test`.
    private static func mentions(_ keys: [SearchKey], _ test: (SearchKey) -> Bool) -> Bool {
        keys.contains { key in
            switch key {
            case .not(let inner): return mentions([inner], test)
            case .or(let left, let right): return mentions([left, right], test)
            case .and(let inner): return mentions(inner, test)
            default: return test(key)
            }
        }
    }

    /// Whether a key is BODY.
    private static func readsBody(_ keys: [SearchKey]) -> Bool {
        mentions(keys) { if case .body = $0 { true } else { false } }
    }

    /// Whether a key looks at the body's text (BODY, TEXT): only those read the body side of
    /// the stored text.
    private static func readsBodyText(_ keys: [SearchKey]) -> Bool {
        mentions(keys) {
            switch $0 {
            case .body, .text: true
            default: false
            }
        }
    }

    /// Whether a key compares the Date header (which is in the stored text).
    static func readsSentDate(_ keys: [SearchKey]) -> Bool {
        mentions(keys) {
            switch $0 {
            case .sentBefore, .sentOn, .sentSince: true
            default: false
            }
        }
    }

    /// A condition on `message.rowid` from the FTS5 tables whose rows include every message
    /// `key` matches (a superset, which the matcher then confirms); nil when the trigrams cannot
    /// narrow it (no text, a term under three characters, a NOT, an OR with such a side).
    indirect enum Narrowing: Equatable, Sendable {
        /// The rows of an FTS5 table that match a query.
        case match(table: String, query: String)
        case all([Narrowing])
        case either(Narrowing, Narrowing)

        /// The condition in SQL, its `?`s standing for ``parameters`` in order.
        var sql: String {
            switch self {
            case .match(let table, _): return "rowid IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?)"
            case .all(let parts): return parts.map(\.sql).joined(separator: " AND ")
            case .either(let left, let right): return "(\(left.sql) OR \(right.sql))"
            }
        }

        var parameters: [String] {
            switch self {
            case .match(_, let query): return [query]
            case .all(let parts): return parts.flatMap(\.parameters)
            case .either(let left, let right): return left.parameters + right.parameters
            }
        }

        /// The candidates' rowids (of every mailbox), ascending, when they are fewer than `cap`;
        /// nil when there are at least that many. Each FTS5 query stops at `cap`, so a frequent
        /// term costs no more than a rare one. Of an AND, the parts that are listed are
        /// intersected (the others only narrow further); an OR is listed when both its sides are.
        /// Sorted arrays, not sets: listing a frequent term's rows is appending, not hashing.
        func candidates(upTo cap: Int, in connection: SQLiteConnection) throws(StoreError) -> [Int64]? {
            switch self {
            case .match(let table, let query):
                let list = try connection.prepare("SELECT rowid FROM \(table) WHERE \(table) MATCH ?1 LIMIT ?2")
                try list.bind(1, query)
                try list.bind(2, Int64(cap))
                var rowids: [Int64] = []
                while try list.step() { rowids.append(list.int64(0)) }
                guard rowids.count < cap else { return nil }
                // FTS5 gives them in rowid order; should it not, they are put in it.
                if zip(rowids, rowids.dropFirst()).contains(where: { $0 >= $1 }) {
                    rowids = Set(rowids).sorted()
                }
                return rowids
            case .all(let parts):
                var listed: [Int64]?
                for part in parts {
                    guard let rowids = try part.candidates(upTo: cap, in: connection) else { continue }
                    listed = listed.map { Self.intersection($0, rowids) } ?? rowids
                }
                return listed
            case .either(let left, let right):
                guard let first = try left.candidates(upTo: cap, in: connection),
                    let second = try right.candidates(upTo: cap, in: connection)
                else { return nil }
                let union = Self.union(first, second)
                return union.count < cap ? union : nil
            }
        }

        /// The rowids two ascending lists share, ascending.
        static func intersection(_ first: [Int64], _ second: [Int64]) -> [Int64] {
            merged(first, second, sharedOnly: true)
        }

        /// The rowids of either ascending list, ascending, each once.
        static func union(_ first: [Int64], _ second: [Int64]) -> [Int64] {
            merged(first, second, sharedOnly: false)
        }

        /// One walk of two ascending lists: the rowids both hold (`sharedOnly`) or either holds,
        /// ascending, each once.
        private static func merged(_ first: [Int64], _ second: [Int64], sharedOnly: Bool) -> [Int64] {
            var result: [Int64] = []
            var (left, right) = (0, 0)
            while left < first.count || right < second.count {
                if sharedOnly && (left == first.count || right == second.count) { break }
                if right == second.count || (left < first.count && first[left] < second[right]) {
                    if !sharedOnly { result.append(first[left]) }
                    left += 1
                } else if left == first.count || second[right] < first[left] {
                    if !sharedOnly { result.append(second[right]) }
                    right += 1
                } else {
                    result.append(first[left])
                    left += 1
                    right += 1
                }
            }
            return result
        }

        /// The rowids of an ascending list within `range`.
        static func within(_ rowids: [Int64], _ range: Range<Int64>) -> [Int64] {
            Array(
                rowids[
                    firstIndex(
                        in: rowids, notBelow: range.lowerBound)..<firstIndex(in: rowids, notBelow: range.upperBound)])
        }

        /// Whether an ascending list holds `rowid`.
        static func contains(_ rowids: [Int64], _ rowid: Int64) -> Bool {
            let index = firstIndex(in: rowids, notBelow: rowid)
            return index < rowids.count && rowids[index] == rowid
        }

        /// The index of the first rowid of an ascending list at or above `rowid` (its count when
        /// none is).
        private static func firstIndex(in rowids: [Int64], notBelow rowid: Int64) -> Int {
            var (low, high) = (0, rowids.count)
            while low < high {
                let middle = (low + high) / 2
                if rowids[middle] < rowid { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    static func narrowing(_ key: SearchKey) -> Narrowing? {
        func terms(_ text: ByteString, table: String, columns: String? = nil) -> Narrowing? {
            let folded = Array(CaseFolding.fold(text.string).unicodeScalars)
            guard folded.count >= 3 else { return nil }
            var trigrams: [String] = []
            for start in 0...(folded.count - 3) {
                var trigram = ""
                trigram.unicodeScalars.append(contentsOf: folded[start..<start + 3])
                let quoted = "\"" + trigram.replacing("\"", with: "\"\"") + "\""
                if !trigrams.contains(quoted) { trigrams.append(quoted) }
            }
            let query = "(\(trigrams.joined(separator: " AND ")))"
            return .match(table: table, query: columns.map { "{\($0)} : \(query)" } ?? query)
        }
        func either(_ left: Narrowing?, _ right: Narrowing?) -> Narrowing? {
            guard let left, let right else { return nil }
            return .either(left, right)
        }
        switch key {
        case .from(let text): return terms(text, table: "message_address", columns: "addr_from")
        case .to(let text): return terms(text, table: "message_address", columns: "addr_to")
        case .cc(let text): return terms(text, table: "message_address", columns: "addr_cc")
        case .bcc(let text): return terms(text, table: "message_address", columns: "addr_bcc")
        case .subject(let text), .header(_, let text): return terms(text, table: "message_header")
        case .body(let text): return terms(text, table: "message_body")
        case .text(let text): return either(terms(text, table: "message_header"), terms(text, table: "message_body"))
        case .and(let keys):
            let parts = keys.compactMap(narrowing)
            if parts.count <= 1 { return parts.first }
            return .all(parts)
        case .or(let left, let right): return either(narrowing(left), narrowing(right))
        default: return nil
        }
    }

    /// A message row as the matcher sees it. The text is read only when a key looks at it.
    private struct Row: SearchableMessage {
        let uid: UInt32
        let flags: [Flag]
        let internalDate: IMAPDateTime
        let size: Int
        let modificationSequence: UInt64
        var text: SearchableText?

        func has(_ flag: Flag) -> Bool { flags.contains(flag) }
        /// Only keys that need the text read it, and then it was read (`needsText`).
        var searchText: SearchableText { text ?? Row.noText }
        static let noText = SearchableText(MIMEMessage(bytes: []))
    }
}
