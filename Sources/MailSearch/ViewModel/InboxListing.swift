package import IMAPCore

/// The inbox: opening the mailbox, listing it, counting its unread messages, and its pages
/// (a ``ListPaging`` with a Pinned section), kept up to date by live changes
/// (docs/inbox-view-model.md "States"). A pure state machine; answers carry the generation of
/// the listing they answer, and an answer to a superseded one changes nothing.
package struct InboxListing: Hashable, Sendable {
    /// The request of the listing in flight.
    package enum Load: Hashable, Sendable {
        /// None (the mailbox may be opening: see ``connection``).
        case none
        /// The first page of the listing.
        case listing
        /// The unread messages, after the first page showed.
        case countingUnread
    }

    /// What happens.
    package enum Event: Hashable, Sendable {
        /// The screen appears: open the mailbox, or list it again if it is open.
        case start
        /// Pull to refresh or Retry: the same as `start`.
        case refresh
        /// The screen goes away: stop listening; answers in flight are ignored.
        case stop
        /// The mailbox is open: follow it and list it.
        case opened(MailboxDescription)
        /// Opening failed.
        case openFailed(MailServiceError)
        /// A guess of the first page, brought up to date and adopted.
        case guessed(EmailPage, [Email], expunged: Set<Email.ID>)
        /// The listing's first page, brought up to date and adopted.
        case listed(EmailPage, [Email], expunged: Set<Email.ID>)
        /// The listing failed.
        case listFailed(MailServiceError)
        /// The unread count, and the changes made since it was asked for.
        case unreadCounted([UInt32]?, since: ArraySlice<MailServiceEvent>)
        /// New mail, as it shows.
        case arrived([Email])
        /// Messages expunged elsewhere.
        case expunged(Set<Email.ID>)
        /// Message `id` was marked deleted: out of the list.
        case hidden(Email.ID)
        /// Message `id`'s mark deleted was cleared: back in the list with `flags`.
        case unhidden(Email.ID, [Flag])
        /// Message `id` shows `flags` (`row`: the message as the results hold it, if they do).
        case flagsShown(Email.ID, [Flag], row: Email?)
        /// A further page arrived, brought up to date and adopted.
        case pageLoaded([Email])
        /// An event of the inbox's pages.
        case paging(ListPaging.Event)
        /// The connection broke; the service is re-establishing it.
        case connectionLost(String)
        /// The connection is back.
        case connectionRestored
        /// The connection could not be re-established.
        case connectionFailed(MailServiceError)
        /// The mailbox changed under the screen: open and list it again.
        case reload
        /// The service's events ended.
        case eventsEnded
    }

    package private(set) var load: Load = .none
    /// The connection behind the screen.
    package private(set) var connection: InboxConnectionState = .closed
    /// What the inbox shows. Before the first start it is `loading`: "Checking for Mail..." is
    /// right from the first frame.
    package private(set) var listState: EmailsListState = .loading
    /// The open mailbox, once opened.
    package private(set) var mailbox: MailboxDescription?
    /// Counts listings; a listing's or page's answer must carry the current one.
    package private(set) var generation = 0
    /// The inbox's pages.
    package private(set) var inbox: ListPaging
    /// The inbox's unread messages by UID, from the listing and kept up to date by every flag
    /// change, arrival and expunge (held rows or not); nil when the listing did not say.
    package private(set) var unreadUIDs: Set<UInt32>?
    private var isListening = false

    /// Whether stopping has anything to stop: the mailbox is open (or opening), or its events
    /// are followed.
    package var isRunning: Bool { connection != .closed || isListening }

    package init(pageSize: Int) {
        inbox = ListPaging(pageSize: pageSize, pinnedSection: true)
    }

    /// The flag that pins in the open mailbox.
    package var pinFlag: Flag { mailbox?.pinFlag ?? .flagged }

    /// Whether an answer of `generation` answers the request `load` in flight (the events
    /// carrying answers are ignored when their request is not in flight; the generation is the
    /// coordinator's to check before it brings an answer up to date).
    package func awaits(_ load: Load, _ generation: Int) -> Bool {
        self.load == load && load != .none && generation == self.generation
    }

    /// Whether a guess of the first page may show: the listing is loading, and none showed yet.
    package var acceptsGuess: Bool { load == .listing && listState == .loading && inbox.list == nil }

    /// Applies `event`; returns what the driver must do.
    package mutating func event(_ event: Event) -> [InboxAction] {
        switch event {
        case .start, .refresh:
            switch connection {
            case .closed, .failed: return beginOpening()
            case .opening: return []
            case .open, .reconnecting: return reloadList()
            }
        case .stop:
            guard isRunning else { return [] }
            // Closing is the coordinator's, after the search in flight is cancelled.
            var actions: [InboxAction] = []
            if isListening {
                isListening = false
                actions.append(.effect(.stopListening))
            }
            generation += 1
            load = .none
            _ = inbox.event(.cancelLoad)
            connection = .closed
            return actions
        case .opened(let description):
            guard connection == .opening else { return [] }
            if description.pinFlag != pinFlag {
                inbox.updateWindow { $0.updateAll { $0.setFlags($0.flags, pinFlag: description.pinFlag) } }
            }
            mailbox = description
            connection = .open
            var actions: [InboxAction] = []
            if let warning = description.pinWarning {
                actions.append(.notice(InboxNotice(.pinKeywordFallback, warning.message)))
            }
            if !isListening {
                isListening = true
                actions.append(.effect(.listen))
            }
            return actions + reloadList()
        case .openFailed(let error):
            guard connection == .opening else { return [] }
            connection = .failed(error.message)
            listState = .error(error.message)
            return []
        case .guessed(let page, let emails, let expunged):
            guard acceptsGuess, !emails.isEmpty else { return [] }
            _ = inbox.event(.firstPage(page, emails, arrivals: [], expunged: expunged, isListing: false))
            if !inbox.window.isEmpty { listState = .data }
            return []
        case .listed(let page, let emails, let expunged):
            guard load == .listing else { return [] }
            load = .countingUnread
            // What arrived during the listing goes on top; the rest is the listing's first page.
            let listed = Set(page.emails.map(\.id))
            _ = inbox.event(
                .firstPage(
                    page, emails.filter { listed.contains($0.id) }, arrivals: emails.filter { !listed.contains($0.id) },
                    expunged: expunged, isListing: true))
            listState = inbox.window.isEmpty ? .empty : .data
            let warning =
                page.warnings.isEmpty
                ? [] : [InboxAction.notice(InboxNotice(.searchHint, page.warnings.joined(separator: " ")))]
            // Counted once the first page shows, so the count never delays it.
            return warning + [.seen(emails), .effect(.countUnread(generation: generation))]
        case .listFailed(let error):
            guard load == .listing else { return [] }
            load = .none
            listState = .error(error.message)
            return []
        case .unreadCounted(let uids, let changes):
            guard load == .countingUnread else { return [] }
            load = .none
            guard let uids else {
                unreadUIDs = nil
                return []
            }
            unreadUIDs = Set(uids)
            // What changed since the count was asked for is brought onto it; held rows are the
            // freshest word on their own flags (pending changes shown).
            for change in changes {
                switch change {
                case .flagsChanged(let id, let flags): markRead(id, flags.contains(.seen))
                case .expunged(let ids): for id in ids { forgetUnread(id) }
                case .arrived(let emails): for email in emails { markRead(email.id, email.isRead) }
                case .reloadNeeded, .connectionLost, .connectionRestored, .failed, .alert: continue
                }
            }
            for email in inbox.window.residentEmails { markRead(email.id, email.isRead) }
            return []
        case .arrived(let emails):
            switch listState {
            case .data, .empty:
                let fresh = emails.filter { !$0.flags.contains(.deleted) && inbox.window.email($0.id) == nil }
                let pinFlag = pinFlag
                inbox.updateWindow { $0.arrive(fresh.map { $0.withFlags($0.flags, pinFlag: pinFlag) }) }
                for email in fresh { markRead(email.id, email.isRead) }
                listState = inbox.window.isEmpty ? .empty : .data
                return [.seen(fresh)]
            case .loading, .error:
                return []
            }
        case .expunged(let ids):
            inbox.updateWindow { $0.remove(ids) }
            for id in ids { forgetUnread(id) }
            emptinessChanged()
            return []
        case .hidden(let id):
            inbox.updateWindow { $0.hide(id) }
            forgetUnread(id)
            emptinessChanged()
            return []
        case .unhidden(let id, let flags):
            let pinFlag = pinFlag
            inbox.updateWindow { $0.unhide(id) { $0.setFlags(flags, pinFlag: pinFlag) } }
            markRead(id, flags.contains(.seen))
            emptinessChanged()
            return []
        case .flagsShown(let id, let flags, let row):
            let pinFlag = pinFlag
            inbox.updateWindow { $0.update(id) { $0.setFlags(flags, pinFlag: pinFlag) } }
            if !flags.contains(pinFlag) {
                inbox.updateWindow { $0.unpinNotHeld(id) }
            } else if isInbox(id) {
                // Pinned from the results, or elsewhere: every pinned message of the inbox is in
                // its Pinned section, held or not.
                inbox.updateWindow { $0.pinNotHeld(id, row: row) }
            }
            markRead(id, flags.contains(.seen))
            return []
        case .pageLoaded(let emails):
            let isPinnedRows = inbox.request?.pinned != nil
            let actions = pages(.pageLoaded(emails))
            for email in emails { markRead(email.id, email.isRead) }
            if !isPinnedRows { listState = inbox.window.isEmpty ? .empty : .data }
            return [.seen(emails)] + actions
        case .paging(let event):
            return pages(event)
        case .connectionLost(let reason):
            connection = .reconnecting(reason)
            return []
        case .connectionRestored:
            switch connection {
            case .reconnecting, .failed: connection = .open
            case .closed, .opening, .open: break
            }
            return []
        case .connectionFailed(let error):
            connection = .failed(error.message)
            return []
        case .reload:
            switch connection {
            case .closed, .opening: return []
            case .open, .reconnecting, .failed: return beginOpening()
            }
        case .eventsEnded:
            isListening = false
            return []
        }
    }

    private mutating func beginOpening() -> [InboxAction] {
        connection = .opening
        listState = .loading
        generation += 1
        load = .none
        _ = inbox.event(.pause)
        return [.effect(.open)]
    }

    private mutating func reloadList() -> [InboxAction] {
        generation += 1
        load = .listing
        _ = inbox.event(.pause)
        listState = .loading
        return [.effect(.loadList(generation: generation, pageSize: inbox.pageSize))]
    }

    /// A shown inbox is `empty` or `data` as its window is, after a live change.
    private mutating func emptinessChanged() {
        switch listState {
        case .data, .empty: listState = inbox.window.isEmpty ? .empty : .data
        case .loading, .error: break
        }
    }

    private mutating func pages(_ event: ListPaging.Event) -> [InboxAction] {
        inbox.event(event).map { action in
            switch action {
            case .loadPage(let list, let offset, let pageSize):
                return .effect(.loadPage(.inbox, generation: generation, list, offset: offset, pageSize: pageSize))
            }
        }
    }

    /// Whether `id` is a message of the open mailbox (a search may find others').
    private func isInbox(_ id: Email.ID) -> Bool {
        guard let mailbox else { return false }
        return id.mailbox == mailbox.name && id.uidValidity == mailbox.uidValidity
    }

    /// Counts inbox message `id` as read or unread.
    private mutating func markRead(_ id: Email.ID, _ isRead: Bool) {
        guard unreadUIDs != nil, isInbox(id) else { return }
        if isRead { unreadUIDs?.remove(id.uid) } else { unreadUIDs?.insert(id.uid) }
    }

    private mutating func forgetUnread(_ id: Email.ID) {
        guard isInbox(id) else { return }
        unreadUIDs?.remove(id.uid)
    }
}
