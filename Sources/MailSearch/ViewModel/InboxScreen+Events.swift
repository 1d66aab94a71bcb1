extension InboxScreen {
    /// What happens to the screen: the person's actions and the answers to effects.
    package enum Event: Hashable, Sendable {
        /// The screen appears: open the mailbox and list it.
        case start
        /// Pull to refresh, or Retry after an error: list again (open again when it failed).
        case refresh
        /// The screen goes away: stop listening, cancel what is in flight, close.
        case stop
        /// The mailbox is open.
        case opened(MailboxDescription)
        /// Opening failed.
        case openFailed(MailServiceError)
        /// A guess of the listing's first page arrived before the listing
        /// (`MailService.list(pageSize:provisional:)`): shown while the listing is still loading,
        /// replaced by its `listLoaded`.
        case listGuessed(generation: Int, EmailPage)
        /// The first page of the listing arrived.
        case listLoaded(generation: Int, EmailPage)
        /// The listing failed.
        case listFailed(generation: Int, MailServiceError)
        /// The mailbox's unread messages were counted (nil: the service cannot say; a failure
        /// is nil too, the count is not worth a notice).
        case unreadCounted(generation: Int, [UInt32]?)
        /// The search field gained (true) or lost (false) focus.
        case searchingChanged(Bool)
        /// The search field's text changed.
        case queryChanged(String)
        /// The search field was submitted.
        case submit
        /// A suggestion was chosen: it fills the field and submits.
        case suggestionChosen(String)
        /// The first page of a search's results arrived.
        case searchCompleted(generation: Int, EmailPage)
        /// The service answered type-ahead's question `generation`: the newest local matches,
        /// or nil when it has no local answer.
        case typeAheadAnswered(generation: Int, [Email]?)
        /// A search failed.
        case searchFailed(generation: Int, MailServiceError)
        /// The person scrolled to the end of the inbox or of the results: the next page joins
        /// the rows shown.
        case loadMore(Target)
        /// The view shows (or is about to show) `rows` of the inbox or the results, numbered as
        /// ``MailListWindow`` numbers them: their pages are loaded, one at a time, and kept with
        /// one page either side; every other page is dropped.
        case show(Target, rows: Range<Int>)
        /// A further page arrived.
        case pageLoaded(Target, generation: Int, EmailPage)
        /// A further page could not be loaded.
        case pageFailed(Target, generation: Int, MailServiceError)
        /// The Read/Unread action on a message.
        case toggleRead(Email.ID)
        /// The Pin/Unpin action on a message.
        case togglePin(Email.ID)
        /// The server answered a flag change.
        case flagChangeCompleted(Int, FlagChangeResult)
        /// A flag change failed (connection lost, the server said NO).
        case flagChangeFailed(Int, MailServiceError)
        /// Something happened in the open mailbox.
        case mailbox(MailServiceEvent)
        /// The service's event stream ended (it was closed).
        case eventsEnded
        /// The search history was read or written: its entries, newest first, and the warning
        /// when the file could not be read and was replaced.
        case historyLoaded([String], warning: String?)
        /// The search history could not be saved.
        case historyFailed(String)
        /// The person dismissed the notice.
        case dismissNotice
    }

    /// What the driver should do.
    package enum Effect: Hashable, Sendable {
        /// Read the search history.
        case loadHistory
        /// Open the mailbox (`MailService.open()`), answer with `opened`/`openFailed`.
        case open
        /// Listen to `MailService.events()`, feeding each as `mailbox(_:)`, then `eventsEnded`.
        case listen
        /// Stop listening.
        case stopListening
        /// List the mailbox's first page; answer with `listLoaded`/`listFailed` of `generation`.
        case loadList(generation: Int, pageSize: Int)
        /// Find the mailbox's unread messages (`MailService.unreadUIDs()`), after its first page
        /// is in; answer with `unreadCounted` of `generation`.
        case countUnread(generation: Int)
        /// Run a search; answer with `searchCompleted`/`searchFailed` of `generation`.
        case search(generation: Int, Query, pageSize: Int)
        /// Cancel the search of `generation` and its page loads (their answers would be ignored).
        case cancelSearch(generation: Int)
        /// Ask the service for the newest `limit` local matches of `query` (no server round
        /// trip); answer with `typeAheadAnswered` of `generation`. A newer one replaces it.
        case typeAhead(generation: Int, Query, limit: Int)
        /// Drop the type-ahead question in flight (its answer would be ignored).
        case cancelTypeAhead
        /// Load a further page; answer with `pageLoaded`/`pageFailed`.
        case loadPage(Target, generation: Int, MessageList, offset: Int, pageSize: Int)
        /// Mark messages read or unread; answer with `flagChangeCompleted`/`flagChangeFailed`.
        case setRead([Email.ID], Bool, change: Int)
        /// Pin or unpin messages; answer with `flagChangeCompleted`/`flagChangeFailed`.
        case setPinned([Email.ID], Bool, change: Int)
        /// Record a submitted query in the history; answer with `historyLoaded`/`historyFailed`.
        case recordHistory(String)
        /// Cancel the listing and the page loads in flight, and close the service once the flag
        /// changes in flight are answered.
        case close
    }

    /// Which list a page belongs to.
    package enum Target: Hashable, Sendable {
        /// The inbox.
        case inbox
        /// The search results.
        case results
    }

    /// Which flag a change sets.
    package typealias FlagKind = FlagChanges.Kind
    /// An optimistic flag change waiting for the server.
    package typealias FlagChange = FlagChanges.Change
}
