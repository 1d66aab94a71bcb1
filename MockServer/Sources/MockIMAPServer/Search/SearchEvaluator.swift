import IMAPCore

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

    let candidates: [Candidate]
    /// The largest sequence number and UID, for `*`.
    let largestSequenceNumber: UInt32
    let largestUID: UInt32
    /// Gmail-like matching: a text key matches whole words only.
    let wholeWords: Bool
    let now: Int

    init(record: MailboxRecord, view: SelectedMailboxView, wholeWords: Bool, now: Int) {
        var candidates: [Candidate] = []
        candidates.reserveCapacity(view.uids.count)
        var recordIndex = 0
        for (index, uid) in view.uids.enumerated() {
            while recordIndex < record.messages.count && record.messages[recordIndex].uid < uid { recordIndex += 1 }
            guard recordIndex < record.messages.count, record.messages[recordIndex].uid == uid else { continue }
            candidates.append(
                Candidate(
                    sequenceNumber: UInt32(index + 1), message: record.messages[recordIndex],
                    isRecent: view.recent.contains(uid)))
        }
        self.candidates = candidates
        largestSequenceNumber = UInt32(view.uids.count)
        largestUID = view.uids.last ?? 0
        self.wholeWords = wholeWords
        self.now = now
    }

    /// The candidates that match every key, in sequence-number order.
    func matching(_ keys: [SearchKey]) -> [Candidate] {
        candidates.filter { candidate in keys.allSatisfy { matches($0, candidate) } }
    }

    /// Whether `candidate` matches `key`.
    func matches(_ key: SearchKey, _ candidate: Candidate) -> Bool {
        let stored = candidate.message
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
        case .recent: return candidate.isRecent
        case .new: return candidate.isRecent && !stored.has(.seen)
        case .old: return !candidate.isRecent
        case .from(let text): return address("from", text, message)
        case .to(let text): return address("to", text, message)
        case .cc(let text): return address("cc", text, message)
        case .bcc(let text): return address("bcc", text, message)
        case .subject(let text):
            guard let subject = message.headerText("Subject") else { return false }
            return contains(text, in: subject, message)
        case .header(let field, let value):
            guard let header = message.headerText(field.string) else { return false }
            return value.isEmpty || contains(value, in: header, message)
        case .body(let text): return contains(text, in: message.bodyText, message)
        case .text(let text):
            return contains(text, in: message.allHeadersText, message) || contains(text, in: message.bodyText, message)
                || contains(text, in: message.partHeadersText, message)
        case .before(let date): return stored.internalDate.date < date
        case .on(let date): return stored.internalDate.date == date
        case .since(let date): return stored.internalDate.date >= date
        case .sentBefore(let date): return sentDate(stored) < date
        case .sentOn(let date): return sentDate(stored) == date
        case .sentSince(let date): return sentDate(stored) >= date
        case .larger(let size): return UInt64(message.size) > size
        case .smaller(let size): return UInt64(message.size) < size
        case .uid(let set): return set.contains(stored.uid, largest: largestUID)
        case .sequenceNumbers(let set): return set.contains(candidate.sequenceNumber, largest: largestSequenceNumber)
        case .not(let inner): return !matches(inner, candidate)
        case .or(let left, let right): return matches(left, candidate) || matches(right, candidate)
        case .and(let keys): return keys.allSatisfy { matches($0, candidate) }
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
        return contains(text, in: value, message)
    }

    private func contains(_ text: ByteString, in haystack: String, _ message: IndexedMessage) -> Bool {
        let needle = text.string
        if wholeWords { return Self.containsWord(needle, in: haystack) }
        return message.matchesSubstring(needle, in: haystack)
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
