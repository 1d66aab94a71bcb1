import IMAPCore

/// The selected mailbox as the server has described it, kept true from every response: counts,
/// UIDVALIDITY, HIGHESTMODSEQ, and the map from sequence numbers to UIDs, so that an EXPUNGE
/// (which names only a sequence number) can be reported by UID.
///
/// It does no I/O; `ClientStateMachine` feeds it responses and collects the events it returns.
struct MailboxTracker: Sendable {
    /// What callers see.
    private(set) var mailbox: SelectedMailbox
    /// `uids[n - 1]` is the UID of sequence number n, or 0 while it is not known.
    private(set) var uids: [UInt32] = []
    /// How many entries of `uids` are still 0.
    private(set) var unknownCount = 0
    /// How many times messages came or went (EXISTS with a new count, EXPUNGE, VANISHED): a
    /// list of every UID read between two equal values is still the mailbox's.
    private(set) var membershipChanges = 0
    /// `membershipChanges` when the SELECT completed (its own EXISTS counted before).
    private var membershipAtSelect = 0
    /// How many times messages came or went since the SELECT completed.
    var membershipChangesSinceSelect: Int { membershipChanges - membershipAtSelect }

    init(_ mailbox: SelectedMailbox) { self.mailbox = mailbox }

    /// The SELECT (or EXAMINE) completed: what came in its answer is the mailbox as selected.
    mutating func markSelected() { membershipAtSelect = membershipChanges }

    /// Whether every sequence number's UID is known.
    var isMapComplete: Bool { unknownCount == 0 && uids.count == Int(mailbox.messageCount) }

    /// The UID of sequence number `number`, when known.
    func uid(atSequenceNumber number: UInt32) -> UInt32? {
        guard number >= 1, Int(number) <= uids.count else { return nil }
        let uid = uids[Int(number) - 1]
        return uid == 0 ? nil : uid
    }

    /// The largest UID the map knows.
    var largestKnownUID: UInt32? { uids.last { $0 != 0 } }

    /// Sets the whole map from the mailbox's UIDs in ascending order (`UID SEARCH ALL`): they
    /// are the sequence numbers' UIDs exactly when their count is the message count (otherwise
    /// the map is left as it was).
    mutating func setAllUIDs(_ ascending: [UInt32]) {
        guard ascending.count == Int(mailbox.messageCount) else { return }
        uids = ascending
        unknownCount = 0
    }

    /// Applies one untagged response; returns the events it means for a listener.
    mutating func apply(_ response: UntaggedResponse) -> [MailboxEvent] {
        switch response {
        case .exists(let count):
            let old = mailbox.messageCount
            mailbox.messageCount = count
            if count != old { membershipChanges += 1 }
            resize(to: Int(count))
            return count == old ? [] : [.messageCount(count)]
        case .recent(let count):
            mailbox.recentCount = count
            return []
        case .expunge(let number):
            membershipChanges += 1
            guard number >= 1, Int(number) <= uids.count else { return [.resyncNeeded] }
            let uid = uids.remove(at: Int(number) - 1)
            if mailbox.messageCount > 0 { mailbox.messageCount -= 1 }
            guard uid != 0 else {
                unknownCount -= 1
                return [.resyncNeeded]
            }
            return [.expunged(SequenceSet(uid))]
        case .vanished(let earlier, let set):
            if !earlier {
                membershipChanges += 1
                removeUIDs(set)
            }
            return [.expunged(set)]
        case .flags(let flags):
            mailbox.flags = flags
            return []
        case .fetch(let fetch):
            var uid = fetch.uid
            if let known = uid {
                record(uid: known, at: fetch.sequenceNumber)
            } else {
                uid = self.uid(atSequenceNumber: fetch.sequenceNumber)
            }
            if let value = fetch.modificationSequence,
                value > (mailbox.highestModificationSequence ?? 0), mailbox.highestModificationSequence != nil
            {
                mailbox.highestModificationSequence = value
            }
            guard let flags = fetch.flags else { return [] }
            guard let uid else { return [.resyncNeeded] }
            return [.flagsChanged(uid: uid, flags: flags, modificationSequence: fetch.modificationSequence)]
        case .condition(let status, let text):
            applyCode(text.code)
            switch status {
            case .ok: if case .alert? = text.code { return [.alert(text.text.string)] }
            case .no: return [.alert(text.text.string)]
            case .bad, .bye, .preauth: break
            }
            return []
        case .capability, .enabled, .list, .lsub, .mailboxStatus, .search, .extendedSearch, .sort, .namespace, .id,
            .unknown:
            return []
        }
    }

    /// Applies a response code (from an untagged OK or a tagged response).
    mutating func applyCode(_ code: ResponseCode?) {
        switch code {
        case .permanentFlags(let flags)?: mailbox.permanentFlags = flags
        case .uidValidity(let value)?: mailbox.uidValidity = value
        case .uidNext(let value)?: mailbox.uidNext = value
        case .unseen(let value)?: mailbox.firstUnseen = value
        case .highestModificationSequence(let value)?: mailbox.highestModificationSequence = value
        case .noModificationSequence?: mailbox.highestModificationSequence = nil
        case .readOnly?: mailbox.isReadOnly = true
        case .readWrite?: mailbox.isReadOnly = false
        default: break
        }
    }

    /// Records that sequence number `number` is `uid` (from a FETCH that carries both).
    mutating func record(uid: UInt32, at number: UInt32) {
        guard number >= 1 else { return }
        if Int(number) > uids.count { resize(to: Int(number)) }
        if uids[Int(number) - 1] == 0 { unknownCount -= 1 }
        uids[Int(number) - 1] = uid
        if let next = mailbox.uidNext, uid >= next { mailbox.uidNext = uid + 1 }
    }

    private mutating func resize(to count: Int) {
        if count > uids.count {
            unknownCount += count - uids.count
            uids.append(contentsOf: repeatElement(0, count: count - uids.count))
        } else if count < uids.count {
            unknownCount -= uids[count...].lazy.filter { $0 == 0 }.count
            uids.removeLast(uids.count - count)
        }
    }

    /// Removes the messages a `VANISHED` (without EARLIER) names. Each UID it lists is a message
    /// of this session's view (RFC 7162 3.2.10), so the count goes down by every one of them,
    /// also those at positions the session never learned: which positions those were is not
    /// known, so every position is forgotten then (the map is incomplete, never wrong).
    private mutating func removeUIDs(_ set: SequenceSet) {
        var removed = 0
        uids.removeAll { uid in
            guard uid != 0, set.contains(uid) else { return false }
            removed += 1
            return true
        }
        let unplaced = min(max((set.numbers?.count ?? 0) - removed, 0), unknownCount)
        if unplaced > 0 {
            // Which unknown positions went is not known, so neither are the known UIDs' positions.
            uids = Array(repeating: 0, count: uids.count - unplaced)
            unknownCount = uids.count
        }
        let gone = UInt32(removed + unplaced)
        mailbox.messageCount = mailbox.messageCount >= gone ? mailbox.messageCount - gone : 0
    }
}
