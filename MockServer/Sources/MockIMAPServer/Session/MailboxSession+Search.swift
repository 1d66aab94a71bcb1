import IMAPCore

extension MailboxSession {
    // RFC 3501 6.4.4, RFC 4731 ESEARCH, RFC 7162 3.1.5 (MODSEQ)
    /// ```
    /// C: a9 UID SEARCH RETURN (MIN MAX COUNT) CHARSET UTF-8 FROM "grace" SINCE 1-Jan-2025
    /// S: * ESEARCH (TAG "a9") UID MIN 4 MAX 982 COUNT 31
    /// S: a9 OK SEARCH completed
    /// ```
    mutating func search(
        _ keys: [SearchKey], charset: String?, returnOptions: [SearchReturnOption]?, byUID: Bool, tag: String
    ) -> Reply {
        guard let view = selected else { return .bad("no mailbox is selected") }
        if let refusal = charsetRefusal(charset) { return refusal }
        if let refusal = SearchEvaluator.unsupportedKey(in: keys, profile: profile) { return .bad(refusal) }
        if let returnOptions, returnOptions.contains(.save) {
            return .bad("RETURN (SAVE) needs SEARCHRES, which this server does not announce")
        }
        let usesModificationSequence = SearchEvaluator.usesModificationSequence(keys)
        if usesModificationSequence { condStoreEnabled = true }
        guard let record = store.snapshot(user: user, mailbox: view.name) else {
            return .no("the mailbox is gone", code: Self.code("NONEXISTENT"))
        }
        let evaluator = SearchEvaluator(record: record, view: view, wholeWords: profile == .gmailLike, now: now())
        let matches = evaluator.matching(keys)
        let found = matches.map {
            (number: byUID ? $0.message.uid : $0.sequenceNumber, $0.message.modificationSequence)
        }
        if let returnOptions {
            return .ok(
                "SEARCH completed",
                untagged: [
                    .untagged(
                        .extendedSearch(
                            Self.extendedSearch(
                                found, options: returnOptions, byUID: byUID, tag: tag,
                                reportsModificationSequence: usesModificationSequence)))
                ])
        }
        let highest = usesModificationSequence ? matches.map(\.message.modificationSequence).max() : nil
        return .ok(
            "SEARCH completed", untagged: [.untagged(.search(found.map(\.number), modificationSequence: highest))])
    }

    /// The ESEARCH answer for the messages `found` (ascending by number, with their
    /// mod-sequences): `RETURN ()` means ALL; MIN, MAX and ALL are left out when nothing matched
    /// (RFC 4731 3.1).
    ///
    /// With a MODSEQ search key, MODSEQ is the mod-sequence of the messages returned (RFC 4731
    /// 3.2): of the one message for MIN or MAX alone, the higher of the two for MIN and MAX, the
    /// highest of all found once COUNT or ALL is asked for; none when nothing matched.
    /// ```
    /// C: a3 SEARCH RETURN (MIN MAX) MODSEQ "/flags/\\draft" all 620162338
    /// S: * ESEARCH (TAG "a3") MIN 2 MAX 23 MODSEQ 917162488
    /// ```
    static func extendedSearch(
        _ found: [(number: UInt32, modificationSequence: UInt64)], options: [SearchReturnOption], byUID: Bool,
        tag: String, reportsModificationSequence: Bool
    ) -> ExtendedSearchResponse {
        let wanted = options.isEmpty ? [.all] : options
        var result = ExtendedSearchResponse(tag: tag, isUID: byUID)
        let first = found.first
        let last = found.last
        if wanted.contains(.min) { result.min = first?.number }
        if wanted.contains(.max) { result.max = last?.number }
        if wanted.contains(.count) { result.count = UInt32(found.count) }
        if wanted.contains(.all) && !found.isEmpty { result.all = SequenceSet(numbers: found.map(\.number)) }
        if reportsModificationSequence {
            if wanted.contains(.all) || wanted.contains(.count) {
                result.modificationSequence = found.map(\.modificationSequence).max()
            } else {
                var returned: [UInt64] = []
                if wanted.contains(.min), let first { returned.append(first.modificationSequence) }
                if wanted.contains(.max), let last { returned.append(last.modificationSequence) }
                result.modificationSequence = returned.max()
            }
        }
        return result
    }

    // RFC 5256 SORT
    /// ```
    /// C: b1 UID SORT (REVERSE ARRIVAL) UTF-8 FROM "bob"
    /// S: * SORT 902 877 31
    /// S: b1 OK SORT completed
    /// ```
    mutating func sort(
        _ criteria: [SortCriterion], keys: [SearchKey], charset: String, returnOptions: [SearchReturnOption]?,
        byUID: Bool
    ) -> Reply {
        guard let view = selected else { return .bad("no mailbox is selected") }
        if returnOptions != nil { return .bad("SORT RETURN needs ESORT, which this server does not announce") }
        if let display = criteria.first(where: { $0.key == .displayFrom || $0.key == .displayTo }),
            !has(.sortDisplay)
        {
            return .bad("\(display.key.name) needs SORT=DISPLAY, which this server does not announce")
        }
        if let refusal = charsetRefusal(charset) { return refusal }
        if let refusal = SearchEvaluator.unsupportedKey(in: keys, profile: profile) { return .bad(refusal) }
        let usesModificationSequence = SearchEvaluator.usesModificationSequence(keys)
        if usesModificationSequence { condStoreEnabled = true }
        guard let record = store.snapshot(user: user, mailbox: view.name) else {
            return .no("the mailbox is gone", code: Self.code("NONEXISTENT"))
        }
        let evaluator = SearchEvaluator(record: record, view: view, wholeWords: profile == .gmailLike, now: now())
        let sorted = SortOrder(criteria: criteria).sorted(evaluator.matching(keys))
        let numbers = sorted.map { byUID ? $0.message.uid : $0.sequenceNumber }
        let highest = usesModificationSequence ? sorted.map(\.message.modificationSequence).max() : nil
        return .ok("SORT completed", untagged: [.untagged(.sort(numbers, modificationSequence: highest))])
    }

    /// `NO [BADCHARSET (...)]` for a charset the server does not search in (RFC 3501 6.4.4).
    func charsetRefusal(_ charset: String?) -> Reply? {
        guard let charset else { return nil }
        let name = charset.uppercased()
        if profile == .exchangeLike {
            return name == "US-ASCII" ? nil : .no("only US-ASCII can be searched", code: .badCharset(["US-ASCII"]))
        }
        guard name == "UTF-8" || name == "US-ASCII" else {
            return .no("\(charset) is not supported", code: .badCharset(["UTF-8", "US-ASCII"]))
        }
        return nil
    }
}
