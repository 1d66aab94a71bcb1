/// A mail list (the inbox, or a search's results) as a window over its ``MessageList``: only the
/// rows of a few pages around what the view shows are held, the others are counted but not
/// kept, and come back (fetched again by their offset into the list) when the view scrolls back
/// to them.
///
/// The list's messages are numbered as a view lists them: the Pinned section first (the inbox
/// only: every pinned message seen is kept in it by UID, its row held only near the view, and
/// fetched again by UID when the view comes back to it), then the others newest first:
/// the messages that arrived since the listing, then the list's pages in order. A page that is
/// not held counts as many messages as it showed when it was last held, or as it lists before
/// it was ever loaded (a page leaves out messages marked deleted, and pinned ones, so that is
/// an estimate until it loads); a position in such a page is a row not loaded yet (`nil`).
///
/// Which pages are held is ``ListPaging``'s to decide (``ListPaging/pagesKeptAround``): this
/// type keeps the rows, their order and their numbering. Reading a message by position costs a
/// binary search over the pages, not a walk over the rows: a key press reads a screenful.
public struct MailListWindow: Hashable, Sendable {
    /// A row and its place in the list's order: its index in the list, or for a message that
    /// arrived after the listing a negative number (newer arrivals lower).
    private struct Row: Hashable, Sendable {
        var email: Email
        var order: Int
    }

    /// How many messages a page of the list holds.
    public let pageSize: Int
    /// Whether pinned messages are listed first in their own section (the inbox) or in order
    /// with the others (search results).
    public let pinnedSection: Bool
    /// The listing the pages come from.
    public private(set) var list: MessageList
    /// Changes with every change to the rows, their flags or their numbering: an unchanged
    /// window is recognised without comparing its rows.
    public private(set) var revision = 0

    /// A message of the Pinned section: its UID and place, whether or not its row is held.
    private struct PinnedEntry: Hashable, Sendable {
        var id: Email.ID
        var order: Int
    }

    /// The Pinned section in order; `pinnedRows` holds the rows of some of them.
    private var pinned: [PinnedEntry] = []
    private var pinnedIDs: Set<Email.ID> = []
    private var pinnedRows: [Email.ID: Row] = [:]
    private var arrivals: [Row] = []
    private var pages: [Int: [Row]] = [:]
    /// For each page, how many messages it counts for while it is not held.
    private var counts: [Int]
    /// `starts[page]`: the position among the others (not pinned) of the page's first message;
    /// `starts[pageCount]` is how many others there are.
    private var starts: [Int] = [0]
    private var lowestArrivalOrder = 0

    /// Where a message marked deleted after the listing was, to put it back when the mark is
    /// cleared.
    private enum Hidden: Hashable, Sendable {
        /// Its row was held.
        case row(Row)
        /// It was in the Pinned section, its row not held.
        case pinned(order: Int)
        /// It was counted in page `page`, which was not held.
        case counted(page: Int)
    }

    /// The messages marked deleted since the listing: out of the list, as a listing leaves them.
    private var hidden: [Email.ID: Hidden] = [:]
    /// Each listed message's index in the list, built the first time a message not held must
    /// be placed (pinned or marked deleted elsewhere), so a burst of such changes costs a lookup
    /// each, not a walk of the list each.
    private var listIndex: [Email.ID: Int]?

    /// A window over `list` holding no rows yet; its ``revision`` starts at `revision` (the
    /// window it replaces' revision plus one, so the two are told apart by revision alone).
    public init(list: MessageList = MessageList(ids: []), pageSize: Int, pinnedSection: Bool, revision: Int = 0) {
        self.revision = revision
        self.pageSize = max(1, pageSize)
        self.pinnedSection = pinnedSection
        self.list = list
        let size = max(1, pageSize)
        let pageCount = (list.ids.count + size - 1) / size
        counts = (0..<pageCount).map { page in min(size, list.ids.count - page * size) }
        if pinnedSection && !list.pinned.isEmpty {
            // The listing's pinned messages make the Pinned section from the start (their rows
            // are fetched by UID when in view); their pages count them no more.
            let wanted = Set(list.pinned)
            for (order, id) in list.ids.enumerated() where wanted.contains(id) && !pinnedIDs.contains(id) {
                pinned.append(PinnedEntry(id: id, order: order))
                pinnedIDs.insert(id)
                counts[order / size] -= 1
            }
        }
        recount()
    }

    // MARK: - Reading

    /// How many pages the list has.
    public var pageCount: Int { counts.count }
    /// How many messages the list shows (pinned and not), counting pages not held as estimated.
    public var count: Int { pinned.count + othersCount }
    /// How many messages show in the Pinned section (0 for search results).
    public var pinnedCount: Int { pinned.count }
    /// How many messages show after the Pinned section.
    public var othersCount: Int { starts[counts.count] }
    /// Whether no message is held and none is listed.
    public var isEmpty: Bool { count == 0 }
    /// The pages whose rows are held, in order.
    public var residentPages: [Int] { pages.keys.sorted() }
    /// How many rows are held: the pinned ones near the view, the arrivals and those of the held
    /// pages.
    public var residentCount: Int { pinnedRows.count + arrivals.count + pages.values.reduce(0) { $0 + $1.count } }
    /// Whether page `page` is held.
    public func isResident(_ page: Int) -> Bool { pages[page] != nil }
    /// Whether the list has a page after the last one held (a view's "load more").
    public var hasPageAfterHeld: Bool { !counts.isEmpty && (pages.keys.max() ?? -1) < counts.count - 1 }

    /// The message at `position` (pinned first, then the others), or nil when its page is not
    /// held (or `position` is out of range).
    public subscript(position: Int) -> Email? {
        guard position >= 0 else { return nil }
        if position < pinned.count { return pinnedRows[pinned[position].id]?.email }
        return other(at: position - pinned.count)
    }

    /// The message at `position` among the others (after the Pinned section).
    public func other(at position: Int) -> Email? {
        guard position >= 0 else { return nil }
        if position < arrivals.count { return arrivals[position].email }
        guard let page = page(ofOther: position), let rows = pages[page] else { return nil }
        let local = position - starts[page]
        return rows.indices.contains(local) ? rows[local].email : nil
    }

    /// The page that position `position` among the others falls in; nil for an arrival or a
    /// position past the end.
    public func page(ofOther position: Int) -> Int? {
        guard position >= arrivals.count, position < othersCount else { return nil }
        // The last page whose start is at or before `position`, skipping empty pages.
        var low = 0
        var high = counts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Where page `page`'s first message is among the others.
    public func start(ofPage page: Int) -> Int { starts[min(max(0, page), counts.count)] }

    /// The position of held message `id` (pinned first, then the others), or nil when it is not
    /// held. Looks through the held rows only, which are few.
    public func position(of id: Email.ID) -> Int? {
        if let row = pinnedRows[id] { return pinnedIndex(of: row.order, id) }
        if let index = arrivals.firstIndex(where: { $0.email.id == id }) { return pinned.count + index }
        for (page, rows) in pages {
            if let index = rows.firstIndex(where: { $0.email.id == id }) { return pinned.count + starts[page] + index }
        }
        return nil
    }

    /// Held message `id`, or nil when it is not held.
    public func email(_ id: Email.ID) -> Email? {
        if let row = pinnedRows[id] { return row.email }
        guard let position = position(of: id) else { return nil }
        return self[position]
    }

    /// The held pinned messages, newest first.
    public var pinnedEmails: [Email] { heldPinnedRows.map(\.email) }

    /// The held pinned rows in order: sorted from the few held, not looked up for each of the
    /// section's messages (a mailbox pins thousands).
    private var heldPinnedRows: [Row] { pinnedRows.values.sorted { $0.order < $1.order } }

    /// The pinned messages at `positions` whose rows are not held, at most a page of them.
    public func pinnedNotHeld(in positions: Range<Int>) -> [Email.ID] {
        let range = positions.clamped(to: 0..<pinned.count)
        return Array(pinned[range].lazy.map(\.id).filter { self.pinnedRows[$0] == nil }.prefix(pageSize))
    }
    /// The held messages that are not in the Pinned section, in order (arrivals, then the held
    /// pages; a gap where a page is not held).
    public var otherEmails: [Email] {
        arrivals.map(\.email) + pages.keys.sorted().flatMap { pages[$0]!.map(\.email) }
    }
    /// Every held message in the list's order, pinned or not.
    public var residentEmails: [Email] {
        let others = arrivals + pages.keys.sorted().flatMap { pages[$0]! }
        return merged(heldPinnedRows, others).map(\.email)
    }

    /// The page that `offset` into the list starts.
    public func page(ofOffset offset: Int) -> Int { offset / pageSize }

    /// Where page `page` starts in the list.
    public func offset(ofPage page: Int) -> Int { page * pageSize }

    // MARK: - Changing

    /// Holds `emails` as page `page` (replacing what it held), except the pinned ones, which go
    /// to the Pinned section (the inbox) whether or not the page is kept. With `keep` false only
    /// the pinned ones are taken.
    package mutating func insert(page: Int, _ emails: [Email], keep: Bool = true) {
        guard page >= 0, page < counts.count else { return }
        let base = page * pageSize
        let orders = orderInList(emails, from: base)
        var rows: [Row] = []
        for (email, order) in zip(emails, orders) {
            removeAnywhere(email.id, order: order)
            hidden[email.id] = nil
            if pinnedSection && email.isPinned {
                insertPinned(Row(email: email, order: order))
            } else {
                rows.append(Row(email: email, order: order))
            }
        }
        if keep {
            pages[page] = rows
            counts[page] = rows.count
            // The page's listed messages it left out (marked deleted) come back with it.
            let returned = Set(emails.lazy.map(\.id))
            for id in list.ids[min(base, list.ids.count)..<min(list.ids.count, base + pageSize)]
            where !returned.contains(id) && !pinnedIDs.contains(id) {
                hidden[id] = .counted(page: page)
            }
        }
        changed()
    }

    /// Holds the rows of pinned messages fetched again by UID (`asked`): each still pinned is
    /// held in its place; one no longer pinned goes back into its page (or its count); one
    /// missing from `emails` (expunged meanwhile) leaves the section.
    package mutating func insertPinned(_ emails: [Email], asked: [Email.ID]) {
        let found = Dictionary(emails.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for id in asked {
            guard let index = pinned.firstIndex(where: { $0.id == id }) else { continue }
            let order = pinned[index].order
            if let email = found[id], email.isPinned {
                pinnedRows[id] = Row(email: email, order: order)
            } else {
                pinned.remove(at: index)
                pinnedIDs.remove(id)
                pinnedRows[id] = nil
                if let email = found[id] { place(Row(email: email, order: order)) }
            }
        }
        changed()
    }

    /// Stops holding the rows of the pinned messages outside `positions` (they stay in the
    /// section, by UID).
    package mutating func dropPinnedRows(outside positions: Range<Int>) {
        var dropped = false
        for (id, row) in pinnedRows {
            let index = pinnedIndex(of: row.order, id)
            if index.map({ !positions.contains($0) }) ?? true {
                pinnedRows[id] = nil
                dropped = true
            }
        }
        if dropped { changed() }
    }

    /// Stops holding page `page`'s rows; it counts as many messages as it showed.
    package mutating func drop(page: Int) {
        guard let rows = pages.removeValue(forKey: page) else { return }
        counts[page] = rows.count
        changed()
    }

    /// Messages that arrived after the listing go on top (newest first), those held already
    /// or listed are left out.
    package mutating func arrive(_ emails: [Email]) {
        var fresh: [Row] = []
        let listed = Set(list.ids)
        for email in emails.reversed() where position(of: email.id) == nil && !listed.contains(email.id) {
            lowestArrivalOrder -= 1
            fresh.append(Row(email: email, order: lowestArrivalOrder))
        }
        guard !fresh.isEmpty else { return }
        for row in fresh.reversed() {
            if pinnedSection && row.email.isPinned {
                insertPinned(row)
            } else {
                arrivals.insert(row, at: 0)
            }
        }
        changed()
    }

    /// Listed message `id`, whose row is not held, was pinned: it joins the Pinned section
    /// (with `row` when the caller holds it elsewhere, else its row is fetched by UID when in
    /// view), and its page counts it no more.
    package mutating func pinNotHeld(_ id: Email.ID, row: Email?) {
        guard pinnedSection, !pinnedIDs.contains(id), hidden[id] == nil, position(of: id) == nil,
            let order = indexInList(id)
        else { return }
        let page = order / pageSize
        guard pages[page] == nil else { return }
        if counts[page] > 0 { counts[page] -= 1 }
        if let row, row.isPinned {
            insertPinned(Row(email: row, order: order))
        } else {
            pinned.insert(PinnedEntry(id: id, order: order), at: pinnedInsertionIndex(order))
            pinnedIDs.insert(id)
        }
        changed()
    }

    private mutating func indexInList(_ id: Email.ID) -> Int? {
        if listIndex == nil {
            var index: [Email.ID: Int] = [:]
            index.reserveCapacity(list.ids.count)
            for (order, listed) in list.ids.enumerated() { index[listed] = order }
            listIndex = index
        }
        return listIndex?[id]
    }

    /// Whether message `id` was marked deleted since the listing (and is out of the list).
    public func isHidden(_ id: Email.ID) -> Bool { hidden[id] != nil }

    /// Takes message `id`, marked deleted elsewhere, out of the list as a listing would, held or
    /// not (a page not held counts one less); ``unhide(_:_:)`` puts it back.
    package mutating func hide(_ id: Email.ID) {
        guard hidden[id] == nil else { return }
        if pinnedIDs.contains(id) && pinnedRows[id] == nil {
            guard let index = pinned.firstIndex(where: { $0.id == id }) else { return }
            hidden[id] = .pinned(order: pinned.remove(at: index).order)
            pinnedIDs.remove(id)
        } else if let row = removeAnywhere(id) {
            hidden[id] = .row(row)
        } else if let index = indexInList(id) {
            let page = index / pageSize
            guard pages[page] == nil, counts[page] > 0 else { return }
            counts[page] -= 1
            hidden[id] = .counted(page: page)
        } else {
            return
        }
        changed()
    }

    /// Puts message `id` back where it was when it was hidden (its mark deleted cleared), changed
    /// by `change` (its new flags). A message a fetched page left out (marked deleted then) is
    /// hidden too: its page, when held, is dropped to be fetched again with it.
    package mutating func unhide(_ id: Email.ID, _ change: (inout Email) -> Void) {
        guard let spot = hidden.removeValue(forKey: id) else { return }
        switch spot {
        case .row(var row):
            change(&row.email)
            place(row)
        case .pinned(let order):
            if pinnedSection {
                let index = pinnedInsertionIndex(order)
                pinned.insert(PinnedEntry(id: id, order: order), at: index)
                pinnedIDs.insert(id)
            }
        case .counted(let page):
            if pages[page] == nil {
                counts[page] += 1
            } else {
                // Its page came in while it was hidden: fetched again, it shows the message.
                drop(page: page)
            }
        }
        changed()
    }

    /// Removes messages expunged elsewhere, held or not (a page not held counts one less for
    /// each of its messages among them).
    package mutating func remove(_ ids: Set<Email.ID>) {
        guard !ids.isEmpty else { return }
        // A hidden message is out of the counts already.
        var ids = ids
        for id in ids where hidden.removeValue(forKey: id) != nil { ids.remove(id) }
        guard !ids.isEmpty else { return changed() }
        var found = 0
        let pinnedGone = pinnedIDs.intersection(ids)
        for id in ids where removeAnywhere(id) != nil { found += 1 }
        var removedFromDropped = !pinnedGone.isEmpty
        if !ids.isEmpty {
            for (index, id) in list.ids.enumerated() where ids.contains(id) && !pinnedGone.contains(id) {
                let page = index / pageSize
                if pages[page] == nil && counts[page] > 0 {
                    counts[page] -= 1
                    removedFromDropped = true
                }
            }
        }
        if found > 0 || removedFromDropped { changed() }
    }

    /// Changes held message `id` with `change`; it moves into or out of the Pinned section when
    /// its pin changes. Nothing happens when it is not held.
    /// A pinned message whose row is not held is left as it is (``unpinNotHeld(_:)`` takes it
    /// out of the section).
    package mutating func update(_ id: Email.ID, _ change: (inout Email) -> Void) {
        guard pinnedRows[id] != nil || !pinnedIDs.contains(id), let row = removeAnywhere(id) else { return }
        var updated = row
        change(&updated.email)
        place(updated)
        changed()
    }

    /// A pinned message whose row is not held is no longer pinned: it leaves the section and is
    /// counted in its page again (its row shows when the page is fetched).
    package mutating func unpinNotHeld(_ id: Email.ID) {
        guard pinnedIDs.contains(id), pinnedRows[id] == nil,
            let index = pinned.firstIndex(where: { $0.id == id })
        else { return }
        let order = pinned.remove(at: index).order
        pinnedIDs.remove(id)
        let page = order / pageSize
        if order >= 0, page < counts.count, pages[page] == nil { counts[page] += 1 }
        changed()
    }

    /// Changes every held message with `change` (a new pin flag).
    package mutating func updateAll(_ change: (inout Email) -> Void) {
        // A pinned message whose row is not held cannot be judged by the new flag: it leaves the
        // section, to come back when its page is fetched.
        let rows = Array(pinnedRows.values) + arrivals + pages.values.flatMap { $0 }
        pinned = []
        pinnedIDs = []
        pinnedRows = [:]
        arrivals = []
        for page in pages.keys { pages[page] = [] }
        for row in rows {
            var updated = row
            change(&updated.email)
            place(updated)
        }
        changed()
    }

    // MARK: - Keeping it in order

    /// Puts a row back where it belongs: the Pinned section, the arrivals or its page (when
    /// held; else it is counted there).
    private mutating func place(_ row: Row) {
        if pinnedSection && row.email.isPinned {
            insertPinned(row)
        } else if row.order < 0 {
            let index = arrivals.firstIndex { $0.order > row.order } ?? arrivals.count
            arrivals.insert(row, at: index)
        } else {
            let page = row.order / pageSize
            if var rows = pages[page] {
                let index = rows.firstIndex { $0.order > row.order } ?? rows.count
                rows.insert(row, at: index)
                pages[page] = rows
                counts[page] = rows.count
            } else if page < counts.count {
                counts[page] += 1
            }
        }
    }

    private mutating func insertPinned(_ row: Row) {
        let index = pinnedInsertionIndex(row.order)
        pinned.insert(PinnedEntry(id: row.email.id, order: row.order), at: index)
        pinnedIDs.insert(row.email.id)
        pinnedRows[row.email.id] = row
    }

    /// Where an entry of `order` goes in `pinned` (after those of lower or equal order).
    private func pinnedInsertionIndex(_ order: Int) -> Int {
        var (low, high) = (0, pinned.count)
        while low < high {
            let middle = (low + high) / 2
            if pinned[middle].order <= order { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index in `pinned` of the entry `id` of `order` (a binary search, then a look at its
    /// neighbours of the same order).
    private func pinnedIndex(of order: Int, _ id: Email.ID) -> Int? {
        var index = pinnedInsertionIndex(order) - 1
        while index >= 0, pinned[index].order == order {
            if pinned[index].id == id { return index }
            index -= 1
        }
        return pinned.firstIndex { $0.id == id }
    }

    /// Takes message `id` out of wherever it is held (`order`, its index in the list, when the
    /// caller knows it); a pinned message whose row is not held leaves the section.
    @discardableResult
    private mutating func removeAnywhere(_ id: Email.ID, order: Int? = nil) -> Row? {
        if let row = pinnedRows.removeValue(forKey: id) {
            if let index = pinnedIndex(of: row.order, id) { pinned.remove(at: index) }
            pinnedIDs.remove(id)
            return row
        }
        if pinnedIDs.contains(id) {
            let index = order.flatMap { pinnedIndex(of: $0, id) } ?? pinned.firstIndex { $0.id == id }
            if let index { pinned.remove(at: index) }
            pinnedIDs.remove(id)
            return nil
        }
        if let index = arrivals.firstIndex(where: { $0.email.id == id }) { return arrivals.remove(at: index) }
        for (page, rows) in pages {
            if let index = rows.firstIndex(where: { $0.email.id == id }) {
                var rows = rows
                let row = rows.remove(at: index)
                pages[page] = rows
                counts[page] = rows.count
                return row
            }
        }
        return nil
    }

    /// Each message's index in the list, looked for from `base` (a page's messages are in the
    /// list's order, some left out).
    private func orderInList(_ emails: [Email], from base: Int) -> [Int] {
        var orders: [Int] = []
        var cursor = min(base, list.ids.count)
        let end = min(list.ids.count, base + pageSize)
        for email in emails {
            var index = cursor
            while index < end, list.ids[index] != email.id { index += 1 }
            if index < end {
                orders.append(index)
                cursor = index + 1
            } else {
                // Not where the list has it: after the page's last found message.
                orders.append(max(base, cursor - 1))
            }
        }
        return orders
    }

    private func merged(_ first: [Row], _ second: [Row]) -> [Row] {
        var result: [Row] = []
        result.reserveCapacity(first.count + second.count)
        var (i, j) = (0, 0)
        while i < first.count || j < second.count {
            if j == second.count || (i < first.count && first[i].order <= second[j].order) {
                result.append(first[i])
                i += 1
            } else {
                result.append(second[j])
                j += 1
            }
        }
        return result
    }

    private mutating func changed() {
        recount()
        revision &+= 1
    }

    /// Numbers the pages again: O(pages), after a change, never on a read.
    private mutating func recount() {
        var starts = [Int](repeating: 0, count: counts.count + 1)
        var total = arrivals.count
        for page in counts.indices {
            starts[page] = total
            total += pages[page]?.count ?? counts[page]
        }
        starts[counts.count] = total
        self.starts = starts
    }
}
