package import IMAPCore

/// Search mode: entering and leaving it, the submitted search and its results, paged through a
/// ``ListPaging`` (docs/inbox-view-model.md "States"). A pure state machine; answers carry the
/// generation of the submit they answer, and an answer to a superseded one changes nothing.
package struct InboxSearch: Hashable, Sendable {
    /// Where search mode is.
    package enum State: Hashable, Sendable {
        /// The inbox shows.
        case off
        /// Search mode, nothing submitted: recent searches and suggestions.
        case idle
        /// `query` (normalized) is running on the server.
        case searching(String)
        /// `query`'s results show (none, when the list is empty).
        case shown(String)
        /// `query` does not parse, or the search failed: why.
        case failed(String, String)
    }

    /// What happens.
    package enum Event: Hashable, Sendable {
        /// The search field gained (true) or lost focus.
        case searchingChanged(Bool)
        /// `text` was submitted (not normalized yet).
        case submit(String)
        /// The search's first page arrived, brought up to date and adopted; `expunged` left out.
        case completed(EmailPage, [Email], expunged: Set<Email.ID>)
        /// The search failed.
        case failed(MailServiceError)
        /// The screen goes away: the search in flight is cancelled.
        case stop
        /// An event of the results' pages (``ListPaging``).
        case paging(ListPaging.Event)
        /// Messages were expunged (pages not held count them no more).
        case expunged(Set<Email.ID>)
        /// A further page of results arrived with `expunged` left out.
        case pageLoaded([Email], expunged: Set<Email.ID>)
        /// Message `id` was marked deleted: out of the results.
        case hidden(Email.ID)
        /// Message `id`'s mark deleted was cleared: back in the results with `flags`.
        case unhidden(Email.ID, [Flag], pinFlag: Flag)
        /// Message `id` shows `flags`.
        case flagsShown(Email.ID, [Flag], pinFlag: Flag)
        /// The mailbox pins with `pinFlag`: every row is judged by it.
        case repinned(Flag)
    }

    package private(set) var state: State = .off
    /// Counts submits; a search's answer must carry the current one.
    package private(set) var generation = 0
    /// The results.
    package private(set) var results: ListPaging
    /// Matches of the search removed since it ran (expunged elsewhere).
    private var removed: Set<Email.ID> = []

    package init(pageSize: Int) {
        results = ListPaging(pageSize: pageSize, pinnedSection: false)
    }

    // MARK: - What the view shows

    /// Which screen shows.
    package var viewState: InboxViewState { state == .off ? .emails : .search }

    /// What search mode shows.
    package var searchState: SearchViewState {
        switch state {
        case .off, .idle: return .empty
        case .searching: return .searching
        case .shown: return results.window.isEmpty ? .empty : .results
        case .failed(_, let message): return .error(message)
        }
    }

    /// The submitted query whose results show, are awaited or failed.
    package var searchedQuery: String? {
        switch state {
        case .off, .idle: return nil
        case .searching(let query), .shown(let query), .failed(let query, _): return query
        }
    }

    /// How many messages matched (less those expunged since); 0 before a search.
    package var total: Int { max(0, (results.list?.total ?? 0) - removed.count) }

    /// Whether the search's first page is awaited.
    package var isSearching: Bool {
        if case .searching = state { return true }
        return false
    }

    /// Whether an answer of `generation` answers the search in flight.
    package func awaits(_ generation: Int) -> Bool { isSearching && generation == self.generation }

    // MARK: - Events

    /// Applies `event`; returns what the driver must do.
    package mutating func event(_ event: Event) -> [InboxAction] {
        switch event {
        case .searchingChanged(let isSearching):
            switch (state, isSearching) {
            case (.off, true):
                state = .idle
                return []
            case (.idle, false), (.searching, false), (.shown, false), (.failed, false):
                let actions = cancelInFlight()
                generation += 1
                state = .off
                removed = []
                _ = results.event(.clear)
                return actions
            case (.off, false), (.idle, true), (.searching, true), (.shown, true), (.failed, true):
                return []
            }
        case .submit(let query):
            let text = SearchHistory.normalized(query)
            guard !text.isEmpty else { return [] }
            var actions = cancelInFlight()
            generation += 1
            removed = []
            _ = results.event(.clear)
            let parsed: ParsedQuery
            do {
                parsed = try QueryParser.parse(text)
            } catch {
                state = .failed(text, error.message)
                return actions
            }
            state = .searching(text)
            if !parsed.hints.isEmpty {
                actions.append(.notice(InboxNotice(.searchHint, parsed.hints.map(\.message).joined(separator: "; "))))
            }
            return actions + [
                .effect(.search(generation: generation, parsed.query, pageSize: results.pageSize)),
                .effect(.recordHistory(text)),
            ]
        case .completed(let page, let emails, let expunged):
            guard case .searching(let query) = state else { return [] }
            _ = results.event(.firstPage(page, emails, arrivals: [], expunged: expunged, isListing: true))
            removed = expunged.intersection(page.list.ids)
            state = .shown(query)
            let seen = InboxAction.seen(emails)
            guard !page.warnings.isEmpty else { return [seen] }
            return [seen, .notice(InboxNotice(.searchHint, page.warnings.joined(separator: " ")))]
        case .failed(let error):
            guard case .searching(let query) = state else { return [] }
            state = .failed(query, error.message)
            return []
        case .stop:
            guard isSearching || results.request != nil else { return [] }
            let actions = cancelInFlight()
            // The search will not answer: show the query again, as before its submit.
            if isSearching { state = .idle }
            generation += 1
            return actions
        case .paging(let event):
            return pages(event)
        case .expunged(let ids):
            if let list = results.list { removed.formUnion(ids.intersection(list.ids)) }
            results.updateWindow { $0.remove(ids) }
            return []
        case .pageLoaded(let emails, let expunged):
            guard results.request != nil else { return [] }
            if let list = results.list { removed.formUnion(expunged.intersection(list.ids)) }
            return [.seen(emails)] + pages(.pageLoaded(emails))
        case .hidden(let id):
            results.updateWindow { $0.hide(id) }
            return []
        case .unhidden(let id, let flags, let pinFlag):
            results.updateWindow { $0.unhide(id) { $0.setFlags(flags, pinFlag: pinFlag) } }
            return []
        case .flagsShown(let id, let flags, let pinFlag):
            results.updateWindow { $0.update(id) { $0.setFlags(flags, pinFlag: pinFlag) } }
            return []
        case .repinned(let pinFlag):
            results.updateWindow { $0.updateAll { $0.setFlags($0.flags, pinFlag: pinFlag) } }
            return []
        }
    }

    private mutating func cancelInFlight() -> [InboxAction] {
        guard isSearching || results.request != nil else { return [] }
        _ = results.event(.cancelLoad)
        return [.effect(.cancelSearch(generation: generation))]
    }

    private mutating func pages(_ event: ListPaging.Event) -> [InboxAction] {
        results.event(event).map { action in
            switch action {
            case .loadPage(let list, let offset, let pageSize):
                return .effect(
                    .loadPage(.results, generation: generation, list, offset: offset, pageSize: pageSize))
            }
        }
    }
}

/// What a part of the screen asks for: an effect for the driver, a notice for the person, or
/// the people of messages shown to join the suggestions.
package enum InboxAction: Hashable, Sendable {
    /// Something for the driver to do.
    case effect(InboxScreen.Effect)
    /// Something to tell the person.
    case notice(InboxNotice)
    /// Messages shown: their people are suggested from now on.
    case seen([Email])
}
