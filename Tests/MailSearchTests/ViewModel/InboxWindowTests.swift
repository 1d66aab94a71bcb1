import Foundation
import IMAPCore
import MailSearch
import TestSupport
import Testing

/// A mailbox in memory that answers the screen's effects the way a service does: a listing,
/// and pages by offset into it read from the mailbox as it is when asked.
private struct PagedMailbox {
    static let name = "INBOX"
    private(set) var emails: [Email]
    private var positions: [Email.ID: Int] = [:]

    /// `count` messages, newest first; those at `pinned` positions are pinned (`\Flagged`), every
    /// third one is read.
    init(count: Int, pinned: Set<Int> = []) {
        let now = Date(timeIntervalSince1970: 1_710_460_800)
        emails = (0..<count).map { position in
            var flags: [Flag] = position % 3 == 0 ? [.seen] : []
            if pinned.contains(position) { flags.append(.flagged) }
            return Email(
                id: Self.id(position),
                from: Email.Person(name: "Sender \(position % 7)", address: "s\(position % 7)@x"),
                subject: "Message \(position)", date: now.addingTimeInterval(-Double(position) * 60),
                preview: "Text \(position)", flags: flags)
        }
        for (position, email) in emails.enumerated() { positions[email.id] = position }
    }

    /// The message at `position` of the listing has UID `count - position` (the newest has
    /// the highest).
    static func id(_ position: Int) -> Email.ID {
        Email.ID(mailbox: name, uidValidity: 1, uid: UInt32(100_000 - position))
    }

    var description: MailboxDescription {
        MailboxDescription(name: Self.name, uidValidity: 1, messageCount: emails.count)
    }

    var list: MessageList {
        MessageList(ids: emails.map(\.id))
    }

    func page(_ list: MessageList, offset: Int, pageSize: Int) -> EmailPage {
        let emails = list.ids.dropFirst(offset).prefix(pageSize).compactMap { id in
            positions[id].map { self.emails[$0] }
        }
        return EmailPage(list: list, offset: offset, emails: emails)
    }

    mutating func setFlags(_ flags: [Flag], at position: Int) {
        emails[position].setFlags(flags, pinFlag: .flagged)
    }

    func position(of id: Email.ID) -> Int? { positions[id] }
}

/// An ``InboxScreen`` driven over a ``PagedMailbox``: every effect is answered at once, except
/// page loads while `holdPages` is set, which wait in `heldPages`.
private struct WindowDriver {
    var screen = InboxScreen(pageSize: 50)
    var mailbox: PagedMailbox
    /// The offsets of the pages asked for, in order.
    var pagesAsked: [Int] = []
    var holdPages = false
    var heldPages: [InboxScreen.Effect] = []

    init(_ mailbox: PagedMailbox) { self.mailbox = mailbox }

    /// Opens and lists the mailbox.
    mutating func start() {
        feed(.start)
        feed(.opened(mailbox.description))
    }

    mutating func feed(_ event: InboxScreen.Event) {
        var effects = screen.handle(event)
        while !effects.isEmpty {
            let effect = effects.removeFirst()
            effects += answer(effect)
        }
    }

    /// Answers the held page loads (computed now, from the mailbox as it is now).
    mutating func releasePages() {
        let held = heldPages
        heldPages = []
        holdPages = false
        for effect in held { for event in events(answering: effect) { feed(event) } }
    }

    /// Answers held page loads computed now, but delivered only after `meanwhile` happened.
    mutating func releasePages(after meanwhile: [InboxScreen.Event]) {
        let answers = heldPages.flatMap { events(answering: $0) }
        heldPages = []
        holdPages = false
        for event in meanwhile { feed(event) }
        for event in answers { feed(event) }
    }

    /// Scrolls so that message `position` (window numbering) is at the top of a screen of
    /// `body` rows, asking for two screenfuls either side as the terminal UI does.
    mutating func scroll(to position: Int, body: Int = 21) {
        feed(.show(.inbox, rows: (position - 2 * body)..<(position + 3 * body)))
    }

    private mutating func answer(_ effect: InboxScreen.Effect) -> [InboxScreen.Effect] {
        if case .loadPage = effect, holdPages {
            heldPages.append(effect)
            return []
        }
        var effects: [InboxScreen.Effect] = []
        for event in events(answering: effect) { effects += screen.handle(event) }
        return effects
    }

    private mutating func events(answering effect: InboxScreen.Effect) -> [InboxScreen.Event] {
        switch effect {
        case .loadList(let generation, let pageSize):
            return [.listLoaded(generation: generation, mailbox.page(mailbox.list, offset: 0, pageSize: pageSize))]
        case .countUnread(let generation):
            return [.unreadCounted(generation: generation, mailbox.emails.filter { !$0.isRead }.map(\.uid))]
        case .loadPage(let target, let generation, let list, let offset, let pageSize):
            pagesAsked.append(offset)
            return [.pageLoaded(target, generation: generation, mailbox.page(list, offset: offset, pageSize: pageSize))]
        case .setPinned(let ids, let isPinned, let change):
            for id in ids {
                guard let position = mailbox.position(of: id) else { continue }
                let others = mailbox.emails[position].flags.filter { $0 != .flagged }
                mailbox.setFlags(isPinned ? others + [.flagged] : others, at: position)
            }
            return [.flagChangeCompleted(change, FlagChangeResult())]
        case .setRead(let ids, let isRead, let change):
            for id in ids {
                guard let position = mailbox.position(of: id) else { continue }
                let others = mailbox.emails[position].flags.filter { $0 != .seen }
                mailbox.setFlags(isRead ? others + [.seen] : others, at: position)
            }
            return [.flagChangeCompleted(change, FlagChangeResult())]
        case .loadHistory, .open, .listen, .stopListening, .search, .cancelSearch, .recordHistory, .close, .typeAhead,
            .cancelTypeAhead:
            return []
        }
    }
}

/// The inbox as a window: scrolling 5,000 messages holds a few pages, scrolling back loads
/// them again, G loads the last page directly, pinned rows and changes to rows not held are kept.
@Suite(.hangGuard, .cpuBound) struct InboxWindowTests {
    /// What the screen documents: the pages the view's rows touch (five screenfuls of 21 rows
    /// touch at most four pages of 50) and one page either side, plus the pinned rows.
    static let residentPageBound = 4 + 2 * InboxScreen.pagesKeptAround

    @Test func scrollingTheWholeMailboxHoldsAFewPagesAndShowsTheRightRows() {
        var driver = WindowDriver(PagedMailbox(count: 5000))
        driver.start()
        #expect(driver.screen.inboxWindow.count == 5000)
        #expect(driver.screen.unreadCount == 5000 - 1667)
        var position = 0
        var mostHeld = 0
        while position < 5000 {
            driver.scroll(to: position)
            let window = driver.screen.inboxWindow
            mostHeld = max(mostHeld, window.residentCount)
            #expect(window.residentPages.count <= Self.residentPageBound, "at \(position): \(window.residentPages)")
            #expect(window.residentCount <= Self.residentPageBound * 50, "at \(position)")
            // The screenful in view is loaded, and is the mailbox's messages at those positions.
            for row in position..<min(5000, position + 21) {
                #expect(window[row]?.subject == "Message \(row)", "row \(row)")
            }
            position += 20
        }
        #expect(mostHeld > 100, "the view's pages were held")
        #expect(driver.screen.inbox.count <= Self.residentPageBound * 50)
        #expect(!driver.screen.inboxWindow.isResident(0))
        // Every page was asked for once on the way down, none twice.
        #expect(driver.pagesAsked == Array(stride(from: 50, to: 5000, by: 50)))
    }

    @Test func scrollingBackLoadsADroppedPageAgainWithItsRows() {
        var driver = WindowDriver(PagedMailbox(count: 5000))
        driver.start()
        driver.scroll(to: 4000)
        #expect(!driver.screen.inboxWindow.isResident(0))
        #expect(driver.screen.inboxWindow[10] == nil, "a row of a page not held is not loaded")
        driver.pagesAsked = []
        driver.scroll(to: 0)
        #expect(driver.pagesAsked == [0, 50], "the first page, then the one two screenfuls on")
        let window = driver.screen.inboxWindow
        #expect((0..<63).map { window[$0]?.subject } == (0..<63).map { "Message \($0)" })
        #expect(window.residentPages == [0, 1])
    }

    @Test func goingToTheEndLoadsTheLastPageAndNotThoseBetween() {
        var driver = WindowDriver(PagedMailbox(count: 5000))
        driver.start()
        driver.pagesAsked = []
        // G: the last message at the bottom of a screen of 21 rows.
        driver.scroll(to: 5000 - 21)
        #expect(driver.pagesAsked.first == 4950, "the last page first")
        #expect(driver.pagesAsked.allSatisfy { $0 >= 4900 }, "\(driver.pagesAsked)")
        #expect(driver.screen.inboxWindow[4999]?.subject == "Message 4999")
        #expect(driver.screen.inboxWindow.residentPages == [98, 99])
        #expect(!driver.screen.canLoadMore)
        // g: back to the top.
        driver.scroll(to: 0)
        #expect(driver.screen.inboxWindow[0]?.subject == "Message 0")
        #expect(driver.screen.inboxWindow.residentPages == [0, 1])
    }

    @Test func pinnedMessagesStayInTheSectionWhenTheirPagesAreDroppedAndLeaveItWhenUnpinned() {
        var driver = WindowDriver(PagedMailbox(count: 5000, pinned: [7, 1234, 2500]))
        driver.start()
        for position in stride(from: 0, to: 5000, by: 20) { driver.scroll(to: position) }
        let pinned = [7, 1234, 2500].map(PagedMailbox.id)
        var window = driver.screen.inboxWindow
        #expect(window.pinnedCount == 3, "all three, though their pages went")
        #expect(window.pinnedEmails.isEmpty, "their rows are far from the view: not held")
        #expect(window.count == 5000)
        #expect(window.othersCount == 4997)
        // Back at the top, the section's rows are fetched again by UID, newest first.
        driver.pagesAsked = []
        driver.scroll(to: 0)
        window = driver.screen.inboxWindow
        #expect((0..<3).map { window[$0]?.id } == pinned)
        #expect(window[3]?.subject == "Message 0")
        #expect(driver.pagesAsked == [0, 0, 50], "the pinned rows (by UID), then the first two pages")
        // Unpinned elsewhere while its row is not held: it leaves the section, and shows in date
        // order when its page is back.
        driver.scroll(to: 3000)
        driver.mailbox.setFlags([], at: 1234)
        driver.feed(.mailbox(.flagsChanged(pinned[1], [])))
        #expect(driver.screen.inboxWindow.pinnedCount == 2)
        #expect(driver.screen.inboxWindow.count == 5000)
        // Two pinned above, then the others: message 1234 is the 1233rd other (7 is pinned).
        driver.scroll(to: 1220)
        window = driver.screen.inboxWindow
        #expect(window[2 + 1233]?.subject == "Message 1234")
        #expect(window[2 + 1233]?.isPinned == false)
        #expect(window[2 + 1232]?.subject == "Message 1233")
        #expect(window[2 + 1234]?.subject == "Message 1235")
    }

    @Test func manyPinnedMessagesAreHeldNearTheViewOnly() {
        // Every 20th pinned: 250 in the section.
        let pinned = Set(stride(from: 0, to: 5000, by: 20))
        var driver = WindowDriver(PagedMailbox(count: 5000, pinned: pinned))
        driver.start()
        var position = 0
        while position < driver.screen.inboxWindow.count {
            driver.scroll(to: position)
            let window = driver.screen.inboxWindow
            // The pages the rows touch and one either side; the pinned rows shown and a page
            // either side of them.
            #expect(window.residentCount <= Self.residentPageBound * 50 + 105 + 2 * 50, "at \(position)")
            for row in position..<min(window.count, position + 21) { #expect(window[row] != nil, "row \(row)") }
            position += 20
        }
        #expect(driver.screen.inboxWindow.pinnedCount == 250)
        driver.scroll(to: 0)
        let window = driver.screen.inboxWindow
        #expect((0..<63).map { window[$0]?.subject } == (0..<63).map { "Message \($0 * 20)" })
        #expect(window.residentCount <= Self.residentPageBound * 50 + 105 + 2 * 50)
    }

    @Test func aChangeElsewhereToARowNotHeldShowsWhenItIsScrolledBackTo() {
        var driver = WindowDriver(PagedMailbox(count: 5000))
        driver.start()
        let unread = driver.screen.unreadCount
        #expect(driver.screen.inboxWindow[5]?.isRead == false)
        driver.scroll(to: 3000)
        #expect(!driver.screen.inboxWindow.isResident(0))
        // Scrolled back; the page's answer was read before another client marked message 5
        // read and pinned, and arrives after it said so.
        driver.holdPages = true
        driver.scroll(to: 0)
        var read = driver.mailbox
        read.setFlags([.seen, .flagged], at: 5)
        let event = InboxScreen.Event.mailbox(.flagsChanged(PagedMailbox.id(5), [.seen, .flagged]))
        driver.releasePages(after: [event])
        driver.mailbox = read
        let window = driver.screen.inboxWindow
        #expect(window.pinnedEmails.map(\.subject) == ["Message 5"])
        #expect(window.email(PagedMailbox.id(5))?.isRead == true)
        #expect(driver.screen.unreadCount == unread.map { $0 - 1 }, "counted at once, held or not")
    }

    @Test func theUnreadCountIsTheMailboxsAndFollowsChangesToRowsNotHeld() throws {
        var driver = WindowDriver(PagedMailbox(count: 5000))
        driver.start()
        driver.scroll(to: 3000)
        let unread = try #require(driver.screen.unreadCount)
        #expect(unread == 3333, "the whole mailbox's, not the rows held")
        // Read elsewhere, then unread again, while its page is not held.
        driver.feed(.mailbox(.flagsChanged(PagedMailbox.id(5), [.seen])))
        #expect(driver.screen.unreadCount == unread - 1)
        driver.feed(.mailbox(.flagsChanged(PagedMailbox.id(5), [])))
        #expect(driver.screen.unreadCount == unread)
        let newcomer = Email(
            id: Email.ID(mailbox: PagedMailbox.name, uidValidity: 1, uid: 200_000),
            from: Email.Person(name: nil, address: "n@x"),
            subject: "New", date: Date(timeIntervalSince1970: 1_710_470_000), preview: "", flags: [])
        driver.feed(.mailbox(.arrived([newcomer])))
        #expect(driver.screen.unreadCount == unread + 1)
        // An unread message of another mailbox (a search everywhere) is not the inbox's.
        driver.feed(.mailbox(.flagsChanged(Email.ID(mailbox: "Archive", uidValidity: 1, uid: 99_999), [])))
        #expect(driver.screen.unreadCount == unread + 1)
    }

    @Test func anExpungeOfARowNotHeldTakesItOutOfTheCountAndTheList() {
        var driver = WindowDriver(PagedMailbox(count: 5000))
        driver.start()
        driver.scroll(to: 3000)
        let unread = driver.screen.unreadCount
        driver.feed(.mailbox(.expunged([PagedMailbox.id(4)])))
        #expect(driver.screen.inboxWindow.count == 4999)
        #expect(driver.screen.unreadCount == unread.map { $0 - 1 })
        // The rows shown keep their messages: the count above them shrank with it.
        #expect(driver.screen.inboxWindow[2999]?.subject == "Message 3000")
    }

    @Test func aPendingChangeOnARowScrolledAwayShowsWhenItIsBack() throws {
        var driver = WindowDriver(PagedMailbox(count: 5000))
        driver.start()
        let mailbox = driver.mailbox
        var screen = driver.screen
        let id = PagedMailbox.id(1)
        // Marked read; the server has not answered.
        _ = screen.handle(.toggleRead(id))
        let change = try #require(screen.pendingChanges.first?.id)
        #expect(screen.unreadCount == driver.screen.unreadCount.map { $0 - 1 })
        // Scrolled away: its page goes at once, the page asked for is on its way.
        let away = screen.handle(.show(.inbox, rows: 2958..<3063))
        #expect(!screen.inboxWindow.isResident(0))
        #expect(
            away == [.loadPage(.inbox, generation: screen.listGeneration, mailbox.list, offset: 3000, pageSize: 50)])
        // Back at the top before that page arrived: it is no longer kept; the first page is
        // asked for, and comes from the server still unread there, with the change on top.
        _ = screen.handle(.show(.inbox, rows: -42..<63))
        let back = screen.handle(
            .pageLoaded(
                .inbox, generation: screen.listGeneration, mailbox.page(mailbox.list, offset: 3000, pageSize: 50)))
        #expect(!screen.inboxWindow.isResident(60))
        #expect(back == [.loadPage(.inbox, generation: screen.listGeneration, mailbox.list, offset: 0, pageSize: 50)])
        _ = screen.handle(
            .pageLoaded(.inbox, generation: screen.listGeneration, mailbox.page(mailbox.list, offset: 0, pageSize: 50)))
        #expect(screen.inboxWindow.email(id)?.isRead == true)
        // The server failed it: rolled back, held or not.
        _ = screen.handle(.flagChangeFailed(change, MailServiceError(.connection, "gone")))
        #expect(screen.inboxWindow.email(id)?.isRead == false)
        #expect(screen.unreadCount == driver.screen.unreadCount)
    }
}
