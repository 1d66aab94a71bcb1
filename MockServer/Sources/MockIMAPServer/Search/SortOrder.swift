import IMAPCore
import MailMIME

/// SORT (RFC 5256, RFC 5957): orders search results by ARRIVAL, CC, DATE, FROM, SIZE, SUBJECT,
/// TO, DISPLAYFROM or DISPLAYTO, each optionally REVERSE, with ties broken by sequence number.
///
/// Text keys compare with i;ascii-casemap (RFC 4790 9.2), the collation RFC 5256 requires: a-z
/// become A-Z, then octets compare, so `_` (0x5F) sorts after every letter and `[` (0x5B) after
/// `Z`. The address keys read the ENVELOPE (RFC 3501 7.4.2) of the message:
///
/// - FROM, TO, CC: the addr-mailbox of the first address of the field (for a group, its name, as
///   the group's first ENVELOPE entry carries it; for an address missing its local part,
///   `MISSING_MAILBOX`).
/// - DISPLAYFROM, DISPLAYTO: the effective display name of RFC 5957 3: the addr-name with RFC
///   2047 words decoded when not empty, else `mailbox@host`; for a group, the group's name, as
///   Dovecot sorts it; without a To or From, the empty string.
///
/// ```
/// C: s1 SORT (REVERSE SUBJECT DATE) US-ASCII ALL
/// S: * SORT 4 8 2 7 6 3 5 1 9
/// ```
struct SortOrder {
    let criteria: [SortCriterion]

    /// The sort values of one message, computed once.
    private struct Keys {
        let candidate: SearchEvaluator.Candidate
        var values: [Value]
    }

    private enum Value: Comparable {
        case number(Int)
        /// Collation keys (i;ascii-casemap), compared octet by octet.
        case text([UInt8])

        static func < (left: Value, right: Value) -> Bool {
            switch (left, right) {
            case (.number(let a), .number(let b)): return a < b
            case (.text(let a), .text(let b)): return a.lexicographicallyPrecedes(b)
            case (.number, .text): return true
            case (.text, .number): return false
            }
        }
    }

    /// `candidates` in SORT order.
    func sorted(_ candidates: [SearchEvaluator.Candidate]) -> [SearchEvaluator.Candidate] {
        let keyed = candidates.map { candidate in
            Keys(candidate: candidate, values: criteria.map { Self.value(of: $0.key, candidate.message) })
        }
        return keyed.sorted { left, right in
            for (index, criterion) in criteria.enumerated() {
                let (a, b) = (left.values[index], right.values[index])
                if a == b { continue }
                return criterion.reversed ? b < a : a < b
            }
            // RFC 5256 3: ties go by sequence number, ascending, whatever REVERSE says.
            return left.candidate.sequenceNumber < right.candidate.sequenceNumber
        }.map(\.candidate)
    }

    private static func value(of key: SortCriterion.Key, _ stored: StoredMessage) -> Value {
        let message = stored.message
        switch key {
        case .arrival: return .number(stored.internalDate.secondsSinceEpoch)
        // RFC 5256 2.2: the Date header in UTC; without a usable one, the INTERNALDATE.
        case .date: return .number(message.sentTimestamp ?? stored.internalDate.secondsSinceEpoch)
        case .size: return .number(message.size)
        case .subject:
            return .text(collationKey(BaseSubject.extract(Array((message.firstHeaderText("Subject") ?? "").utf8))))
        case .from: return .text(collationKey(firstMailbox(message.envelope.from)))
        case .to: return .text(collationKey(firstMailbox(message.envelope.to)))
        case .cc: return .text(collationKey(firstMailbox(message.envelope.cc)))
        case .displayFrom: return .text(collationKey(effectiveDisplayName(message.envelope.from.first)))
        case .displayTo: return .text(collationKey(effectiveDisplayName(message.envelope.to.first)))
        }
    }

    /// RFC 5256 3: "addr-mailbox of the first ... address"; "" when the field is absent.
    private static func firstMailbox(_ addresses: [Address]) -> [UInt8] {
        addresses.first?.mailbox.map { Array($0.bytes) } ?? []
    }

    /// RFC 5957 3: the effective display name of an ENVELOPE address.
    static func effectiveDisplayName(_ address: Address?) -> [UInt8] {
        guard let address else { return [] }
        if let name = address.name, !name.isEmpty {
            let decoded = EncodedWords.decode(Array(name.bytes))
            if !decoded.isEmpty { return Array(decoded.utf8) }
        }
        guard let mailbox = address.mailbox else { return [] }
        // No host: the start of a group (RFC 3501 7.4.2), whose mailbox field holds the group's
        // name; Dovecot sorts a group by that name, and so does this (imaptest's sort-display-to).
        guard let host = address.host else { return Array(mailbox.bytes) }
        return Array(mailbox.bytes) + [UInt8(ascii: "@")] + Array(host.bytes)
    }

    /// The i;ascii-casemap collation key (RFC 4790 9.2): a-z mapped to A-Z; other octets as they
    /// are (so "Ü" sorts after every ASCII letter, by its UTF-8 octets).
    static func collationKey(_ text: [UInt8]) -> [UInt8] {
        text.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") ? $0 - 32 : $0 }
    }
}

/// The base subject of RFC 5256 2.1, which SORT SUBJECT compares.
package enum BaseSubject {
    /// The base subject of `subject` (RFC 2047 words already decoded).
    package static func extract(from subject: String) -> String {
        String(decoding: extract(Array(subject.utf8)), as: UTF8.self)
    }

    // subject     = *subj-leader [subj-middle] *subj-trailer
    // subj-middle = *subj-blob (subj-base / subj-fwd)
    /// The base subject, following the steps of RFC 5256 2.1 on the UTF-8 octets (the grammar's
    /// literals match ASCII-case-insensitively).
    static func extract(_ subject: [UInt8]) -> [UInt8] {
        // (1) Tabs and line breaks become spaces; runs of spaces become one.
        var text: [UInt8] = []
        text.reserveCapacity(subject.count)
        for byte in subject {
            let isSpace = byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
            if isSpace {
                if text.last != 0x20 { text.append(0x20) }
            } else {
                text.append(byte)
            }
        }
        var start = 0
        var end = text.count
        while true {
            // (2) Remove subj-trailers ("(fwd)" / WSP) from the end until none is left.
            while end > start {
                if text[end - 1] == 0x20 {
                    end -= 1
                } else if end - start >= 5, matches("(fwd)", text, at: end - 5) {
                    end -= 5
                } else {
                    break
                }
            }
            // (3)-(5) Remove subj-leaders, and subj-blobs that leave a non-empty base, until
            // neither is left.
            var changed = true
            while changed {
                changed = false
                if let after = leaderEnd(text, start, end) {
                    start = after
                    changed = true
                }
                if let after = blobEnd(text, start, end), after < end {
                    start = after
                    changed = true
                }
            }
            // (6) subj-fwd-hdr ... subj-fwd-trl: remove both and go again from (2).
            if end - start >= 6, matches("[fwd:", text, at: start), text[end - 1] == UInt8(ascii: "]") {
                start += 5
                end -= 1
                continue
            }
            return Array(text[start..<end])
        }
    }

    /// Whether `text` has `literal` (lower case ASCII) at `index`, ignoring ASCII case.
    private static func matches(_ literal: StaticString, _ text: [UInt8], at index: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index >= 0, index + count <= text.count else { return false }
        return literal.withUTF8Buffer { expected in
            for offset in 0..<count {
                var byte = text[index + offset]
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
                if byte != expected[offset] { return false }
            }
            return true
        }
    }

    // subj-leader = (*subj-blob subj-refwd) / WSP
    // subj-refwd  = ("re" / ("fw" ["d"])) *WSP [subj-blob] ":"
    /// The index after the subj-leader at `start`, or nil when there is none.
    private static func leaderEnd(_ text: [UInt8], _ start: Int, _ end: Int) -> Int? {
        guard start < end else { return nil }
        if text[start] == 0x20 { return start + 1 }
        var index = start
        while let after = blobEnd(text, index, end) { index = after }
        if matches("re", text, at: index) {
            index += 2
        } else if matches("fw", text, at: index) {
            index += 2
            if index < end, text[index] | 0x20 == UInt8(ascii: "d") { index += 1 }
        } else {
            return nil
        }
        while index < end, text[index] == 0x20 { index += 1 }
        if let after = blobEnd(text, index, end) { index = after }
        guard index < end, text[index] == UInt8(ascii: ":") else { return nil }
        return index + 1
    }

    // subj-blob = "[" *BLOBCHAR "]" *WSP
    // BLOBCHAR  = %x01-5a / %x5c / %x5e-ff
    /// The index after the subj-blob at `start`, or nil when there is none.
    private static func blobEnd(_ text: [UInt8], _ start: Int, _ end: Int) -> Int? {
        guard start < end, text[start] == UInt8(ascii: "[") else { return nil }
        var index = start + 1
        while index < end, text[index] != UInt8(ascii: "]") {
            guard text[index] != UInt8(ascii: "["), text[index] != 0 else { return nil }
            index += 1
        }
        guard index < end else { return nil }
        index += 1
        while index < end, text[index] == 0x20 { index += 1 }
        return index
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
