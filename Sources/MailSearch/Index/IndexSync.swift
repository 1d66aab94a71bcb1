import FoundationEssentials
public import IMAPClient
import IMAPCore
import MailMIME
import SearchSemantics

/// Brings one mailbox of the index in step with the server, over a logged-in session.
///
/// 1. EXAMINE (with CONDSTORE where the server has it). When UIDVALIDITY is what the index
///    holds and HIGHESTMODSEQ, UIDNEXT and the message count are too, nothing changed: done in
///    that one round trip. A new UIDVALIDITY drops the mailbox's entries first.
/// 2. `UID SEARCH ALL`: UIDs indexed but gone are removed (expunged on the server).
/// 3. Flags of the messages indexed before: `UID FETCH (FLAGS MODSEQ) (CHANGEDSINCE m)` with
///    CONDSTORE, all their flags without it.
/// 4. UIDs on the server but not in the index, newest first, in windows: whole messages
///    (`BODY.PEEK[]`, never marking mail read), decoded once into their search text, each
///    window committed before the next is asked for. A sync killed at any point resumes here:
///    what was committed is not fetched again, what was not is.
/// 5. The server's HIGHESTMODSEQ and UIDNEXT (as EXAMINE reported them) are stored last.
///
/// Where servers differ and the index must know which way this one goes (whether BODY finds a
/// word in an attached message's header), the first message that tells the two apart is
/// searched for on the server once, and the index keeps the answer (``MessageIndex/Mailbox``).
public struct IndexSync: Sendable {
    /// What one sync did.
    public struct Summary: Sendable, Equatable {
        public var mailbox: String
        public var messages: Int
        public var added: Int
        public var changed: Int
        public var removed: Int
        /// Nothing had changed: the EXAMINE answer was enough.
        public var wasInStep: Bool
    }

    public let index: MessageIndex
    /// Messages fetched and committed per window.
    public var window: Int
    /// Seconds since 1970, for the time of the sync.
    public var clock: @Sendable () -> Int

    public init(index: MessageIndex, window: Int = 250, clock: @escaping @Sendable () -> Int) {
        self.index = index
        self.window = window
        self.clock = clock
    }

    /// Syncs `mailbox` (its name as on the wire); `progress` is told the messages added so far
    /// and how many are to come.
    public func sync(
        _ mailbox: String, over session: IMAPSession, progress: @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> Summary {
        let selected = try await session.select(MailboxName(wire: mailbox), readOnly: true)
        guard let uidValidity = selected.uidValidity else {
            throw IMAPError(.protocolViolation, "the server did not say the UIDVALIDITY of \(mailbox)")
        }
        let serverModificationSequence = selected.highestModificationSequence
        let known = try await index.mailbox(mailbox)
        let sameMailbox = known?.uidValidity == uidValidity
        if let known, sameMailbox, known.resumeBelow == nil, known.syncedAt != nil,
            let modificationSequence = serverModificationSequence,
            known.highestModificationSequence == modificationSequence, known.uidNext == selected.uidNext,
            known.messageCount == Int(selected.messageCount)
        {
            try await index.updateFlags(
                [], in: mailbox, uidValidity: uidValidity,
                progress: .inStep(
                    highestModificationSequence: modificationSequence, uidNext: selected.uidNext, at: clock()))
            return Summary(
                mailbox: mailbox, messages: known.messageCount, added: 0, changed: 0, removed: 0, wasInStep: true)
        }
        if known != nil && !sameMailbox { try await index.drop(mailbox: mailbox) }
        let local = sameMailbox ? try await index.uids(in: mailbox) : []
        let onServer = try await session.search([.all], ordered: false).uids.sorted()
        let serverSet = Set(onServer)
        let localSet = Set(local)
        let gone = local.filter { !serverSet.contains($0) }
        try await index.remove(gone, in: mailbox, uidValidity: uidValidity, progress: .unchanged)

        let kept = local.filter { serverSet.contains($0) }
        var changed = 0
        if !kept.isEmpty {
            let condStore = serverModificationSequence != nil
            let since = sameMailbox && condStore ? known?.highestModificationSequence : nil
            var items: [FetchAttribute] = [.uid, .flags]
            if condStore { items.append(.modificationSequence) }
            var changes: [(uid: UInt32, flags: [Flag], modificationSequence: UInt64)] = []
            for try await message in session.fetch(SequenceSet(numbers: kept), items: items, changedSince: since) {
                guard let uid = message.uid, let flags = message.flags else { continue }
                changes.append((uid, flags.filter { $0 != .recent }, message.modificationSequence ?? 0))
            }
            changed = changes.count
            try await index.updateFlags(changes, in: mailbox, uidValidity: uidValidity, progress: .unchanged)
        }

        let missing = onServer.filter { !localSet.contains($0) }.reversed()
        var added = 0
        var attachedHeadersInBody = sameMailbox ? known?.attachedHeadersInBody : nil
        var pending = Array(missing)
        let whole = SectionSpecifier()
        // One window is stored while the next is fetched: at most one store in flight, each
        // awaited before the next begins, so the windows commit in order (a kill loses at most
        // the two in flight, and the resume point is always a committed window's).
        try await withThrowingTaskGroup(of: Void.self) { group in
            /// The window whose store is in flight.
            var storing: [MessageIndex.Record] = []
            /// After the window in flight is committed: its progress, and the server's rule
            /// asked for where one of its messages tells the two ways apart.
            func committed() async throws {
                try await group.next()
                added += storing.count
                if !storing.isEmpty { progress(added, missing.count) }
                if attachedHeadersInBody == nil,
                    let (uid, word) = storing.lazy.compactMap({ record in
                        Self.attachedHeaderWord(record.text).map { (record.uid, $0) }
                    }).first
                {
                    let found = try await session.search(
                        [.uid(SequenceSet(uid)), .body(ByteString(word))], ordered: false)
                    attachedHeadersInBody = found.uids.contains(uid)
                    try await index.setAttachedHeadersInBody(found.uids.contains(uid), in: mailbox)
                }
                storing = []
            }
            while !pending.isEmpty {
                let batch = Array(pending.prefix(max(window, 1)))
                pending.removeFirst(batch.count)
                var records: [MessageIndex.Record] = []
                var items: [FetchAttribute] = [
                    .uid, .flags, .internalDate, .rfc822Size, .bodySection(peek: true, section: whole, partial: nil),
                ]
                if serverModificationSequence != nil { items.append(.modificationSequence) }
                for try await message in session.fetch(SequenceSet(numbers: batch), items: items) {
                    guard let uid = message.uid, let internalDate = message.internalDate else { continue }
                    let bytes = Self.crlf(Array(message.bodySection(whole)?.bytes ?? []))
                    let mime = MIMEMessage(bytes: bytes)
                    let flags = (message.flags ?? []).filter { $0 != .recent }
                    let received = Date(timeIntervalSince1970: TimeInterval(internalDate.secondsSinceEpoch))
                    let email = Email(
                        id: Email.ID(mailbox: mailbox, uidValidity: uidValidity, uid: uid),
                        summary: MailSummary(message: mime), receivedDate: received, flags: flags, pinFlag: .flagged)
                    records.append(
                        MessageIndex.Record(
                            uid: uid, flags: flags, internalDate: internalDate,
                            size: Int(message.size ?? UInt64(bytes.count)),
                            modificationSequence: message.modificationSequence ?? 0, text: SearchableText(mime),
                            summary: CachedMessage(email)))
                }
                try await committed()
                let lowest = batch.min() ?? 0
                let window = records
                group.addTask {
                    try await index.store(
                        window, in: mailbox, uidValidity: uidValidity, progress: .indexedDownTo(lowest))
                }
                storing = records
            }
            try await committed()
        }
        try await index.updateFlags(
            [], in: mailbox, uidValidity: uidValidity,
            progress: .inStep(
                highestModificationSequence: serverModificationSequence, uidNext: selected.uidNext, at: clock()))
        let count = try await index.mailbox(mailbox)?.messageCount ?? 0
        return Summary(
            mailbox: mailbox, messages: count, added: added, changed: changed, removed: gone.count, wasInStep: false)
    }

    /// A word BODY finds in `text` only when it looks in the headers of attached messages (an
    /// ASCII word, so the search needs no charset); nil when the message does not tell the two
    /// ways apart.
    static func attachedHeaderWord(_ text: SearchableText) -> String? {
        guard let without = text.bodyTextWithoutAttachedHeaders else { return nil }
        let withoutFolded = without.lowercased()
        var tried = Set<Substring>()
        let words = text.bodyText.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        for word in words where word.count >= 4 && word.count <= 40 && tried.count < 500 {
            guard tried.insert(word).inserted, !withoutFolded.contains(word.lowercased()) else { continue }
            let keys: [SearchKey] = [.body(ByteString(String(word)))]
            let probe = Probe(searchText: text)
            let position = SearchMatcher.Position(sequenceNumber: 1, isRecent: false)
            let inBody = SearchMatcher(keys: keys, largestSequenceNumber: 1, largestUID: 1, wholeWords: false, now: 0)
            let notInBody = SearchMatcher(
                keys: keys, largestSequenceNumber: 1, largestUID: 1, wholeWords: false, now: 0,
                attachedHeadersInBody: false)
            if inBody.matches(probe, at: position) && !notInBody.matches(probe, at: position) { return String(word) }
        }
        return nil
    }

    /// A message as the matcher sees it, for ``attachedHeaderWord(_:)``: only its text counts.
    private struct Probe: SearchableMessage {
        let searchText: SearchableText
        var uid: UInt32 { 1 }
        var internalDate: IMAPDateTime {
            IMAPDateTime(date: IMAPDate(daysSinceEpoch: 0), hour: 0, minute: 0, second: 0, zoneMinutes: 0)!
        }
        var size: Int { 0 }
        var modificationSequence: UInt64 { 0 }
        func has(_ flag: Flag) -> Bool { false }
    }

    /// `bytes` with every bare LF given its CR, as servers store mail (and as the mock's
    /// IndexedMessage and Dovecot see it).
    static func crlf(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 32)
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == 0x0A && previous != 0x0D { output.append(0x0D) }
            output.append(byte)
            previous = byte
        }
        return output
    }
}
