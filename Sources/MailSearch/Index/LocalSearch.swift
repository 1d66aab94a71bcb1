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

    /// The UIDs of `mailbox` that match every key, as the server's `UID SEARCH` returns them.
    ///
    /// Servers differ on one point the RFCs settle (RFC 5322 2.1): whether BODY finds a word in
    /// the header of an attached message. A sync asks the server which it does and the index
    /// keeps the answer; until then each message is judged both ways and, where the two differ,
    /// the answer is the server's to give (`.serverDecides`), never a guess.
    public func search(
        _ keys: [SearchKey], in mailbox: String, now: Int, serverMatchesWords: Bool = false
    ) async throws(StoreError) -> LocalAnswer {
        if let reason = Self.reasonForServer(keys, serverMatchesWords: serverMatchesWords) {
            return .serverDecides(reason)
        }
        let narrowing = Self.narrowing(.and(keys))
        let needsText = !SearchMatcher.texts(in: keys).isEmpty || Self.readsSentDate(keys)
        let readsBody = Self.readsBody(keys)
        return try await withConnection { (connection) throws(StoreError) -> LocalAnswer in
            let find = try connection.prepare("SELECT id, attached_headers_in_body FROM mailbox WHERE name = ?1")
            try find.bind(1, mailbox)
            guard try find.step() else { return .notIndexed }
            let id = find.int64(0)
            let serverRule: Bool? = find.isNull(1) ? nil : find.int64(1) != 0
            let columns =
                needsText
                ? "rowid, flags, internal_date, zone, size, modseq, text"
                : "rowid, flags, internal_date, zone, size, modseq"
            let range = "rowid >= ?1 AND rowid < ?2"
            let sql =
                if narrowing != nil {
                    "SELECT \(columns) FROM message WHERE \(range) AND rowid IN "
                        + "(SELECT rowid FROM message_text WHERE message_text MATCH ?3) ORDER BY rowid"
                } else {
                    "SELECT \(columns) FROM message WHERE \(range) ORDER BY rowid"
                }
            let largest = try connection.prepare("SELECT max(rowid) FROM message WHERE \(range)")
            try largest.bind(1, id << 32)
            try largest.bind(2, (id + 1) << 32)
            let largestUID = try largest.step() && !largest.isNull(0) ? UInt32(truncatingIfNeeded: largest.int64(0)) : 0
            let statement = try connection.prepare(sql)
            try statement.bind(1, id << 32)
            try statement.bind(2, (id + 1) << 32)
            if let narrowing { try statement.bind(3, narrowing) }
            let matcher = SearchMatcher(
                keys: keys, largestSequenceNumber: 0, largestUID: largestUID, wholeWords: false, now: now,
                attachedHeadersInBody: serverRule ?? true)
            let dovecotLike = SearchMatcher(
                keys: keys, largestSequenceNumber: 0, largestUID: largestUID, wholeWords: false, now: now,
                attachedHeadersInBody: false)
            let judgesBothWays = readsBody && serverRule == nil
            let position = SearchMatcher.Position(sequenceNumber: 0, isRecent: false)
            var found: [UInt32] = []
            while try statement.step() {
                var text: SearchableText?
                if needsText {
                    guard let decoded = SearchableText(encoded: statement.blob(6)) else {
                        throw StoreError(message: "the index \(connection.path) holds a damaged message; drop it")
                    }
                    text = decoded
                }
                let row = Row(
                    uid: UInt32(truncatingIfNeeded: statement.int64(0)), flags: Self.flags(statement.text(1)),
                    internalDate: Self.dateTime(seconds: Int(statement.int64(2)), zoneMinutes: Int(statement.int64(3))),
                    size: Int(statement.int64(4)), modificationSequence: UInt64(bitPattern: statement.int64(5)),
                    text: text)
                let matches = matcher.matches(row, at: position)
                if judgesBothWays, text?.bodyTextWithoutAttachedHeaders != nil,
                    matches != dovecotLike.matches(row, at: position)
                {
                    return .serverDecides(
                        "UID \(row.uid) matches only by a word in an attached message's header, which BODY finds on some servers and not on others"
                    )
                }
                if matches { found.append(row.uid) }
            }
            return .uids(found)
        }
    }

    /// Whether a key is BODY.
    private static func readsBody(_ keys: [SearchKey]) -> Bool {
        keys.contains { key in
            switch key {
            case .body: return true
            case .not(let inner): return readsBody([inner])
            case .or(let left, let right): return readsBody([left, right])
            case .and(let inner): return readsBody(inner)
            default: return false
            }
        }
    }

    /// Whether a key compares the Date header (which is in the stored text).
    private static func readsSentDate(_ keys: [SearchKey]) -> Bool {
        keys.contains { key in
            switch key {
            case .sentBefore, .sentOn, .sentSince: return true
            case .not(let inner): return readsSentDate([inner])
            case .or(let left, let right): return readsSentDate([left, right])
            case .and(let inner): return readsSentDate(inner)
            default: return false
            }
        }
    }

    /// An FTS5 query whose matches include every message `key` matches (a superset, which the
    /// matcher then confirms); nil when the index's trigrams cannot narrow it (no text, a term
    /// under three characters, a NOT, an OR with such a side).
    static func narrowing(_ key: SearchKey) -> String? {
        func terms(_ text: ByteString, columns: String) -> String? {
            let folded = Array(CaseFolding.fold(text.string).unicodeScalars)
            guard folded.count >= 3 else { return nil }
            var trigrams: [String] = []
            for start in 0...(folded.count - 3) {
                var trigram = ""
                trigram.unicodeScalars.append(contentsOf: folded[start..<start + 3])
                let quoted = "\"" + trigram.replacing("\"", with: "\"\"") + "\""
                if !trigrams.contains(quoted) { trigrams.append(quoted) }
            }
            return "{\(columns)} : (\(trigrams.joined(separator: " AND ")))"
        }
        switch key {
        case .from(let text): return terms(text, columns: "addr_from")
        case .to(let text): return terms(text, columns: "addr_to")
        case .cc(let text): return terms(text, columns: "addr_cc")
        case .bcc(let text): return terms(text, columns: "addr_bcc")
        case .subject(let text), .header(_, let text): return terms(text, columns: "headers")
        case .body(let text): return terms(text, columns: "body")
        case .text(let text): return terms(text, columns: "headers body parts")
        case .and(let keys):
            let parts = keys.compactMap(narrowing)
            return parts.isEmpty ? nil : parts.map { "(\($0))" }.joined(separator: " AND ")
        case .or(let left, let right):
            guard let left = narrowing(left), let right = narrowing(right) else { return nil }
            return "(\(left)) OR (\(right))"
        default: return nil
        }
    }

    /// An INTERNALDATE from its instant and zone.
    static func dateTime(seconds: Int, zoneMinutes: Int) -> IMAPDateTime {
        let local = seconds + zoneMinutes * 60
        let days = local >= 0 ? local / 86400 : (local - 86399) / 86400
        let within = local - days * 86400
        let date = IMAPDate(daysSinceEpoch: days)
        return IMAPDateTime(
            date: date, hour: within / 3600, minute: within % 3600 / 60, second: within % 60, zoneMinutes: zoneMinutes)
            ?? IMAPDateTime(date: date, hour: 0, minute: 0, second: 0, zoneMinutes: 0)!
    }

    /// A message row as the matcher sees it. The text is read only when a key looks at it.
    private struct Row: SearchableMessage {
        let uid: UInt32
        let flags: [Flag]
        let internalDate: IMAPDateTime
        let size: Int
        let modificationSequence: UInt64
        let text: SearchableText?

        func has(_ flag: Flag) -> Bool { flags.contains(flag) }
        /// Only keys that need the text read it, and then it was read (`needsText`).
        var searchText: SearchableText { text ?? Row.noText }
        static let noText = SearchableText(MIMEMessage(bytes: []))
    }
}
