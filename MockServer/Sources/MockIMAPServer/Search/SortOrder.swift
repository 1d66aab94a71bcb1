import IMAPCore

/// SORT (RFC 5256): orders search results by ARRIVAL, CC, DATE, FROM, SIZE, SUBJECT or TO, each
/// optionally REVERSE, with ties broken by sequence number.
struct SortOrder {
    let criteria: [SortCriterion]

    /// The sort values of one message, computed once.
    private struct Keys {
        let candidate: SearchEvaluator.Candidate
        var values: [Value]
    }

    private enum Value: Comparable {
        case number(Int)
        case text(String)
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
            return left.candidate.sequenceNumber < right.candidate.sequenceNumber
        }.map(\.candidate)
    }

    private static func value(of key: SortCriterion.Key, _ stored: StoredMessage) -> Value {
        let message = stored.message
        switch key {
        case .arrival: return .number(stored.internalDate.secondsSinceEpoch)
        case .date: return .number(message.sentTimestamp ?? stored.internalDate.secondsSinceEpoch)
        case .size: return .number(message.size)
        case .subject: return .text(asciiLowercased(BaseSubject.extract(from: message.headerText("Subject") ?? "")))
        // RFC 5256: the addr-mailbox (local part) of the first address.
        case .from: return .text(firstMailbox(message.envelope.from))
        case .to: return .text(firstMailbox(message.envelope.to))
        case .cc: return .text(firstMailbox(message.envelope.cc))
        case .displayFrom: return .text(displayName(message.envelope.from))
        case .displayTo: return .text(displayName(message.envelope.to))
        }
    }

    private static func firstMailbox(_ addresses: [Address]) -> String {
        asciiLowercased(addresses.first { $0.host != nil }?.mailbox?.string ?? "")
    }

    private static func displayName(_ addresses: [Address]) -> String {
        guard let first = addresses.first(where: { $0.host != nil }) else { return "" }
        if let name = first.name, !name.isEmpty { return asciiLowercased(name.string) }
        return asciiLowercased(first.emailAddress ?? "")
    }

    /// The i;ascii-casemap collation RFC 5256 sorts with: only A-Z fold; "Ü" stays "Ü" (and so
    /// sorts after every ASCII letter, by its UTF-8 octets).
    static func asciiLowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return text }
        return String(
            decoding: text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }, as: UTF8.self
        )
    }
}

/// The base subject of RFC 5256 2.1, which SORT SUBJECT compares.
package enum BaseSubject {
    /// The base subject of RFC 5256 2.1: without `Re:`, `Fwd:`, `[list]` prefixes, `(fwd)`
    /// trailers and `[Fwd: ...]` wrappers, white space collapsed.
    package static func extract(from subject: String) -> String {
        // (1) white space runs become one space.
        var text = subject.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
            .joined(separator: " ")
        while true {
            // (2) trailing "(fwd)" and white space.
            var changed = true
            while changed {
                changed = false
                while text.hasSuffix(" ") {
                    text.removeLast()
                    changed = true
                }
                if text.lowercased().hasSuffix("(fwd)") {
                    text.removeLast(5)
                    changed = true
                }
            }
            // (3)-(5) leading subj-leader and subj-blob, repeatedly.
            changed = true
            while changed {
                changed = false
                if let rest = removingLeader(text) {
                    text = rest
                    changed = true
                }
                if let rest = removingBlob(text), !rest.isEmpty {
                    text = rest
                    changed = true
                }
            }
            // (6) "[fwd:" ... "]" wrapper.
            let lowered = text.lowercased()
            if lowered.hasPrefix("[fwd:") && text.hasSuffix("]") {
                text = String(text.dropFirst(5).dropLast())
                continue
            }
            return text.trimmingSpaces
        }
    }

    /// `subj-leader = (*subj-blob subj-refwd) / WSP`, `subj-refwd = ("re" / ("fw" ["d"])) *WSP [subj-blob] ":"`.
    private static func removingLeader(_ text: String) -> String? {
        if text.hasPrefix(" ") { return String(text.dropFirst()) }
        var rest = Substring(text)
        while let afterBlob = blobEnd(rest) { rest = afterBlob }
        let lowered = rest.lowercased()
        var consumed: Int
        if lowered.hasPrefix("re") {
            consumed = 2
        } else if lowered.hasPrefix("fwd") {
            consumed = 3
        } else if lowered.hasPrefix("fw") {
            consumed = 2
        } else {
            return nil
        }
        var after = rest.dropFirst(consumed)
        while after.first == " " { after = after.dropFirst() }
        if let afterBlob = blobEnd(after) { after = afterBlob }
        guard after.first == ":" else { return nil }
        return String(after.dropFirst())
    }

    private static func removingBlob(_ text: String) -> String? {
        blobEnd(Substring(text)).map(String.init)
    }

    /// After `subj-blob = "[" *BLOBCHAR "]" *WSP` at the start, or nil when there is none.
    private static func blobEnd(_ text: Substring) -> Substring? {
        guard text.first == "[", let close = text.firstIndex(of: "]") else { return nil }
        guard !text[text.index(after: text.startIndex)..<close].contains("[") else { return nil }
        var rest = text[text.index(after: close)...]
        while rest.first == " " { rest = rest.dropFirst() }
        return rest
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
