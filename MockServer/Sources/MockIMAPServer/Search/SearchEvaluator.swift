import IMAPCore
import SearchSemantics

/// A session's SEARCH over its mailbox view: which messages it sees, at which sequence numbers,
/// which are recent. What each key means is decided in one place, `SearchSemantics.SearchMatcher`
/// (which the local index uses too), over the text IndexedMessage decoded when the message was
/// stored, so a search never parses MIME.
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
        let matcher = SearchMatcher(
            keys: keys, largestSequenceNumber: largestSequenceNumber, largestUID: largestUID, wholeWords: wholeWords,
            now: now)
        var found: [Candidate] = []
        for position in positions {
            let message = record.messages[position.index]
            let isRecent = recent.contains(message.uid)
            let at = SearchMatcher.Position(sequenceNumber: position.sequenceNumber, isRecent: isRecent)
            guard matcher.matches(message, at: at) else { continue }
            found.append(Candidate(sequenceNumber: position.sequenceNumber, message: message, isRecent: isRecent))
        }
        return found
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
