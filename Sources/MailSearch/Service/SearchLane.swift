import IMAPClient
import IMAPCore

/// The searches of the open mailbox on a connection of their own, for a screen where a person
/// leaves a slow search for a new one (Esc, or a new query): a server answers one command at a
/// time per connection, so an abandoned BODY search of a large mailbox (seconds) would hold up
/// the next search, and every page fetch, on the connection they share.
///
/// A search has its connection to itself while it runs; a cancelled search gives it up (closed
/// in the background: the server's answer is never waited for) and the next search connects
/// anew. A search that ends normally leaves its connection for the next one. The main connection (listing, pages, flag changes,
/// IDLE) never carries a search, so nothing else waits either.
actor SearchLane {
    private let configuration: IMAPConfiguration
    private let credentials: Credentials
    private let mailbox: MailboxName
    private let policy: MailboxConnection.ReconnectPolicy
    /// The connection the last search ended on, for the next one.
    private var idle: MailboxConnection?

    init(
        configuration: IMAPConfiguration, credentials: Credentials, mailbox: MailboxName,
        policy: MailboxConnection.ReconnectPolicy
    ) {
        self.configuration = configuration
        self.credentials = credentials
        self.mailbox = mailbox
        self.policy = policy
    }

    /// The UIDs matching `keys` (newest first when `ordered`), on a connection no other search
    /// is using: the idle one, else a new one.
    func search(_ keys: [SearchKey], ordered: Bool = true) async throws(IMAPError) -> SearchResult {
        // Taken out while it searches: a search started meanwhile (the next query after Esc)
        // gets another connection, never this one.
        let lane =
            idle
            ?? MailboxConnection(
                configuration: configuration, credentials: credentials, mailbox: mailbox, policy: policy)
        idle = nil
        let outcome: Result<SearchResult, IMAPError>
        do {
            outcome = .success(
                try await withTaskCancellationHandler {
                    try await lane.search(keys, ordered: ordered)
                } onCancel: {
                    // Its answer is never waited for: the server may take seconds more.
                    Task { await lane.close() }
                })
        } catch let error as IMAPError {
            outcome = .failure(error)
        } catch {
            outcome = .failure(IMAPError(.cancelled, "the search was cancelled"))
        }
        if Task.isCancelled || idle != nil {
            Task { await lane.close() }
        } else {
            idle = lane
        }
        return try outcome.get()
    }

    /// Logs out.
    func close() async {
        let open = idle
        idle = nil
        await open?.close()
    }
}
