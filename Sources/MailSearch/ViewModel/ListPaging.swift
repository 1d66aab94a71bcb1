/// One mail list's pages (the inbox's, or a search's results'): the ``MailListWindow`` over its
/// listing, the rows the view shows, and the one page load in flight. A pure state machine
/// (docs/inbox-view-model.md "Paging"): the list's owner (``InboxListing``, ``InboxSearch``)
/// feeds it events and performs its actions; it does no I/O.
///
/// It decides which pages are held (those the view shows and ``pagesKeptAround`` either side)
/// and which one loads next (the missing page nearest the middle of the view, the pinned rows
/// in view first); the window keeps the rows.
package struct ListPaging: Hashable, Sendable {
    /// A page load in flight: the page asked for, or the pinned messages asked for by UID.
    package struct PageRequest: Hashable, Sendable {
        /// The page asked for; -1 for pinned rows.
        package var page: Int
        /// The pinned messages asked for by UID, when it is their rows that load.
        package var pinned: [Email.ID]?
    }

    /// Whether pages may load, and the one that does.
    package enum State: Hashable, Sendable {
        /// Nothing was listed yet (a guess may show): no page loads.
        case unlisted
        /// A new listing replaces `list`, or it failed: no page loads until one is in.
        case paused(MessageList)
        /// Listed: pages load as the view moves.
        case ready(MessageList)
        /// Listed, and a page of it is loading.
        case loading(MessageList, PageRequest)
    }

    /// What happens to the list.
    package enum Event: Hashable, Sendable {
        /// A new first page shows (`emails` of `page`, `arrivals` on top, `expunged` left out),
        /// scrolled to the top; with `isListing` false it is a guess (nothing pages from it).
        case firstPage(EmailPage, [Email], arrivals: [Email], expunged: Set<Email.ID>, isListing: Bool)
        /// A new listing is asked for, or the last one failed: pages stop loading.
        case pause
        /// The page load in flight will not be answered (its owner moved on): another may start.
        case cancelLoad
        /// The list is forgotten (leaving search, a new search): an empty window.
        case clear
        /// The view shows `rows`.
        case show(Range<Int>)
        /// The view reached the end: the next page joins the rows shown.
        case loadMore
        /// The window changed (a live change): the rows shown may be on a page not held.
        case windowChanged
        /// The page in flight arrived, brought up to date and adopted (``FlagChanges``).
        case pageLoaded([Email])
        /// The page in flight failed.
        case pageFailed
    }

    /// What the owner should do.
    package enum Action: Hashable, Sendable {
        /// Load `pageSize` messages of `list` from `offset`; answer with `pageLoaded`/`pageFailed`.
        case loadPage(MessageList, offset: Int, pageSize: Int)
    }

    /// How many pages are kept either side of the pages the view shows: the rows held are
    /// those pages', the pinned ones among the rows shown and a page either side of them (the
    /// Pinned section keeps every pinned message seen, by UID, and fetches their rows again by
    /// UID), and the arrivals, never more. The terminal UI shows a screenful and asks for two
    /// more either side (five screenfuls, 105 rows at 80x24, touching at most four pages of 50),
    /// so at most six pages of 50 and 205 pinned rows are held, however far it scrolled.
    package static let pagesKeptAround = 1

    /// How many messages a page holds.
    package let pageSize: Int
    /// Whether pages may load, and the one loading.
    package private(set) var state: State = .unlisted
    /// The rows held and the numbering of those not held.
    package private(set) var window: MailListWindow
    /// The rows the view shows (``MailListWindow`` numbering).
    package private(set) var shown: Range<Int>

    /// An empty list of `pageSize` messages a page, with a Pinned section or not.
    package init(pageSize: Int, pinnedSection: Bool) {
        self.pageSize = max(1, pageSize)
        window = MailListWindow(pageSize: max(1, pageSize), pinnedSection: pinnedSection)
        shown = 0..<max(1, pageSize)
    }

    /// The listing, once one is in.
    package var list: MessageList? {
        switch state {
        case .unlisted: return nil
        case .paused(let list), .ready(let list), .loading(let list, _): return list
        }
    }

    /// The page load in flight.
    package var request: PageRequest? {
        if case .loading(_, let request) = state { return request }
        return nil
    }

    /// The page load `page` answers, if it answers the one in flight.
    package func request(answeredBy page: EmailPage) -> PageRequest? {
        guard let request else { return nil }
        if let asked = request.pinned { return page.list.ids == asked ? request : nil }
        return window.page(ofOffset: page.offset) == request.page ? request : nil
    }

    /// Changes the rows in place (a live change, new flags); ``Event/windowChanged`` after a
    /// change that may leave the rows shown on a page not held.
    package mutating func updateWindow(_ change: (inout MailListWindow) -> Void) { change(&window) }

    /// Applies `event`; returns what the owner must do.
    package mutating func event(_ event: Event) -> [Action] {
        switch event {
        case .firstPage(let page, let emails, let arrivals, let expunged, let isListing):
            window = MailListWindow(
                list: page.list, pageSize: pageSize, pinnedSection: window.pinnedSection,
                revision: window.revision &+ 1)
            window.insert(page: window.page(ofOffset: page.offset), emails)
            if !arrivals.isEmpty { window.arrive(arrivals) }
            window.remove(expunged)
            shown = 0..<pageSize
            if isListing { state = .ready(page.list) }
            return []
        case .pause:
            switch state {
            case .unlisted, .paused: break
            case .ready(let list), .loading(let list, _): state = .paused(list)
            }
            return []
        case .cancelLoad:
            if case .loading(let list, _) = state { state = .ready(list) }
            return []
        case .clear:
            window = MailListWindow(
                pageSize: pageSize, pinnedSection: window.pinnedSection, revision: window.revision &+ 1)
            shown = 0..<pageSize
            state = .unlisted
            return []
        case .show(let rows):
            guard shown != rows else { return [] }
            shown = rows
            return windowChanged()
        case .loadMore:
            guard case .ready = state, window.hasPageAfterHeld else { return [] }
            let next = (window.residentPages.last ?? -1) + 1
            let end = window.pinnedCount + window.start(ofPage: next) + 1
            shown = min(shown.lowerBound, end - 1)..<max(shown.upperBound, end)
            return windowChanged()
        case .windowChanged:
            return windowChanged()
        case .pageLoaded(let emails):
            guard case .loading(let list, let request) = state else { return [] }
            state = .ready(list)
            if let asked = request.pinned {
                window.insertPinned(emails, asked: asked)
            } else {
                let keep = keptPages()?.contains(request.page) ?? false
                window.insert(page: request.page, emails, keep: keep)
            }
            return windowChanged()
        case .pageFailed:
            guard case .loading(let list, _) = state else { return [] }
            state = .ready(list)
            return []
        }
    }

    /// The pages that `rows` of `window` fall in; nil when the list has none.
    private static func pages(_ rows: Range<Int>, in window: MailListWindow) -> ClosedRange<Int>? {
        guard window.pageCount > 0, window.othersCount > window.start(ofPage: 0) else { return nil }
        let last = window.pageCount - 1
        func page(_ position: Int) -> Int {
            let other = max(0, position - window.pinnedCount)
            if let page = window.page(ofOther: other) { return page }
            return other < window.othersCount ? 0 : last
        }
        let first = page(rows.lowerBound)
        let final = page(max(rows.lowerBound, rows.upperBound - 1))
        return min(first, final)...max(first, final)
    }

    /// The pages held: those shown and ``pagesKeptAround`` either side.
    private func keptPages() -> ClosedRange<Int>? {
        guard let wanted = Self.pages(shown, in: window) else { return nil }
        return (wanted.lowerBound - Self.pagesKeptAround)...(wanted.upperBound + Self.pagesKeptAround)
    }

    /// Drops the pages far from what the view shows and asks for the missing page nearest the
    /// middle of it (one page load at a time: its answer asks for the next), so `G` at the end
    /// of 100,000 messages loads the last page, not the pages before it.
    private mutating func windowChanged() -> [Action] {
        guard let wanted = Self.pages(shown, in: window), let kept = keptPages() else { return [] }
        // Pinned rows are held near the view only, like pages: a page of rows either side.
        let keptPinned = (shown.lowerBound - pageSize)..<max(shown.lowerBound - pageSize, shown.upperBound + pageSize)
        for page in window.residentPages where !kept.contains(page) { window.drop(page: page) }
        window.dropPinnedRows(outside: keptPinned)
        guard case .ready(let list) = state else { return [] }
        let pinnedShown = window.pinnedNotHeld(in: shown)
        if !pinnedShown.isEmpty {
            // Pinned rows in view come first: fetched by UID, not by page.
            state = .loading(list, PageRequest(page: -1, pinned: pinnedShown))
            return [.loadPage(MessageList(ids: pinnedShown), offset: 0, pageSize: pageSize)]
        }
        // The middle of the rows shown is what is in view (the view asks for as many rows either
        // side of it), also at the ends of the list.
        let center = shown.lowerBound + shown.count / 2
        let middle = Self.pages(center..<center + 1, in: window)?.lowerBound ?? wanted.lowerBound
        let missing = wanted.filter { !window.isResident($0) }.min { abs($0 - middle) < abs($1 - middle) }
        guard let missing else { return [] }
        state = .loading(list, PageRequest(page: missing))
        return [.loadPage(list, offset: window.offset(ofPage: missing), pageSize: pageSize)]
    }
}
