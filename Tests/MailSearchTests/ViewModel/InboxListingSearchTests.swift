import IMAPCore
import MailSearch
import Testing

@testable import MailSearch

private typealias Fixture = ScreenFixture

/// What a part of the screen asks for, in a line of a table.
private func describe(_ actions: [InboxAction]) -> String {
    actions.map { action in
        switch action {
        case .effect(.loadPage(let target, let generation, let list, let offset, let pageSize)):
            "loadPage(\(target), \(generation), \(list.ids.count) ids @\(offset)+\(pageSize))"
        case .effect(.search(let generation, _, let pageSize)): "search(\(generation), +\(pageSize))"
        case .effect(let effect): "\(effect)"
        case .notice(let notice): "notice(\(notice.kind): \(notice.message))"
        case .seen(let emails): "seen \(emails.count)"
        }
    }
    .joined(separator: ", ")
}

// MARK: - InboxSearch

/// Search mode and its results: every state by every event.
@Suite struct InboxSearchTests {
    static func describe(_ search: InboxSearch) -> String {
        let state: String
        switch search.state {
        case .off: state = "off"
        case .idle: state = "idle"
        case .searching(let query): state = "searching \(query)"
        case .shown(let query): state = "shown \(query)"
        case .failed(let query, let message): state = "failed \(query): \(message)"
        }
        let paging: String
        switch search.results.state {
        case .unlisted: paging = "unlisted"
        case .paused: paging = "paused"
        case .ready: paging = "ready"
        case .loading: paging = "loading"
        }
        return "\(state) #\(search.generation) \(search.searchState) \(search.results.window.residentCount) rows "
            + "\(search.total) total \(paging)"
    }

    static func search(_ events: InboxSearch.Event...) -> InboxSearch {
        var search = InboxSearch(pageSize: Fixture.pageSize)
        for event in events { _ = search.event(event) }
        return search
    }

    static let completed = InboxSearch.Event.completed(Fixture.page(), Fixture.page().emails, expunged: [])

    static var table: MachineTable<InboxSearch, InboxSearch.Event> {
        MachineTable(
            states: [
                ("off", search()),
                ("idle", search(.searchingChanged(true))),
                ("searching", search(.searchingChanged(true), .submit("from:albus"))),
                ("shown", search(.searchingChanged(true), .submit("from:albus"), completed)),
                (
                    "loading a page",
                    search(.searchingChanged(true), .submit("from:albus"), completed, .paging(.loadMore))
                ),
                ("failed", search(.searchingChanged(true), .submit("from:\"albus"))),
            ],
            events: [
                ("enter", .searchingChanged(true)), ("leave", .searchingChanged(false)),
                ("submit", .submit(" from:minerva ")), ("submit blank", .submit("  ")),
                ("submit bad", .submit("(oops")),
                ("completed", completed), ("failed", .failed(Fixture.failure)), ("stop", .stop),
                ("loadMore", .paging(.loadMore)), ("expunged 1", .expunged([Fixture.id(1)])),
                ("pageLoaded", .pageLoaded(Array(Fixture.emails.dropFirst(4).prefix(4)), expunged: [Fixture.id(9)])),
                ("hidden 1", .hidden(Fixture.id(1))),
            ],
            describe: { search, event in
                let actions = search.event(event)
                return "\(Self.describe(search)): \(MailSearchTests.describe(actions))"
            })
    }

    @Test func everyStateByEveryEvent() {
        Self.table.check([
            "off": [
                #"idle #0 empty 0 rows 0 total unlisted: "#,
                #"off #0 empty 0 rows 0 total unlisted: "#,
                #"searching from:minerva #1 searching 0 rows 0 total unlisted: search(1, +4), recordHistory("from:minerva")"#,
                #"off #0 empty 0 rows 0 total unlisted: "#,
                #"failed (oops: unbalanced "(" at column 1 #1 error("unbalanced \"(\" at column 1") 0 rows 0 total unlisted: "#,
                #"off #0 empty 0 rows 0 total unlisted: "#,
                #"off #0 empty 0 rows 0 total unlisted: "#,
                #"off #0 empty 0 rows 0 total unlisted: "#,
                #"off #0 empty 0 rows 0 total unlisted: "#,
                #"off #0 empty 0 rows 0 total unlisted: "#,
                #"off #0 empty 0 rows 0 total unlisted: "#,
                #"off #0 empty 0 rows 0 total unlisted: "#,
            ],
            "idle": [
                #"idle #0 empty 0 rows 0 total unlisted: "#,
                #"off #1 empty 0 rows 0 total unlisted: "#,
                #"searching from:minerva #1 searching 0 rows 0 total unlisted: search(1, +4), recordHistory("from:minerva")"#,
                #"idle #0 empty 0 rows 0 total unlisted: "#,
                #"failed (oops: unbalanced "(" at column 1 #1 error("unbalanced \"(\" at column 1") 0 rows 0 total unlisted: "#,
                #"idle #0 empty 0 rows 0 total unlisted: "#,
                #"idle #0 empty 0 rows 0 total unlisted: "#,
                #"idle #0 empty 0 rows 0 total unlisted: "#,
                #"idle #0 empty 0 rows 0 total unlisted: "#,
                #"idle #0 empty 0 rows 0 total unlisted: "#,
                #"idle #0 empty 0 rows 0 total unlisted: "#,
                #"idle #0 empty 0 rows 0 total unlisted: "#,
            ],
            "searching": [
                #"searching from:albus #1 searching 0 rows 0 total unlisted: "#,
                #"off #2 empty 0 rows 0 total unlisted: cancelSearch(generation: 1)"#,
                #"searching from:minerva #2 searching 0 rows 0 total unlisted: cancelSearch(generation: 1), search(2, +4), recordHistory("from:minerva")"#,
                #"searching from:albus #1 searching 0 rows 0 total unlisted: "#,
                #"failed (oops: unbalanced "(" at column 1 #2 error("unbalanced \"(\" at column 1") 0 rows 0 total unlisted: cancelSearch(generation: 1)"#,
                #"shown from:albus #1 results 4 rows 10 total ready: seen 4"#,
                #"failed from:albus: the server is unreachable; check the network #1 error("the server is unreachable; check the network") 0 rows 0 total unlisted: "#,
                #"idle #2 empty 0 rows 0 total unlisted: cancelSearch(generation: 1)"#,
                #"searching from:albus #1 searching 0 rows 0 total unlisted: "#,
                #"searching from:albus #1 searching 0 rows 0 total unlisted: "#,
                #"searching from:albus #1 searching 0 rows 0 total unlisted: "#,
                #"searching from:albus #1 searching 0 rows 0 total unlisted: "#,
            ],
            "shown": [
                #"shown from:albus #1 results 4 rows 10 total ready: "#,
                #"off #2 empty 0 rows 0 total unlisted: "#,
                #"searching from:minerva #2 searching 0 rows 0 total unlisted: search(2, +4), recordHistory("from:minerva")"#,
                #"shown from:albus #1 results 4 rows 10 total ready: "#,
                #"failed (oops: unbalanced "(" at column 1 #2 error("unbalanced \"(\" at column 1") 0 rows 0 total unlisted: "#,
                #"shown from:albus #1 results 4 rows 10 total ready: "#,
                #"shown from:albus #1 results 4 rows 10 total ready: "#,
                #"shown from:albus #1 results 4 rows 10 total ready: "#,
                #"shown from:albus #1 results 4 rows 10 total loading: loadPage(results, 1, 10 ids @4+4)"#,
                #"shown from:albus #1 results 3 rows 9 total ready: "#,
                #"shown from:albus #1 results 4 rows 10 total ready: "#,
                #"shown from:albus #1 results 3 rows 10 total ready: "#,
            ],
            "loading a page": [
                #"shown from:albus #1 results 4 rows 10 total loading: "#,
                #"off #2 empty 0 rows 0 total unlisted: cancelSearch(generation: 1)"#,
                #"searching from:minerva #2 searching 0 rows 0 total unlisted: cancelSearch(generation: 1), search(2, +4), recordHistory("from:minerva")"#,
                #"shown from:albus #1 results 4 rows 10 total loading: "#,
                #"failed (oops: unbalanced "(" at column 1 #2 error("unbalanced \"(\" at column 1") 0 rows 0 total unlisted: cancelSearch(generation: 1)"#,
                #"shown from:albus #1 results 4 rows 10 total loading: "#,
                #"shown from:albus #1 results 4 rows 10 total loading: "#,
                #"shown from:albus #2 results 4 rows 10 total ready: cancelSearch(generation: 1)"#,
                #"shown from:albus #1 results 4 rows 10 total loading: "#,
                #"shown from:albus #1 results 3 rows 9 total loading: "#,
                #"shown from:albus #1 results 8 rows 9 total ready: seen 4"#,
                #"shown from:albus #1 results 3 rows 10 total loading: "#,
            ],
            "failed": [
                #"failed from:"albus: unterminated quote starting at column 6 #1 error("unterminated quote starting at column 6") 0 rows 0 total unlisted: "#,
                #"off #2 empty 0 rows 0 total unlisted: "#,
                #"searching from:minerva #2 searching 0 rows 0 total unlisted: search(2, +4), recordHistory("from:minerva")"#,
                #"failed from:"albus: unterminated quote starting at column 6 #1 error("unterminated quote starting at column 6") 0 rows 0 total unlisted: "#,
                #"failed (oops: unbalanced "(" at column 1 #2 error("unbalanced \"(\" at column 1") 0 rows 0 total unlisted: "#,
                #"failed from:"albus: unterminated quote starting at column 6 #1 error("unterminated quote starting at column 6") 0 rows 0 total unlisted: "#,
                #"failed from:"albus: unterminated quote starting at column 6 #1 error("unterminated quote starting at column 6") 0 rows 0 total unlisted: "#,
                #"failed from:"albus: unterminated quote starting at column 6 #1 error("unterminated quote starting at column 6") 0 rows 0 total unlisted: "#,
                #"failed from:"albus: unterminated quote starting at column 6 #1 error("unterminated quote starting at column 6") 0 rows 0 total unlisted: "#,
                #"failed from:"albus: unterminated quote starting at column 6 #1 error("unterminated quote starting at column 6") 0 rows 0 total unlisted: "#,
                #"failed from:"albus: unterminated quote starting at column 6 #1 error("unterminated quote starting at column 6") 0 rows 0 total unlisted: "#,
                #"failed from:"albus: unterminated quote starting at column 6 #1 error("unterminated quote starting at column 6") 0 rows 0 total unlisted: "#,
            ],
        ])
    }
}

// MARK: - InboxListing

/// Opening, listing and the inbox's pages: every state by every event.
@Suite struct InboxListingTests {
    static func describe(_ listing: InboxListing) -> String {
        let paging: String
        switch listing.inbox.state {
        case .unlisted: paging = "unlisted"
        case .paused: paging = "paused"
        case .ready: paging = "ready"
        case .loading: paging = "loading"
        }
        let unread = listing.unreadUIDs.map { "\($0.count)" } ?? "?"
        return "\(listing.load) #\(listing.generation) \(listing.connection) \(listing.listState) "
            + "\(listing.inbox.window.residentCount) rows \(unread) unread \(paging)"
    }

    static func listing(_ events: InboxListing.Event...) -> InboxListing {
        var listing = InboxListing(pageSize: Fixture.pageSize)
        for event in events { _ = listing.event(event) }
        return listing
    }

    static let page = Fixture.page()
    static let listed = InboxListing.Event.listed(page, page.emails, expunged: [])
    static let unread = InboxListing.Event.unreadCounted([1, 2, 9], since: [])

    static var table: MachineTable<InboxListing, InboxListing.Event> {
        MachineTable(
            states: [
                ("closed", listing()),
                ("opening", listing(.start)),
                ("open failed", listing(.start, .openFailed(Fixture.failure))),
                ("listing", listing(.start, .opened(Fixture.mailbox))),
                ("counting unread", listing(.start, .opened(Fixture.mailbox), listed)),
                ("listed", listing(.start, .opened(Fixture.mailbox), listed, unread)),
                ("list failed", listing(.start, .opened(Fixture.mailbox), .listFailed(Fixture.failure))),
                ("reconnecting", listing(.start, .opened(Fixture.mailbox), listed, unread, .connectionLost("reset"))),
                ("stopped", listing(.start, .opened(Fixture.mailbox), listed, unread, .stop)),
            ],
            events: [
                ("start", .start), ("refresh", .refresh), ("stop", .stop), ("opened", .opened(Fixture.mailbox)),
                ("open failed", .openFailed(Fixture.failure)),
                ("guessed", .guessed(page, [Fixture.email(1)], expunged: [])), ("listed", listed),
                ("list failed", .listFailed(Fixture.failure)), ("unread", unread),
                ("arrived", .arrived([Fixture.newcomer])), ("expunged 1", .expunged([Fixture.id(1)])),
                ("hidden 2", .hidden(Fixture.id(2))), ("flags 9 seen", .flagsShown(Fixture.id(9), [.seen], row: nil)),
                ("loadMore", .paging(.loadMore)), ("lost", .connectionLost("reset")), ("restored", .connectionRestored),
                ("failed", .connectionFailed(Fixture.failure)), ("reload", .reload), ("events ended", .eventsEnded),
            ],
            describe: { listing, event in
                let actions = listing.event(event)
                return "\(Self.describe(listing)): \(MailSearchTests.describe(actions))"
            })
    }

    @Test func everyStateByEveryEvent() {
        Self.table.check([
            "closed": [
                #"none #1 opening loading 0 rows ? unread unlisted: open"#,
                #"none #1 opening loading 0 rows ? unread unlisted: open"#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 reconnecting("reset") loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 failed("the server is unreachable; check the network") loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
                #"none #0 closed loading 0 rows ? unread unlisted: "#,
            ],
            "opening": [
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #2 closed loading 0 rows ? unread unlisted: "#,
                #"listing #2 open loading 0 rows ? unread unlisted: listen, loadList(generation: 2, pageSize: 4)"#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 reconnecting("reset") loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
                #"none #1 opening loading 0 rows ? unread unlisted: "#,
            ],
            "open failed": [
                #"none #2 opening loading 0 rows ? unread unlisted: open"#,
                #"none #2 opening loading 0 rows ? unread unlisted: open"#,
                #"none #2 closed error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 reconnecting("reset") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 opening loading 0 rows ? unread unlisted: open"#,
                #"none #1 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
            ],
            "listing": [
                #"listing #3 open loading 0 rows ? unread unlisted: loadList(generation: 3, pageSize: 4)"#,
                #"listing #3 open loading 0 rows ? unread unlisted: loadList(generation: 3, pageSize: 4)"#,
                #"none #3 closed loading 0 rows ? unread unlisted: stopListening"#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
                #"listing #2 open data 1 rows ? unread unlisted: "#,
                #"countingUnread #2 open data 4 rows ? unread ready: seen 4, countUnread(generation: 2)"#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
                #"listing #2 reconnecting("reset") loading 0 rows ? unread unlisted: "#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
                #"listing #2 failed("the server is unreachable; check the network") loading 0 rows ? unread unlisted: "#,
                #"none #3 opening loading 0 rows ? unread unlisted: open"#,
                #"listing #2 open loading 0 rows ? unread unlisted: "#,
            ],
            "counting unread": [
                #"listing #3 open loading 4 rows ? unread paused: loadList(generation: 3, pageSize: 4)"#,
                #"listing #3 open loading 4 rows ? unread paused: loadList(generation: 3, pageSize: 4)"#,
                #"none #3 closed data 4 rows ? unread ready: stopListening"#,
                #"countingUnread #2 open data 4 rows ? unread ready: "#,
                #"countingUnread #2 open data 4 rows ? unread ready: "#,
                #"countingUnread #2 open data 4 rows ? unread ready: "#,
                #"countingUnread #2 open data 4 rows ? unread ready: "#,
                #"countingUnread #2 open data 4 rows ? unread ready: "#,
                #"none #2 open data 4 rows 3 unread ready: "#,
                #"countingUnread #2 open data 5 rows ? unread ready: seen 1"#,
                #"countingUnread #2 open data 3 rows ? unread ready: "#,
                #"countingUnread #2 open data 3 rows ? unread ready: "#,
                #"countingUnread #2 open data 4 rows ? unread ready: "#,
                #"countingUnread #2 open data 4 rows ? unread loading: loadPage(inbox, 2, 10 ids @4+4)"#,
                #"countingUnread #2 reconnecting("reset") data 4 rows ? unread ready: "#,
                #"countingUnread #2 open data 4 rows ? unread ready: "#,
                #"countingUnread #2 failed("the server is unreachable; check the network") data 4 rows ? unread ready: "#,
                #"none #3 opening loading 4 rows ? unread paused: open"#,
                #"countingUnread #2 open data 4 rows ? unread ready: "#,
            ],
            "listed": [
                #"listing #3 open loading 4 rows 3 unread paused: loadList(generation: 3, pageSize: 4)"#,
                #"listing #3 open loading 4 rows 3 unread paused: loadList(generation: 3, pageSize: 4)"#,
                #"none #3 closed data 4 rows 3 unread ready: stopListening"#,
                #"none #2 open data 4 rows 3 unread ready: "#,
                #"none #2 open data 4 rows 3 unread ready: "#,
                #"none #2 open data 4 rows 3 unread ready: "#,
                #"none #2 open data 4 rows 3 unread ready: "#,
                #"none #2 open data 4 rows 3 unread ready: "#,
                #"none #2 open data 4 rows 3 unread ready: "#,
                #"none #2 open data 5 rows 4 unread ready: seen 1"#,
                #"none #2 open data 3 rows 2 unread ready: "#,
                #"none #2 open data 3 rows 3 unread ready: "#,
                #"none #2 open data 4 rows 2 unread ready: "#,
                #"none #2 open data 4 rows 3 unread loading: loadPage(inbox, 2, 10 ids @4+4)"#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread ready: "#,
                #"none #2 open data 4 rows 3 unread ready: "#,
                #"none #2 failed("the server is unreachable; check the network") data 4 rows 3 unread ready: "#,
                #"none #3 opening loading 4 rows 3 unread paused: open"#,
                #"none #2 open data 4 rows 3 unread ready: "#,
            ],
            "list failed": [
                #"listing #3 open loading 0 rows ? unread unlisted: loadList(generation: 3, pageSize: 4)"#,
                #"listing #3 open loading 0 rows ? unread unlisted: loadList(generation: 3, pageSize: 4)"#,
                #"none #3 closed error("the server is unreachable; check the network") 0 rows ? unread unlisted: stopListening"#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 reconnecting("reset") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #2 failed("the server is unreachable; check the network") error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
                #"none #3 opening loading 0 rows ? unread unlisted: open"#,
                #"none #2 open error("the server is unreachable; check the network") 0 rows ? unread unlisted: "#,
            ],
            "reconnecting": [
                #"listing #3 reconnecting("reset") loading 4 rows 3 unread paused: loadList(generation: 3, pageSize: 4)"#,
                #"listing #3 reconnecting("reset") loading 4 rows 3 unread paused: loadList(generation: 3, pageSize: 4)"#,
                #"none #3 closed data 4 rows 3 unread ready: stopListening"#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread ready: "#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread ready: "#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread ready: "#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread ready: "#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread ready: "#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread ready: "#,
                #"none #2 reconnecting("reset") data 5 rows 4 unread ready: seen 1"#,
                #"none #2 reconnecting("reset") data 3 rows 2 unread ready: "#,
                #"none #2 reconnecting("reset") data 3 rows 3 unread ready: "#,
                #"none #2 reconnecting("reset") data 4 rows 2 unread ready: "#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread loading: loadPage(inbox, 2, 10 ids @4+4)"#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread ready: "#,
                #"none #2 open data 4 rows 3 unread ready: "#,
                #"none #2 failed("the server is unreachable; check the network") data 4 rows 3 unread ready: "#,
                #"none #3 opening loading 4 rows 3 unread paused: open"#,
                #"none #2 reconnecting("reset") data 4 rows 3 unread ready: "#,
            ],
            "stopped": [
                #"none #4 opening loading 4 rows 3 unread paused: open"#,
                #"none #4 opening loading 4 rows 3 unread paused: open"#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
                #"none #3 closed data 5 rows 4 unread ready: seen 1"#,
                #"none #3 closed data 3 rows 2 unread ready: "#,
                #"none #3 closed data 3 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 2 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread loading: loadPage(inbox, 3, 10 ids @4+4)"#,
                #"none #3 reconnecting("reset") data 4 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
                #"none #3 failed("the server is unreachable; check the network") data 4 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
                #"none #3 closed data 4 rows 3 unread ready: "#,
            ],
        ])
    }
}
