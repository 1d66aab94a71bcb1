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

    /// `UID STORE +FLAGS.SILENT` or `-FLAGS.SILENT` of `flag`, with `UNCHANGEDSINCE` the MODSEQ
    /// each message had when it was last seen (CONDSTORE), so a message another client changed
    /// meanwhile is refused and reported rather than overwritten blindly.
    ///
    /// Changes take turns: two made together (read, then pin, of one message) would both send
    /// the MODSEQ seen before either, and the server would refuse the second as changed by
    /// another client; one after the other, the second sends the MODSEQ the first produced.
    func change(
        _ flag: Flag, _ present: Bool, _ ids: [Email.ID]
    ) async throws(MailServiceError)
        -> FlagChangeResult
    {
        try await flagChanges.run { () throws(MailServiceError) -> FlagChangeResult in
            try await self.changeNow(flag, present, ids)
        }
    }

    func changeNow(
        _ flag: Flag, _ present: Bool, _ ids: [Email.ID]
    ) async throws(MailServiceError)
        -> FlagChangeResult
    {
        let description = try await openDescription()
        var result = FlagChangeResult()
        var here: [Email.ID] = []
        for id in ids {
            if id.mailbox != description.name {
                result.refused[id] = "\(id.mailbox) is open read-only for searching; open it to change its messages"
            } else if id.uidValidity != description.uidValidity {
                result.refused[id] = "\(id.mailbox) was re-created on the server; reload it and try again"
            } else if description.isReadOnly {
                result.refused[id] = "\(id.mailbox) is read-only on this server, so its flags cannot be changed"
            } else {
                here.append(id)
            }
        }
        guard !here.isEmpty else { return result }
        let condstore = capabilities.contains(.condstore) || enabled.contains(.condstore) || enabled.contains(.qresync)
        // One STORE per MODSEQ the messages were seen with (one, for the usual single message).
        var groups: [UInt64?: [UInt32]] = [:]
        for id in here { groups[condstore ? modificationSequences[id.uid] : nil, default: []].append(id.uid) }
        for (modseq, uids) in groups.sorted(by: { ($0.key ?? 0) < ($1.key ?? 0) }) {
            let set = SequenceSet(numbers: uids)
            let stored: StoreResult
            do {
                stored = try await connection.store(set, present ? .add : .remove, [flag], unchangedSince: modseq)
            } catch  where error.code == .no || error.code == .bad {
                let reason =
                    "the server refused to \(present ? "set" : "clear") \(flag): \(error.serverText ?? error.message)"
                for uid in uids { result.refused[id(uid, description)] = reason }
                continue
            } catch {
                throw MailServiceError(error)
            }
            for (uid, modseq) in stored.modificationSequences { modificationSequences[uid] = modseq }
            let refused = Set(stored.refused?.numbers ?? [])
            for uid in uids where !refused.contains(uid) {
                if let flags = stored.flags[uid] { result.flags[id(uid, description)] = flags.filter { $0 != .recent } }
            }
            if !refused.isEmpty {
                // Someone else changed these since they were shown: report their flags as they are now.
                let current = try await currentFlags(SequenceSet(numbers: Array(refused)))
                for uid in refused {
                    let emailID = id(uid, description)
                    result.refused[emailID] =
                        "the message was changed by another client meanwhile; its flags are shown as they are now"
                    if let flags = current[uid] { result.flags[emailID] = flags }
                }
            }
        }
        return result
    }

    func currentFlags(_ uids: SequenceSet) async throws(MailServiceError) -> [UInt32: [Flag]] {
        let messages: [FetchResponse]
        do {
            messages = try await connection.fetch(
                uids, items: [.uid, .flags] + (condstoreEnabled ? [.modificationSequence] : []))
        } catch {
            throw MailServiceError(error)
        }
        var flags: [UInt32: [Flag]] = [:]
        for message in messages {
            guard let uid = message.uid else { continue }
            flags[uid] = message.flags?.filter { $0 != .recent }
            if let modseq = message.modificationSequence { modificationSequences[uid] = modseq }
        }
        return flags
    }

    var condstoreEnabled: Bool {
        capabilities.contains(.condstore) || enabled.contains(.condstore) || enabled.contains(.qresync)
    }

    func id(_ uid: UInt32, _ description: MailboxDescription) -> Email.ID {
        Email.ID(mailbox: description.name, uidValidity: description.uidValidity, uid: uid)
    }

}
