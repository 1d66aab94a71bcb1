import IMAPCore
import MailMIME

/// Decides which messages match SEARCH keys, with the meaning RFC 3501 6.4.4 gives each key.
///
/// Text keys compare case-insensitively against the decoded text IndexedMessage built when the
/// message was stored (RFC 2047 words decoded, transfer encodings undone, charsets converted), so
/// a search never parses MIME. FROM, TO, CC and BCC match anywhere in the field's ENVELOPE
/// addresses written out (`"Grace Jones" <grace@apple.com>`, names RFC 2047 decoded; see
/// `IndexedMessage.addressText`), so names and whole addresses are found alike; HEADER with an
/// empty string tests presence; TEXT looks at the headers and the body. Dates are compared by day: BEFORE/ON/SINCE on the received date,
/// SENTBEFORE/SENTON/SENTSINCE on the Date header (the received date when there is none).
struct SearchEvaluator {
    /// A message as this session sees it.
    struct Candidate {
        let sequenceNumber: UInt32
        let message: StoredMessage
        let isRecent: Bool
    }

    /// A message this session sees: its sequence number and its index in `record.messages`.
    /// Searching walks these and reads each message in place; only matches become candidates
    /// (a copy of a stored message retains each of its buffers).
    private struct Position {
        let sequenceNumber: UInt32
        let index: Int
    }

    private let record: MailboxRecord
    private let positions: [Position]
    private let recent: Set<UInt32>
    /// The largest sequence number and UID, for `*`.
    let largestSequenceNumber: UInt32
    let largestUID: UInt32
    /// Gmail-like matching: a text key matches whole words only.
    let wholeWords: Bool
    let now: Int
    /// The text keys' strings, case folded once per search.
    private var patterns: [(text: ByteString, pattern: [UInt32])] = []

    init(record: MailboxRecord, view: SelectedMailboxView, wholeWords: Bool, now: Int) {
        var positions: [Position] = []
        positions.reserveCapacity(view.uids.count)
        var recordIndex = 0
        for (index, uid) in view.uids.enumerated() {
            while recordIndex < record.messages.count && record.messages[recordIndex].uid < uid { recordIndex += 1 }
            guard recordIndex < record.messages.count, record.messages[recordIndex].uid == uid else { continue }
            positions.append(Position(sequenceNumber: UInt32(index + 1), index: recordIndex))
        }
        self.record = record
        self.positions = positions
        self.recent = view.recent
        largestSequenceNumber = UInt32(view.uids.count)
        largestUID = view.uids.last ?? 0
        self.wholeWords = wholeWords
        self.now = now
    }

    /// The candidates that match every key, in sequence-number order.
    func matching(_ keys: [SearchKey]) -> [Candidate] {
        var search = self
        for key in keys { search.addPatterns(of: key) }
        var found: [Candidate] = []
        for position in positions where keys.allSatisfy({ search.matches($0, position) }) {
            let message = record.messages[position.index]
            found.append(
                Candidate(
                    sequenceNumber: position.sequenceNumber, message: message, isRecent: recent.contains(message.uid)))
        }
        return found
    }

    /// Folds the strings of `key`'s text keys.
    private mutating func addPatterns(of key: SearchKey) {
        switch key {
        case .from(let text), .to(let text), .cc(let text), .bcc(let text), .subject(let text), .body(let text),
            .text(let text), .header(_, let text):
            if !patterns.contains(where: { $0.text == text }) {
                patterns.append((text, CaseFolding.pattern(text.string)))
            }
        case .not(let inner): addPatterns(of: inner)
        case .or(let left, let right):
            addPatterns(of: left)
            addPatterns(of: right)
        case .and(let keys): for inner in keys { addPatterns(of: inner) }
        default: break
        }
    }

    /// Whether the message at `position` matches `key`.
    private func matches(_ key: SearchKey, _ position: Position) -> Bool {
        let stored = record.messages[position.index]
        let message = stored.message
        switch key {
        case .all: return true
        case .answered: return stored.has(.answered)
        case .deleted: return stored.has(.deleted)
        case .draft: return stored.has(.draft)
        case .flagged: return stored.has(.flagged)
        case .seen: return stored.has(.seen)
        case .unanswered: return !stored.has(.answered)
        case .undeleted: return !stored.has(.deleted)
        case .undraft: return !stored.has(.draft)
        case .unflagged: return !stored.has(.flagged)
        case .unseen: return !stored.has(.seen)
        case .keyword(let flag): return stored.has(flag)
        case .unkeyword(let flag): return !stored.has(flag)
        case .recent: return recent.contains(stored.uid)
        case .new: return recent.contains(stored.uid) && !stored.has(.seen)
        case .old: return !recent.contains(stored.uid)
        case .from(let text): return address("from", text, message)
        case .to(let text): return address("to", text, message)
        case .cc(let text): return address("cc", text, message)
        case .bcc(let text): return address("bcc", text, message)
        case .subject(let text):
            if let subject = message.soleHeaderValue(lowercasedName: "subject") { return contains(text, in: subject) }
            guard let subject = message.headerText("Subject") else { return false }
            return contains(text, in: subject[...])
        case .header(let field, let value):
            guard let header = message.headerText(field.string) else { return false }
            return value.isEmpty || contains(value, in: header[...])
        case .body(let text): return contains(text, in: message.bodyText[...])
        case .text(let text):
            return contains(text, in: message.allHeadersText[...]) || contains(text, in: message.bodyText[...])
                || contains(text, in: message.partHeadersText[...])
        case .before(let date): return stored.internalDate.date < date
        case .on(let date): return stored.internalDate.date == date
        case .since(let date): return stored.internalDate.date >= date
        case .sentBefore(let date): return sentDate(stored) < date
        case .sentOn(let date): return sentDate(stored) == date
        case .sentSince(let date): return sentDate(stored) >= date
        case .larger(let size): return UInt64(message.size) > size
        case .smaller(let size): return UInt64(message.size) < size
        case .uid(let set): return set.contains(stored.uid, largest: largestUID)
        case .sequenceNumbers(let set): return set.contains(position.sequenceNumber, largest: largestSequenceNumber)
        case .not(let inner): return !matches(inner, position)
        case .or(let left, let right): return matches(left, position) || matches(right, position)
        case .and(let keys): return keys.allSatisfy { matches($0, position) }
        case .modificationSequence(let value): return stored.modificationSequence >= value.value
        case .younger(let seconds): return now - stored.internalDate.secondsSinceEpoch <= Int(seconds)
        case .older(let seconds): return now - stored.internalDate.secondsSinceEpoch > Int(seconds)
        case .gmailRaw(let query):
            // Plain words, each anywhere in the message as a whole word.
            let words = query.string.split(whereSeparator: { $0 == " " || $0 == "\"" })
            return words.allSatisfy { word in
                let needle = String(word)
                return Self.containsWord(needle, in: message.allHeadersText)
                    || Self.containsWord(needle, in: message.bodyText)
            }
        case .filter, .savedBefore, .savedOn, .savedSince, .savedDateSupported:
            // Refused before evaluation (see `unsupportedKey`).
            return false
        }
    }

    private func address(_ field: String, _ text: ByteString, _ message: IndexedMessage) -> Bool {
        guard let value = message.addressText[field] else { return false }
        return contains(text, in: value[...])
    }

    /// Whether `haystack` contains `text` ignoring case (``IndexedMessage/matchesSubstring(_:in:)``),
    /// with the needle folded once per search; whole words only when Gmail-like.
    private func contains(_ text: ByteString, in haystack: Substring) -> Bool {
        if wholeWords { return Self.containsWord(text.string, in: String(haystack)) }
        let pattern = patterns.first { $0.text == text }?.pattern ?? CaseFolding.pattern(text.string)
        return CaseFolding.contains(haystack, folded: pattern)
    }

    private func sentDate(_ stored: StoredMessage) -> IMAPDate {
        stored.message.sentDate ?? stored.internalDate.date
    }

    /// Whether `needle` occurs in `haystack`, ignoring case, with no letter or digit right before
    /// or after it (Gmail matches words, not substrings).
    static func containsWord(_ needle: String, in haystack: String) -> Bool {
        let needle = Array(needle.lowercased().unicodeScalars)
        guard !needle.isEmpty else { return true }
        let text = Array(haystack.lowercased().unicodeScalars)
        guard text.count >= needle.count else { return false }
        func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        }
        var start = 0
        while start + needle.count <= text.count {
            if text[start] == needle[0] && Array(text[start..<start + needle.count]) == needle {
                let before = start == 0 || !isWordCharacter(text[start - 1])
                let end = start + needle.count
                let after = end == text.count || !isWordCharacter(text[end])
                if before && after { return true }
            }
            start += 1
        }
        return false
    }

    /// The first key this server refuses (RFC 5466 FILTER, RFC 8514 SAVEDATE, WITHIN or X-GM-RAW
    /// when the profile lacks them), as text for a BAD response.
    static func unsupportedKey(in keys: [SearchKey], profile: Profile) -> String? {
        for key in keys {
            if let refusal = unsupportedKey(key, profile: profile) { return refusal }
        }
        return nil
    }

    private static func unsupportedKey(_ key: SearchKey, profile: Profile) -> String? {
        let capabilities = profile.capabilities
        switch key {
        case .not(let inner): return unsupportedKey(inner, profile: profile)
        case .or(let left, let right):
            return unsupportedKey(left, profile: profile) ?? unsupportedKey(right, profile: profile)
        case .and(let keys): return unsupportedKey(in: keys, profile: profile)
        case .filter: return "FILTER is not supported (no FILTERS capability)"
        case .savedBefore, .savedOn, .savedSince, .savedDateSupported:
            return "SAVEDBEFORE, SAVEDON, SAVEDSINCE and SAVEDATESUPPORTED need SAVEDATE, which is not announced"
        case .younger, .older:
            return capabilities.contains(.within) ? nil : "YOUNGER and OLDER need WITHIN, which is not announced"
        case .modificationSequence:
            return capabilities.contains(.condstore) ? nil : "MODSEQ needs CONDSTORE, which is not announced"
        case .gmailRaw:
            return capabilities.contains(.gmailExtensions) ? nil : "X-GM-RAW needs X-GM-EXT-1, which is not announced"
        case .uid(let set), .sequenceNumbers(let set):
            return set.isLastSearchResult ? "$ (a saved search result) needs SEARCHRES, which is not announced" : nil
        case .all, .answered, .bcc, .before, .body, .cc, .deleted, .draft, .flagged, .from, .header, .keyword, .larger,
            .new, .old, .on, .recent, .seen, .sentBefore, .sentOn, .sentSince, .since, .smaller, .subject, .text, .to,
            .unanswered, .undeleted, .undraft, .unflagged, .unkeyword, .unseen:
            return nil
        }
    }

    /// Whether any key is MODSEQ (the result then carries the highest mod-sequence, RFC 7162 3.1.5).
    static func usesModificationSequence(_ keys: [SearchKey]) -> Bool {
        keys.contains { key in
            switch key {
            case .modificationSequence: return true
            case .not(let inner): return usesModificationSequence([inner])
            case .or(let left, let right): return usesModificationSequence([left, right])
            case .and(let keys): return usesModificationSequence(keys)
            case .all, .answered, .bcc, .before, .body, .cc, .deleted, .draft, .flagged, .from, .header, .keyword,
                .larger, .new, .old, .on, .recent, .seen, .sentBefore, .sentOn, .sentSince, .since, .smaller, .subject,
                .text, .to, .uid, .unanswered, .undeleted, .undraft, .unflagged, .unkeyword, .unseen, .sequenceNumbers,
                .younger, .older, .gmailRaw, .filter, .savedBefore, .savedOn, .savedSince, .savedDateSupported:
                return false
            }
        }
    }
}
