import IMAPCore

/// One session's view of its selected mailbox: message sequence numbers as this session knows
/// them, which change only when the session is told (EXPUNGE, EXISTS), never behind its back.
struct SelectedMailboxView: Sendable {
    /// The mailbox's wire name.
    let name: String
    /// Opened with EXAMINE.
    let isReadOnly: Bool
    let uidValidity: UInt32
    /// The UIDs in sequence-number order: `uids[n - 1]` has sequence number n.
    var uids: [UInt32]
    /// Every change up to this mod-sequence has been reported.
    var knownModificationSequence: UInt64
    /// Messages that are `\Recent` in this session.
    var recent: Set<UInt32>
    /// How many keywords the last `* FLAGS` listed.
    var knownKeywordCount: Int
    /// Changes this session made and reported itself, by UID: not to be reported again.
    var ownChanges: [UInt32: UInt64] = [:]
    /// Some messages are gone but their EXPUNGE could not be sent yet (during FETCH, STORE,
    /// SEARCH; RFC 3501 7.4.1).
    var hasPendingExpunges = false

    /// The sequence number of `uid`, when this session knows the message.
    func sequenceNumber(of uid: UInt32) -> UInt32? {
        var low = 0
        var high = uids.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if uids[middle] == uid { return UInt32(middle + 1) }
            if uids[middle] < uid { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// The first index whose UID is at least `uid`.
    func lowerBound(_ uid: UInt32) -> Int {
        var low = 0
        var high = uids.count
        while low < high {
            let middle = (low + high) / 2
            if uids[middle] < uid { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Indexes (0-based, ascending, unique) of the messages a sequence set names. A number beyond
    /// the last message is an error (the client's view is out of date or wrong).
    func indexes(ofSequenceSet set: SequenceSet) -> Result<[Int], SetError> {
        let count = UInt32(uids.count)
        var result: [Int] = []
        for range in set.ranges {
            if case .number(let first) = range.first, first > count {
                return .failure(SetError(number: first, count: count))
            }
            if case .number(let last) = range.last, last > count {
                return .failure(SetError(number: last, count: count))
            }
            guard count > 0 else { continue }
            let first = range.first.resolved(count)
            let last = range.last.resolved(count)
            let low = min(first, last)
            let high = max(first, last)
            guard low >= 1 else { continue }
            result.append(contentsOf: Int(low - 1)...Int(high - 1))
        }
        return .success(Self.sortedUnique(result))
    }

    /// Indexes of the messages a UID set names (UIDs this session does not know are skipped).
    func indexes(ofUIDSet set: SequenceSet) -> [Int] {
        guard let largest = uids.last else { return [] }
        var result: [Int] = []
        for range in set.ranges {
            let first = range.first.resolved(largest)
            let last = range.last.resolved(largest)
            let low = min(first, last)
            let high = max(first, last)
            var index = lowerBound(low)
            while index < uids.count && uids[index] <= high {
                result.append(index)
                index += 1
            }
        }
        return Self.sortedUnique(result)
    }

    private static func sortedUnique(_ values: [Int]) -> [Int] {
        var sorted = values
        sorted.sort()
        var unique: [Int] = []
        unique.reserveCapacity(sorted.count)
        for value in sorted where unique.last != value { unique.append(value) }
        return unique
    }

    /// A sequence number out of range.
    struct SetError: Error {
        let number: UInt32
        let count: UInt32

        var message: String {
            count == 0
                ? "invalid message sequence number \(number): the mailbox is empty"
                : "invalid message sequence number \(number): the mailbox has \(count) messages"
        }
    }
}

extension SequenceNumber {
    /// The number, with `*` as `largest`.
    func resolved(_ largest: UInt32) -> UInt32 {
        switch self {
        case .number(let value): return value
        case .last: return largest
        }
    }
}
