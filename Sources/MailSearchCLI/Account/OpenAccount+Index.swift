import MailSearch

/// The local index a long-lived command (`tui`, `watch`) keeps in step while it runs.
extension OpenAccount {
    /// The account's index of the open mailbox, or for the demo without one a new one in memory
    /// (none: nil), handed to the service, which catches it up at once (the demo's: a first sync of the whole
    /// mailbox) and again after each change it learns of. Until the first catch-up is done the
    /// index answers nothing, and typing shows suggestions only. ``stopFollowing(_:)`` ends it.
    func followIndex(environment: [String: String]) async throws(CommandFailure) -> MessageIndex? {
        guard let (index, inMemory) = try await IndexedSearch.accountIndex(settings, environment: environment)
        else { return nil }
        // An index file without this mailbox is not made to index it here (`sync` does that).
        if !inMemory,
            try await IndexedSearch.reading({ () throws(StoreError) in try await index.mailbox(settings.mailbox) })
                == nil
        {
            index.close()
            return nil
        }
        await service.answerLocally(from: index)
        return index
    }

    /// The command is over: the service lets the index go (a catch-up under way stops, keeping
    /// what it committed), and the file closes.
    func stopFollowing(_ index: MessageIndex?) async {
        guard let index else { return }
        await service.answerLocally(from: nil)
        index.close()
    }
}
