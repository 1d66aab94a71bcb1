import FoundationEssentials
public import IMAPClient
import IMAPCore
import MailMIME
import SearchSemantics

/// Brings one mailbox of the index in step with the server, over a logged-in session.
///
/// 1. EXAMINE, with QRESYNC (RFC 7162) when the session enabled it and the index holds a
///    finished sync with a HIGHESTMODSEQ, with CONDSTORE where the server has only that. When
///    UIDVALIDITY is what the index holds and HIGHESTMODSEQ, UIDNEXT and the message count are
///    too, nothing changed: done in that one round trip. A new UIDVALIDITY drops the
///    mailbox's entries first.
/// 2. With QRESYNC, the EXAMINE's answer holds every change: VANISHED (EARLIER) names the
///    expunged UIDs, and a FETCH comes for every message changed since the index's
///    HIGHESTMODSEQ (flags for those indexed, the new ones at or above the old UIDNEXT). Those
///    are applied, the new messages fetched, and the index's message count must then equal
///    the server's; when it does not, the sync goes on as below (the server is asked, never
///    trusted blindly).
/// 3. Otherwise `UID SEARCH ALL`: UIDs indexed but gone are removed (expunged on the server).
///    Then the flags of the messages indexed before: `UID FETCH (FLAGS MODSEQ) (CHANGEDSINCE m)`
///    with CONDSTORE, all their flags without it.
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
        /// How the sync found what changed.
        public var method: Method
        /// How long the sync took.
        public var duration: Duration = .zero

        /// Nothing had changed: the EXAMINE answer was enough.
        public var wasInStep: Bool { method == .inStep }
    }

    /// How a sync found what changed on the server.
    public enum Method: String, Sendable, Equatable {
        /// Nothing had: the EXAMINE answer said so.
        case inStep = "in step"
        /// QRESYNC: the EXAMINE answer listed the changes.
        case quickResync = "QRESYNC"
        /// CONDSTORE: `UID SEARCH ALL` and the flags changed since the last sync.
        case changedSince = "CONDSTORE"
        /// `UID SEARCH ALL` and every message's flags.
        case everything = "UIDs and flags"
        /// The index held nothing of this mailbox (or another UIDVALIDITY): every message.
        case first = "first sync"
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
        let clock = ContinuousClock()
        let start = clock.now
        var summary = try await untimedSync(mailbox, over: session, progress: progress)
        summary.duration = clock.now - start
        return summary
    }

    /// Syncs `mailbox` (its name as on the wire), which `session` has selected already (a
    /// service's own connection): nothing is selected again. When the session's view of the
    /// mailbox (UIDVALIDITY, HIGHESTMODSEQ, UIDNEXT, the message count, with no message come or
    /// gone since it was selected) equals what the index holds, the index is in step without a
    /// command; otherwise the UID difference and the flags changed since the index's
    /// HIGHESTMODSEQ are asked for (steps 3 to 5), as on a session of the sync's own.
    public func sync(
        selected mailbox: String, over session: IMAPSession, progress: @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> Summary {
        let clock = ContinuousClock()
        let start = clock.now
        guard let selected = await session.selectedMailbox, selected.name == MailboxName(wire: mailbox) else {
            throw IMAPError(.mailboxChanged, "the session does not have \(mailbox) selected")
        }
        let settled = await session.membershipChangesSinceSelect == 0
        var summary = try await catchUp(
            mailbox, known: try await index.mailbox(mailbox), selected: selected, settled: settled, changes: nil,
            over: session, progress: progress)
        summary.duration = clock.now - start
        return summary
    }

    private func untimedSync(
        _ mailbox: String, over session: IMAPSession, progress: @Sendable (Int, Int) -> Void
    ) async throws -> Summary {
        let known = try await index.mailbox(mailbox)
        let (selected, changes) = try await session.select(
            MailboxName(wire: mailbox), readOnly: true,
            resynchronizing: Self.finished(known).flatMap { known in
                known.highestModificationSequence.map {
                    KnownMailboxState(uidValidity: known.uidValidity, highestModificationSequence: $0)
                }
            })
        return try await catchUp(
            mailbox, known: known, selected: selected, settled: true, changes: changes, over: session,
            progress: progress)
    }

    /// The index's entry of a mailbox when its last sync finished.
    private static func finished(_ known: MessageIndex.Mailbox?) -> MessageIndex.Mailbox? {
        known.flatMap { $0.resumeBelow == nil && $0.syncedAt != nil ? $0 : nil }
    }

    /// Brings the index's entry `known` in step with the mailbox the session has selected, as
    /// `selected` describes it. `settled`: no message came or went since the mailbox was
    /// selected, so its counts are the server's at that moment. `changes`: what a QRESYNC
    /// EXAMINE reported (nil: it was not asked for).
    private func catchUp(
        _ mailbox: String, known: MessageIndex.Mailbox?, selected: SelectedMailbox, settled: Bool,
        changes: [UntaggedResponse]?, over session: IMAPSession, progress: @Sendable (Int, Int) -> Void
    ) async throws -> Summary {
        let finished = Self.finished(known)
        guard let uidValidity = selected.uidValidity else {
            throw IMAPError(.protocolViolation, "the server did not say the UIDVALIDITY of \(mailbox)")
        }
        var target = Target(
            mailbox: mailbox, uidValidity: uidValidity, selected: selected,
            attachedHeadersInBody: known?.attachedHeadersInBody, undatedSentDate: known?.undatedSentDate)
        let sameMailbox = known?.uidValidity == uidValidity
        if settled, let finished, sameMailbox, let modificationSequence = selected.highestModificationSequence,
            finished.highestModificationSequence == modificationSequence, finished.uidNext == selected.uidNext,
            finished.messageCount == Int(selected.messageCount)
        {
            try await markInStep(target)
            return Summary(
                mailbox: mailbox, messages: finished.messageCount, added: 0, changed: 0, removed: 0, method: .inStep)
        }
        if known != nil && !sameMailbox {
            try await index.drop(mailbox: mailbox)
            target.attachedHeadersInBody = nil
            target.undatedSentDate = nil
        }
        if sameMailbox, let finished, let uidNext = finished.uidNext, let changes,
            finished.highestModificationSequence != nil, await session.enabled.contains(.qresync),
            let summary = try await quickResync(target, uidNext: uidNext, changes, over: session, progress: progress)
        {
            return summary
        }
        return try await fullSync(
            target, local: sameMailbox ? try await index.uids(in: mailbox) : [],
            since: sameMailbox ? known?.highestModificationSequence : nil, isFirst: !sameMailbox || finished == nil,
            over: session, progress: progress)
    }

    /// The mailbox a sync works on, as EXAMINE found it.
    private struct Target {
        var mailbox: String
        var uidValidity: UInt32
        var selected: SelectedMailbox
        /// The server's rules, where the index learned them.
        var attachedHeadersInBody: Bool?
        var undatedSentDate: MessageIndex.UndatedRule?
        var condStore: Bool { selected.highestModificationSequence != nil }
    }

    /// Applies what a QRESYNC EXAMINE reported (`changes`); nil when the index's count of
    /// messages then differs from the server's, so that a full sync must decide.
    private func quickResync(
        _ target: Target, uidNext: UInt32, _ changes: [UntaggedResponse], over session: IMAPSession,
        progress: @Sendable (Int, Int) -> Void
    ) async throws -> Summary? {
        var vanished: [UInt32] = []
        var flags: [(uid: UInt32, flags: [Flag], modificationSequence: UInt64)] = []
        var arrived: [UInt32] = []
        for change in changes {
            switch change {
            case .vanished(_, let set):
                vanished += set.numbers ?? []
            case .fetch(let message):
                guard let uid = message.uid else { continue }
                if uid >= uidNext {
                    arrived.append(uid)
                } else if let changed = message.flags {
                    flags.append((uid, changed.filter { $0 != .recent }, message.modificationSequence ?? 0))
                }
            default:
                break
            }
        }
        let removed = try await index.remove(
            vanished, in: target.mailbox, uidValidity: target.uidValidity, progress: .unchanged)
        try await index.updateFlags(flags, in: target.mailbox, uidValidity: target.uidValidity, progress: .unchanged)
        let gone = Set(vanished)
        let added = try await fetchMissing(
            arrived.filter { !gone.contains($0) }.sorted(by: >), into: target, over: session, progress: progress)
        let count = try await index.mailbox(target.mailbox)?.messageCount ?? 0
        guard count == Int(target.selected.messageCount) else { return nil }
        try await markInStep(target)
        return Summary(
            mailbox: target.mailbox, messages: count, added: added, changed: flags.count,
            removed: removed, method: .quickResync)
    }

    /// Steps 3 to 5: the UID difference, the flags of the messages kept, the new messages.
    /// `isFirst`: the index had no finished sync of this mailbox (a resumed first sync too).
    private func fullSync(
        _ target: Target, local: [UInt32], since: UInt64?, isFirst: Bool, over session: IMAPSession,
        progress: @Sendable (Int, Int) -> Void
    ) async throws -> Summary {
        let mailbox = target.mailbox
        let onServer = try await session.search([.all], ordered: false).uids.sorted()
        let serverSet = Set(onServer)
        let localSet = Set(local)
        let gone = local.filter { !serverSet.contains($0) }
        try await index.remove(gone, in: mailbox, uidValidity: target.uidValidity, progress: .unchanged)

        let kept = local.filter { serverSet.contains($0) }
        var changed = 0
        if !kept.isEmpty {
            var items: [FetchAttribute] = [.uid, .flags]
            if target.condStore { items.append(.modificationSequence) }
            var changes: [(uid: UInt32, flags: [Flag], modificationSequence: UInt64)] = []
            let changedSince = target.condStore ? since : nil
            for try await message in session.fetch(SequenceSet(numbers: kept), items: items, changedSince: changedSince)
            {
                guard let uid = message.uid, let flags = message.flags else { continue }
                changes.append((uid, flags.filter { $0 != .recent }, message.modificationSequence ?? 0))
            }
            changed = changes.count
            try await index.updateFlags(changes, in: mailbox, uidValidity: target.uidValidity, progress: .unchanged)
        }
        let added = try await fetchMissing(
            onServer.filter { !localSet.contains($0) }.reversed(), into: target, over: session, progress: progress)
        // A message that came after the mailbox was selected is indexed now: the UIDNEXT
        // stored must be above it, or a later QRESYNC would take it for new and add it twice.
        var inStep = target
        if let largest = onServer.last, largest >= inStep.selected.uidNext ?? 0 {
            inStep.selected.uidNext = largest + 1
        }
        try await markInStep(inStep)
        let count = try await index.mailbox(mailbox)?.messageCount ?? 0
        let method: Method = isFirst ? .first : target.condStore && since != nil ? .changedSince : .everything
        return Summary(
            mailbox: mailbox, messages: count, added: added, changed: changed, removed: gone.count, method: method)
    }

    /// Stores the server's HIGHESTMODSEQ and UIDNEXT as EXAMINE reported them: the index is in
    /// step with that state.
    private func markInStep(_ target: Target) async throws {
        try await index.updateFlags(
            [], in: target.mailbox, uidValidity: target.uidValidity,
            progress: .inStep(
                highestModificationSequence: target.selected.highestModificationSequence,
                uidNext: target.selected.uidNext, at: clock()))
    }

    /// Fetches and indexes the messages `missing` (newest first), in windows; returns how many
    /// were added.
    private func fetchMissing(
        _ missing: [UInt32], into target: Target, over session: IMAPSession, progress: @Sendable (Int, Int) -> Void
    ) async throws -> Int {
        let (mailbox, uidValidity) = (target.mailbox, target.uidValidity)
        var added = 0
        var rules = target
        var pending = missing[...]
        let whole = SectionSpecifier()
        // One window is stored while the next is fetched: at most one store in flight, each
        // awaited before the next begins, so the windows commit in order (a kill loses at most
        // the two in flight, and the resume point is always a committed window's).
        try await withThrowingTaskGroup(of: Void.self) { group in
            /// The window whose store is in flight.
            var storing: [MessageIndex.Record] = []
            /// After the window in flight is committed: its progress, and the server's rules
            /// asked for where one of its messages tells the ways apart.
            func committed() async throws {
                try await group.next()
                added += storing.count
                if !storing.isEmpty { progress(added, missing.count) }
                try await learnRules(from: storing, into: &rules, over: session)
                storing = []
            }
            while !pending.isEmpty {
                let batch = Array(pending.prefix(max(window, 1)))
                pending = pending.dropFirst(batch.count)
                var records: [MessageIndex.Record] = []
                var items: [FetchAttribute] = [
                    .uid, .flags, .internalDate, .rfc822Size, .bodySection(peek: true, section: whole, partial: nil),
                ]
                if target.condStore { items.append(.modificationSequence) }
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
        return added
    }

    /// Asks the server what it does where servers differ, for the rules not known yet, with
    /// the first of `records` that tells the ways apart (one `UID SEARCH` a rule, once a
    /// mailbox), and keeps the answers in the index and in `target`.
    private func learnRules(
        from records: [MessageIndex.Record], into target: inout Target, over session: IMAPSession
    ) async throws {
        if target.attachedHeadersInBody == nil,
            let (uid, word) = records.lazy.compactMap({ record in
                Self.attachedHeaderWord(record.text).map { (record.uid, $0) }
            }).first
        {
            let found = try await session.search([.uid(SequenceSet(uid)), .body(ByteString(word))], ordered: false)
            target.attachedHeadersInBody = found.uids.contains(uid)
            try await index.setAttachedHeadersInBody(found.uids.contains(uid), in: target.mailbox)
        }
        // An undated message received after 1-Jan-1970 tells the rules apart: 1970 is before
        // 2-Jan-1970, its received day is its received day.
        let epoch = IMAPDate(daysSinceEpoch: 0)
        if target.undatedSentDate == nil,
            let record = records.first(where: { $0.text.sentDate == nil && $0.internalDate.date > epoch })
        {
            let uid = SequenceSet(record.uid)
            let rule: MessageIndex.UndatedRule
            if try await session.search([.uid(uid), .sentBefore(IMAPDate(daysSinceEpoch: 1))], ordered: false).uids
                .contains(record.uid)
            {
                rule = .epoch
            } else if try await session.search([.uid(uid), .sentOn(record.internalDate.date)], ordered: false).uids
                .contains(record.uid)
            {
                rule = .receivedDate
            } else {
                rule = .neither
            }
            target.undatedSentDate = rule
            try await index.setUndatedSentDate(rule, in: target.mailbox)
        }
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
