import Foundation
import IMAPCore
import MailSearch

/// Mail and machines in every state, for the state-machine tables. Pages hold 4 messages.
enum ScreenFixture {
    static let now = Date(timeIntervalSince1970: 1_710_460_800)
    static let pageSize = 4
    /// The sample mailbox, newest first: UID 1 is the newest; UIDs 3 and 6 are pinned.
    static let emails = InMemoryMailService.sampleEmails(now: now)
    static let mailbox = MailboxDescription(name: "INBOX", uidValidity: 1, messageCount: emails.count)
    static let failure = MailServiceError(.connection, "the server is unreachable; check the network")

    static func id(_ uid: UInt32) -> Email.ID { Email.ID(mailbox: "INBOX", uidValidity: 1, uid: uid) }
    static func email(_ uid: UInt32) -> Email { emails.first { $0.uid == uid }! }

    /// The page of `emails` at `offset` in a listing of all of them.
    static func page(_ emails: [Email] = emails, offset: Int = 0) -> EmailPage {
        EmailPage(
            list: MessageList(ids: emails.map(\.id)), offset: offset,
            emails: Array(emails.dropFirst(offset).prefix(pageSize)))
    }

    /// A message that was not in the mailbox when it was listed.
    static let newcomer = Email(
        id: id(11), from: Email.Person(name: "Dobby", address: "dobby@hogwarts.example"), subject: "Socks",
        date: now, preview: "Dobby is free!", flags: [])

    /// The starting states of the tables, each reached by feeding events to a fresh machine.
    enum Start: String, CaseIterable, CustomStringConvertible {
        case fresh, opening, openFailed, listing, data, empty, listFailed, reconnecting, connectionFailed
        case searchEmpty, searchTyped, searching, results, noResults, searchFailed, queryError, resultsLoadingMore
        case pendingPin, stopped

        var description: String { rawValue }

        var screen: InboxScreen {
            var screen = InboxScreen(pageSize: ScreenFixture.pageSize)
            func feed(_ events: InboxScreen.Event...) { for event in events { _ = screen.handle(event) } }
            func search(_ query: String) {
                feed(.searchingChanged(true), .queryChanged(query), .submit)
            }
            let opened: [InboxScreen.Event] = [.start, .opened(mailbox)]
            func dataState() {
                for event in opened { feed(event) }
                feed(.listLoaded(generation: screen.listGeneration, page()))
            }
            switch self {
            case .fresh: break
            case .opening: feed(.start)
            case .openFailed: feed(.start, .openFailed(failure))
            case .listing: feed(.start, .opened(mailbox))
            case .data: dataState()
            case .empty:
                feed(.start, .opened(mailbox))
                feed(.listLoaded(generation: screen.listGeneration, page([])))
            case .listFailed:
                feed(.start, .opened(mailbox))
                feed(.listFailed(generation: screen.listGeneration, failure))
            case .reconnecting:
                dataState()
                feed(.mailbox(.connectionLost("the connection was reset")))
            case .connectionFailed:
                dataState()
                feed(.mailbox(.failed(failure)))
            case .searchEmpty:
                dataState()
                feed(.searchingChanged(true))
            case .searchTyped:
                dataState()
                feed(.searchingChanged(true), .queryChanged("from:"))
            case .searching:
                dataState()
                search("from:albus")
            case .results:
                dataState()
                search("from:albus")
                feed(.searchCompleted(generation: screen.searchGeneration, page(emails)))
            case .noResults:
                dataState()
                search("from:voldemort")
                feed(.searchCompleted(generation: screen.searchGeneration, page([])))
            case .searchFailed:
                dataState()
                search("from:albus")
                feed(.searchFailed(generation: screen.searchGeneration, failure))
            case .queryError:
                dataState()
                search("from:\"albus")
            case .resultsLoadingMore:
                dataState()
                search("hogwarts")
                feed(.searchCompleted(generation: screen.searchGeneration, page(emails)), .loadMore(.results))
            case .pendingPin:
                dataState()
                feed(.togglePin(id(1)))
            case .stopped:
                dataState()
                feed(.stop)
            }
            return screen
        }
    }

    /// One of each event, with the generations a machine in `start` would accept, and stale ones.
    static func events(for screen: InboxScreen) -> [InboxScreen.Event] {
        let list = screen.listGeneration
        let search = screen.searchGeneration
        let change = screen.pendingChanges.first?.id ?? 1
        return [
            .start, .refresh, .stop, .opened(mailbox), .openFailed(failure),
            .listLoaded(generation: list, page()), .listLoaded(generation: list, page([])),
            .listLoaded(generation: list - 1, page()), .listFailed(generation: list, failure),
            .listGuessed(generation: list, page()), .listGuessed(generation: list, page([])),
            .listGuessed(generation: list - 1, page()),
            .listFailed(generation: list - 1, failure),
            .searchingChanged(true), .searchingChanged(false), .queryChanged("is:"), .queryChanged(""),
            .submit, .suggestionChosen("from:albus"), .suggestionChosen("(unbalanced"),
            .searchCompleted(generation: search, page()), .searchCompleted(generation: search, page([])),
            .searchCompleted(generation: search - 1, page()), .searchFailed(generation: search, failure),
            .searchFailed(generation: search - 1, failure),
            .loadMore(.inbox), .loadMore(.results),
            .pageLoaded(.inbox, generation: list, page(offset: 4)),
            .pageLoaded(.results, generation: search, page(offset: 4)),
            .pageLoaded(.inbox, generation: list - 1, page(offset: 4)),
            .pageFailed(.inbox, generation: list, failure), .pageFailed(.results, generation: search, failure),
            .toggleRead(id(1)), .toggleRead(id(99)), .togglePin(id(2)), .togglePin(id(3)),
            .flagChangeCompleted(change, FlagChangeResult()),
            .flagChangeCompleted(change, FlagChangeResult(refused: [id(1): "the mailbox is read-only"])),
            .flagChangeFailed(change, failure), .flagChangeCompleted(999, FlagChangeResult()),
            .mailbox(.arrived([newcomer])), .mailbox(.expunged([id(1), id(2)])),
            .mailbox(.expunged(emails.map(\.id))),
            .mailbox(.flagsChanged(id(1), [.seen, .flagged])), .mailbox(.flagsChanged(id(3), [])),
            .mailbox(.reloadNeeded(reason: "INBOX was re-created")), .mailbox(.connectionLost("reset")),
            .mailbox(.connectionRestored), .mailbox(.failed(failure)), .mailbox(.alert("maintenance at 2 am")),
            .eventsEnded, .historyLoaded(["from:bob"], warning: nil),
            .historyLoaded([], warning: "the history was replaced"), .historyFailed("disk full"), .dismissNotice,
        ]
    }

    /// What must hold in every state: the list states agree with the lists, search mode's
    /// state is reset outside it, the sections partition the inbox, pending changes show.
    static func invariantViolations(_ screen: InboxScreen) -> [String] {
        var violations: [String] = []
        switch screen.emailsListState {
        case .data: if screen.inboxWindow.isEmpty { violations.append("data with an empty inbox") }
        case .empty: if !screen.inboxWindow.isEmpty { violations.append("empty with messages") }
        case .loading, .error: break
        }
        switch screen.searchState {
        case .results: if screen.searchResults.isEmpty { violations.append("results without results") }
        case .searching, .error:
            if !screen.searchResults.isEmpty { violations.append("old results under \(screen.searchState)") }
        case .empty: break
        }
        switch screen.inboxViewState {
        case .emails:
            if screen.searchState != .empty { violations.append("\(screen.searchState) outside search mode") }
            if !screen.searchResults.isEmpty { violations.append("results outside search mode") }
            if screen.searchedQuery != nil { violations.append("a searched query outside search mode") }
        case .search: break
        }
        if screen.pinnedEmails.contains(where: { !$0.isPinned }) { violations.append("unpinned in Pinned") }
        if screen.unpinnedEmails.contains(where: \.isPinned) { violations.append("pinned among the rest") }
        if screen.pinnedEmails.count + screen.unpinnedEmails.count != screen.inbox.count {
            violations.append("sections do not partition the inbox")
        }
        if Set(screen.inbox.map(\.id)).count != screen.inbox.count { violations.append("a message twice") }
        for change in screen.pendingChanges {
            for id in change.emails {
                guard let email = screen.email(id) else { continue }
                let shown: Bool
                switch change.kind {
                case .read: shown = email.isRead
                case .pin: shown = email.isPinned
                }
                let latest = screen.pendingChanges.last { $0.emails.contains(id) && $0.kind == change.kind }
                if shown != change.value && change == latest {
                    violations.append("pending change \(change.id) does not show")
                }
            }
        }
        return violations
    }
}
