import IMAPCore
import SearchSemantics

/// A message in a mailbox: its UID, flags, received date, mod-sequence and parsed content.
struct StoredMessage: Sendable {
    var uid: UInt32
    /// The flags, in the order they were set, without duplicates and without `\Recent`.
    var flags: [Flag]
    var internalDate: IMAPDateTime
    var modificationSequence: UInt64
    /// Whether no session has selected the mailbox since the message arrived (RFC 3501 `\Recent`).
    var isRecent: Bool
    var message: IndexedMessage

    func has(_ flag: Flag) -> Bool { flags.contains(flag) }
}

extension StoredMessage: SearchableMessage {
    var size: Int { message.size }
    var searchText: SearchableText { message.searchText }
}

/// A UID that left a mailbox, and the mod-sequence of its removal.
struct ExpungeRecord: Sendable {
    var uid: UInt32
    var modificationSequence: UInt64
}

/// One mailbox of one account.
struct MailboxRecord: Sendable {
    /// The name as it goes on the wire (modified UTF-7); `INBOX` always upper case.
    var name: String
    var uidValidity: UInt32
    var uidNext: UInt32 = 1
    var highestModificationSequence: UInt64 = 1
    /// The messages, ascending by UID.
    var messages: [StoredMessage] = []
    /// Removed UIDs, oldest first, so sessions can report EXPUNGE.
    var expunged: [ExpungeRecord] = []
    /// Every keyword used in the mailbox, in the order first used (for `* FLAGS`).
    var keywords: [Flag] = []
    var specialUse: SpecialUse?
    /// False for a `\Noselect` name kept because it has children (RFC 3501 6.3.4).
    var isSelectable = true

    init(name: String, uidValidity: UInt32, specialUse: SpecialUse? = nil) {
        self.name = name
        self.uidValidity = uidValidity
        self.specialUse = specialUse
    }

    /// The index of the message with `uid`, by binary search.
    func index(ofUID uid: UInt32) -> Int? {
        var low = 0
        var high = messages.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let value = messages[middle].uid
            if value == uid { return middle }
            if value < uid { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// The flags the mailbox knows: the system flags and every keyword in use.
    var flagList: [Flag] { [.answered, .flagged, .deleted, .seen, .draft] + keywords }

    var unseenCount: Int { messages.reduce(0) { $0 + ($1.has(.seen) ? 0 : 1) } }

    var deletedCount: Int { messages.reduce(0) { $0 + ($1.has(.deleted) ? 1 : 0) } }

    var totalSize: Int { messages.reduce(0) { $0 + $1.message.size } }

    /// A new mod-sequence for a change (RFC 7162: strictly increasing per mailbox).
    mutating func nextModificationSequence() -> UInt64 {
        highestModificationSequence += 1
        return highestModificationSequence
    }

    /// Adds keywords not seen before to `keywords`.
    mutating func noteKeywords(_ flags: [Flag]) {
        for flag in flags where !flag.isSystemFlag && !keywords.contains(flag) { keywords.append(flag) }
    }

    /// Appends a message with the next UID (or `uid`, which must be at least UIDNEXT).
    mutating func append(
        _ message: IndexedMessage, flags: [Flag], internalDate: IMAPDateTime, uid: UInt32? = nil
    ) throws(MockServerError) -> UInt32 {
        let assigned = uid ?? uidNext
        guard assigned >= uidNext, assigned > 0, assigned < UInt32.max else {
            throw MockServerError(
                .uidInUse,
                "UID \(assigned) is not above the UIDs already used in \(name) (UIDNEXT is \(uidNext)); "
                    + "seed messages in ascending UID order")
        }
        let cleaned = flags.normalizedFlags
        noteKeywords(cleaned)
        messages.append(
            StoredMessage(
                uid: assigned, flags: cleaned, internalDate: internalDate,
                modificationSequence: nextModificationSequence(), isRecent: true, message: message))
        uidNext = assigned + 1
        return assigned
    }

    /// Removes the messages at `indexes` (any order); returns their UIDs.
    mutating func remove(at indexes: [Int]) -> [UInt32] {
        guard !indexes.isEmpty else { return [] }
        let modificationSequence = nextModificationSequence()
        let doomed = Set(indexes)
        var removed: [UInt32] = []
        var kept: [StoredMessage] = []
        kept.reserveCapacity(messages.count - doomed.count)
        for (index, message) in messages.enumerated() {
            if doomed.contains(index) {
                removed.append(message.uid)
                expunged.append(ExpungeRecord(uid: message.uid, modificationSequence: modificationSequence))
            } else {
                kept.append(message)
            }
        }
        messages = kept
        return removed
    }
}

extension Array where Element == Flag {
    /// Without duplicates and without `\Recent` (which no one can set), first spelling kept.
    var normalizedFlags: [Flag] {
        var result: [Flag] = []
        for flag in self where flag != .recent && !result.contains(flag) { result.append(flag) }
        return result
    }
}

/// One account: its credentials, mailboxes and subscriptions.
struct Account: Sendable {
    var user: MockIMAPServer.User
    /// Mailboxes by wire name.
    var mailboxes: [String: MailboxRecord] = [:]
    var subscriptions: Set<String> = []

    init(user: MockIMAPServer.User) { self.user = user }
}
