import IMAPClient
import IMAPCore

extension IMAPMailService {
    // MARK: - Flags

    public func setRead(_ isRead: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
        try await change(.seen, isRead, emails)
    }

    public func setPinned(_ isPinned: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
        let description = try await openDescription()
        return try await change(description.pinFlag, isPinned, emails)
    }

    /// `UID STORE +FLAGS` or `-FLAGS` of `flag` (answered with the flags as they now are), with `UNCHANGEDSINCE` the MODSEQ
    /// each message had when it was last seen (CONDSTORE), so a message another client changed
    /// meanwhile is refused and reported rather than overwritten blindly.
    ///
    /// Messages of the open mailbox are changed on its connection; those of another mailbox (an
    /// `in:Archive` or `in:all` result) on the second connection, which SELECTs that mailbox for
    /// the STORE (``OtherMailboxes/changing(_:_:)``). Both go through ``store(_:_:_:via:known:condstore:)``.
    ///
    /// Changes take turns: two made together (read, then pin, of one message) would both send
    /// the MODSEQ seen before either, and the server would refuse the second as changed by
    /// another client; one after the other, the second sends the MODSEQ the first produced.
    func change(
        _ flag: Flag, _ present: Bool, _ ids: [Email.ID]
    ) async throws(MailServiceError)
        -> FlagChangeResult
    {
        let result: FlagChangeResult
        do throws(MailServiceError) {
            result = try await flagChanges.run { () throws(MailServiceError) -> FlagChangeResult in
                try await self.changeNow(flag, present, ids)
            }
        } catch {
            // Some of the messages may have changed before the error.
            await indexChanged()
            throw error
        }
        await indexChanged()
        return result
    }

    func changeNow(
        _ flag: Flag, _ present: Bool, _ ids: [Email.ID]
    ) async throws(MailServiceError)
        -> FlagChangeResult
    {
        let description = try await openDescription()
        let condstore = condstoreEnabled
        var result = FlagChangeResult()
        for (mailbox, ids) in Dictionary(grouping: ids, by: \.mailbox).sorted(by: { $0.key < $1.key }) {
            let outcome: FlagStoreOutcome
            if mailbox == description.name {
                let connection = connection
                let route = FlagStoreRoute(
                    mailbox: description.name, uidValidity: description.uidValidity,
                    isReadOnly: description.isReadOnly,
                    store: { (uids, operation, flags, modseq) throws(IMAPError) in
                        try await connection.store(uids, operation, flags, silent: false, unchangedSince: modseq)
                    },
                    fetch: { (uids, items) throws(IMAPError) in try await connection.fetch(uids, items: items) })
                outcome = try await Self.store(
                    flag, present, ids, via: route, known: modificationSequences, condstore: condstore)
                remember(outcome.learned.map { ($0.key, $0.value) })
            } else {
                outcome = try await others.changing(mailbox) { (route, known) throws(MailServiceError) in
                    try await Self.store(flag, present, ids, via: route, known: known, condstore: condstore)
                }
            }
            result.refused.merge(outcome.result.refused) { first, _ in first }
            result.flags.merge(outcome.result.flags) { first, _ in first }
        }
        return result
    }

    /// The one STORE path of a flag change, for the open mailbox and any other: refuses the
    /// messages `route` cannot change (its mailbox was re-created since they were listed, or is
    /// read-only, or could not be opened), sends one UID STORE per MODSEQ the others were seen
    /// with (`known`; one, for the usual single message), and reports what the server refused.
    static func store(
        _ flag: Flag, _ present: Bool, _ ids: [Email.ID], via route: FlagStoreRoute,
        known: ModificationSequenceCache, condstore: Bool
    ) async throws(MailServiceError) -> FlagStoreOutcome {
        var outcome = FlagStoreOutcome()
        var here: [UInt32] = []
        for id in ids {
            if let refusal = route.refusal {
                outcome.result.refused[id] = refusal
            } else if id.uidValidity != route.uidValidity {
                outcome.result.refused[id] = "\(id.mailbox) was re-created on the server; reload it and try again"
            } else if route.isReadOnly {
                outcome.result.refused[id] = "\(id.mailbox) is read-only on this server, so its flags cannot be changed"
            } else {
                here.append(id.uid)
            }
        }
        guard !here.isEmpty else { return outcome }
        let id = { (uid: UInt32) in Email.ID(mailbox: route.mailbox, uidValidity: route.uidValidity, uid: uid) }
        var groups: [UInt64?: [UInt32]] = [:]
        for uid in here { groups[condstore ? known[uid] : nil, default: []].append(uid) }
        for (modseq, uids) in groups.sorted(by: { ($0.key ?? 0) < ($1.key ?? 0) }) {
            let stored: StoreResult
            do {
                stored = try await route.store(SequenceSet(numbers: uids), present ? .add : .remove, [flag], modseq)
            } catch  where error.code == .no || error.code == .bad {
                let reason =
                    "the server refused to \(present ? "set" : "clear") \(flag): \(error.serverText ?? error.message)"
                for uid in uids { outcome.result.refused[id(uid)] = reason }
                continue
            } catch {
                throw MailServiceError(error)
            }
            for (uid, modseq) in stored.modificationSequences { outcome.learned[uid] = modseq }
            let refused = Set(stored.refused?.numbers ?? [])
            // The server answers the STORE (not .SILENT) with each message's flags as they now
            // are; those it did not (a change completed after a reconnect) are read back.
            var untold: [UInt32] = []
            for uid in uids where !refused.contains(uid) {
                if let flags = stored.flags[uid] {
                    outcome.result.flags[id(uid)] = flags.filter { $0 != .recent }
                } else {
                    untold.append(uid)
                }
            }
            if !untold.isEmpty {
                let current = try await currentFlags(
                    SequenceSet(numbers: untold), via: route.fetch, condstore: condstore)
                for (uid, flags) in current.flags { outcome.result.flags[id(uid)] = flags }
                outcome.learned.merge(current.modificationSequences) { _, new in new }
            }
            if !refused.isEmpty {
                // Someone else changed these since they were shown: report their flags as they are now.
                let current = try await currentFlags(
                    SequenceSet(numbers: Array(refused)), via: route.fetch, condstore: condstore)
                for uid in refused {
                    outcome.result.refused[id(uid)] =
                        "the message was changed by another client meanwhile; its flags are shown as they are now"
                    if let flags = current.flags[uid] { outcome.result.flags[id(uid)] = flags }
                }
                outcome.learned.merge(current.modificationSequences) { _, new in new }
            }
        }
        return outcome
    }

    /// The flags of `uids` in the open mailbox as they are now.
    func currentFlags(_ uids: SequenceSet) async throws(MailServiceError) -> [UInt32: [Flag]] {
        let connection = connection
        let current = try await Self.currentFlags(
            uids, via: { (uids, items) throws(IMAPError) in try await connection.fetch(uids, items: items) },
            condstore: condstoreEnabled)
        remember(current.modificationSequences.map { ($0.key, $0.value) })
        return current.flags
    }

    /// The flags (and MODSEQs, with CONDSTORE) of `uids` as they are now, fetched with `fetch`.
    static func currentFlags(
        _ uids: SequenceSet,
        via fetch: @Sendable (SequenceSet, [FetchAttribute]) async throws(IMAPError) -> [FetchResponse],
        condstore: Bool
    ) async throws(MailServiceError) -> (flags: [UInt32: [Flag]], modificationSequences: [UInt32: UInt64]) {
        let messages: [FetchResponse]
        do {
            messages = try await fetch(uids, [.uid, .flags] + (condstore ? [.modificationSequence] : []))
        } catch {
            throw MailServiceError(error)
        }
        var flags: [UInt32: [Flag]] = [:]
        var modificationSequences: [UInt32: UInt64] = [:]
        for message in messages {
            guard let uid = message.uid else { continue }
            flags[uid] = message.flags?.filter { $0 != .recent }
            if let modseq = message.modificationSequence { modificationSequences[uid] = modseq }
        }
        return (flags, modificationSequences)
    }

    var condstoreEnabled: Bool {
        capabilities.contains(.condstore) || enabled.contains(.condstore) || enabled.contains(.qresync)
    }

    func id(_ uid: UInt32, _ description: MailboxDescription) -> Email.ID {
        Email.ID(mailbox: description.name, uidValidity: description.uidValidity, uid: uid)
    }
}

/// How a flag change reaches the messages of one mailbox: the open mailbox on the service's
/// connection, or another one SELECTed on the second connection (``OtherMailboxes``). What is
/// sent and how the answer is read is the same for both (``IMAPMailService/store(_:_:_:via:known:condstore:)``).
struct FlagStoreRoute: Sendable {
    /// The mailbox as the server names it.
    var mailbox: String
    /// Its UIDVALIDITY now: messages listed with another belong to a mailbox since re-created.
    var uidValidity: UInt32
    /// Whether the server opened it read-only.
    var isReadOnly: Bool
    /// Why none of its messages can be changed (the server would not open it), if so.
    var refusal: String? = nil
    /// UID STORE `+FLAGS`/`-FLAGS`, with `UNCHANGEDSINCE` the MODSEQ when given.
    var store: @Sendable (SequenceSet, StoreFlags.Operation, [Flag], UInt64?) async throws(IMAPError) -> StoreResult
    /// UID FETCH of the items.
    var fetch: @Sendable (SequenceSet, [FetchAttribute]) async throws(IMAPError) -> [FetchResponse]
}

/// What a flag change did in one mailbox, and the MODSEQs the server told meanwhile.
struct FlagStoreOutcome: Sendable {
    /// What was refused, and the flags now.
    var result = FlagChangeResult()
    /// The messages' MODSEQs after the change, by UID.
    var learned: [UInt32: UInt64] = [:]
}
