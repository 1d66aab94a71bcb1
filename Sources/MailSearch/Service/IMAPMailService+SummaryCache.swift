import IMAPClient
import IMAPCore

extension IMAPMailService {
    // MARK: - The summary cache

    func cacheKey(_ description: MailboxDescription) -> SummaryCache.Key {
        let user: String
        switch credentials {
        case .password(let name, _), .oauth2(let name, _): user = name
        }
        return SummaryCache.Key(
            account: "\(user)@\(configuration.host):\(configuration.port)", mailbox: description.name,
            uidValidity: description.uidValidity)
    }

    /// The messages among `uids` of the open mailbox that the cache holds, as emails with the
    /// flags the server has now (one UID FETCH of flags; a message gone meanwhile is left out),
    /// and the UIDs it does not hold, in their order.
    func cachedEmails(
        _ uids: [UInt32], _ description: MailboxDescription
    ) async throws(MailServiceError) -> (emails: [UInt32: Email], missing: [UInt32]) {
        guard let summaryCache else { return ([:], uids) }
        let cached = await summaryCache.messages(uids, under: cacheKey(description))
        guard !cached.isEmpty else { return ([:], uids) }
        let flags = try await currentFlags(SequenceSet(numbers: cached.keys.sorted()))
        var emails: [UInt32: Email] = [:]
        emails.reserveCapacity(cached.count)
        for (uid, message) in cached {
            guard let current = flags[uid] else { continue }
            emails[uid] = message.email(
                mailbox: description.name, uidValidity: description.uidValidity, flags: current,
                pinFlag: description.pinFlag)
        }
        return (emails, uids.filter { cached[$0] == nil })
    }

    /// Stores `emails` in the cache, after the writes started before (the caller does not wait;
    /// ``close()`` does).
    func keep(_ emails: [Email], _ description: MailboxDescription) {
        guard let summaryCache, !emails.isEmpty else { return }
        let (key, messages, previous) = (cacheKey(description), emails.map(CachedMessage.init), caching)
        caching = Task {
            await previous?.value
            await summaryCache.store(messages, under: key)
        }
    }

}
