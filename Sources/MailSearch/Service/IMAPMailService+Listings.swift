import IMAPClient
import IMAPCore

extension IMAPMailService {
    // MARK: - Messages shown before

    /// Where a page finds the messages shown before: the index given to the service, else the
    /// one it answers from (``answerLocally(from:budget:)``); nil: every message is fetched.
    var listingStore: MessageIndex? { index ?? follower?.index }

    /// The messages among `uids` of the open mailbox that the index holds (indexed, or kept
    /// from an earlier list), as emails with the flags the server has now (one UID FETCH of
    /// flags; a message gone meanwhile is left out), and the UIDs it does not hold, in their
    /// order. An index that cannot be read is noted (``localStoreProblem``) and left out.
    func cachedEmails(
        _ uids: [UInt32], _ description: MailboxDescription
    ) async throws(MailServiceError) -> (emails: [UInt32: Email], missing: [UInt32]) {
        guard let store = listingStore, localStoreProblem == nil else { return ([:], uids) }
        let cached: [UInt32: CachedMessage]
        do {
            cached = try await store.summaries(uids, in: description.name, uidValidity: description.uidValidity)
        } catch {
            localStoreProblem = error.message
            return ([:], uids)
        }
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

    /// Keeps `emails` in the index for the next list, after the writes started before (the
    /// caller does not wait; ``close()`` does).
    func keep(_ emails: [Email], _ description: MailboxDescription) {
        guard let store = listingStore, localStoreProblem == nil, !emails.isEmpty else { return }
        let (messages, previous) = (emails.map(CachedMessage.init), caching)
        caching = Task {
            await previous?.value
            do throws(StoreError) {
                try await store.keepListed(messages, in: description.name, uidValidity: description.uidValidity)
            } catch {
                self.noteStoreProblem(error.message)
            }
        }
    }

    private func noteStoreProblem(_ message: String) {
        if localStoreProblem == nil { localStoreProblem = message }
    }
}
