import IMAPCore
import MailSearch
import Testing

@testable import MailSearch

private typealias Fixture = ScreenFixture

/// A short name for a message in a table: its UID.
private func name(_ id: Email.ID) -> String { "\(id.uid)" }
private func names(_ ids: some Sequence<Email.ID>) -> String { ids.map(name).sorted().joined(separator: ",") }
private func flagNames(_ flags: [Flag]) -> String { "[" + flags.map(\.description).joined(separator: " ") + "]" }

// MARK: - ListPaging

/// One list's pages: every state by every event (pages of 4 over the 10 sample messages, UID 3
/// of the first page pinned).
@Suite struct ListPagingTests {
    static func describe(_ paging: ListPaging) -> String {
        let state: String
        switch paging.state {
        case .unlisted: state = "unlisted"
        case .paused: state = "paused"
        case .ready: state = "ready"
        case .loading(_, let request):
            state = request.pinned.map { "loading pinned \(names($0))" } ?? "loading page \(request.page)"
        }
        return "\(state) pages \(paging.window.residentPages) shown \(paging.shown)"
    }

    static func describe(_ actions: [ListPaging.Action]) -> String {
        actions.map { action in
            switch action {
            case .loadPage(let list, let offset, let pageSize): "load \(list.ids.count) ids @\(offset)+\(pageSize)"
            }
        }
        .joined(separator: ", ")
    }

    static let all = Fixture.page()
    static let guess = EmailPage(list: MessageList(ids: [Fixture.id(1)]), offset: 0, emails: [Fixture.email(1)])
    static let secondPage = Array(Fixture.emails.dropFirst(4).prefix(4))

    static func paging(_ events: ListPaging.Event...) -> ListPaging {
        var paging = ListPaging(pageSize: Fixture.pageSize, pinnedSection: true)
        for event in events { _ = paging.event(event) }
        return paging
    }

    static let listed = ListPaging.Event.firstPage(all, all.emails, arrivals: [], expunged: [], isListing: true)

    static var table: MachineTable<ListPaging, ListPaging.Event> {
        MachineTable(
            states: [
                ("unlisted", paging()),
                ("guessed", paging(.firstPage(guess, guess.emails, arrivals: [], expunged: [], isListing: false))),
                ("ready", paging(listed)),
                ("loading", paging(listed, .loadMore)),
                ("paused", paging(listed, .pause)),
            ],
            events: [
                ("listed", listed),
                ("guessed", .firstPage(guess, guess.emails, arrivals: [], expunged: [], isListing: false)),
                ("pause", .pause), ("cancelLoad", .cancelLoad), ("clear", .clear), ("show 0..<12", .show(0..<12)),
                ("loadMore", .loadMore), ("windowChanged", .windowChanged), ("pageLoaded", .pageLoaded(secondPage)),
                ("pageFailed", .pageFailed),
            ],
            describe: { paging, event in
                let actions = paging.event(event)
                return "\(Self.describe(paging)): \(Self.describe(actions))"
            })
    }

    @Test func everyStateByEveryEvent() {
        Self.table.check([
            "unlisted": [
                #"ready pages [0] shown 0..<4: "#,
                #"unlisted pages [0] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<12: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<4: "#,
            ],
            "guessed": [
                #"ready pages [0] shown 0..<4: "#,
                #"unlisted pages [0] shown 0..<4: "#,
                #"unlisted pages [0] shown 0..<4: "#,
                #"unlisted pages [0] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"unlisted pages [0] shown 0..<12: "#,
                #"unlisted pages [0] shown 0..<4: "#,
                #"unlisted pages [0] shown 0..<4: "#,
                #"unlisted pages [0] shown 0..<4: "#,
                #"unlisted pages [0] shown 0..<4: "#,
            ],
            "ready": [
                #"ready pages [0] shown 0..<4: "#,
                #"ready pages [0] shown 0..<4: "#,
                #"paused pages [0] shown 0..<4: "#,
                #"ready pages [0] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"loading page 1 pages [0] shown 0..<12: load 10 ids @4+4"#,
                #"loading page 1 pages [0] shown 0..<5: load 10 ids @4+4"#,
                #"ready pages [0] shown 0..<4: "#,
                #"ready pages [0] shown 0..<4: "#,
                #"ready pages [0] shown 0..<4: "#,
            ],
            "loading": [
                #"ready pages [0] shown 0..<4: "#,
                #"loading page 1 pages [0] shown 0..<4: "#,
                #"paused pages [0] shown 0..<5: "#,
                #"ready pages [0] shown 0..<5: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"loading page 1 pages [0] shown 0..<12: "#,
                #"loading page 1 pages [0] shown 0..<5: "#,
                #"loading page 1 pages [0] shown 0..<5: "#,
                #"ready pages [0, 1] shown 0..<5: "#,
                #"ready pages [0] shown 0..<5: "#,
            ],
            "paused": [
                #"ready pages [0] shown 0..<4: "#,
                #"paused pages [0] shown 0..<4: "#,
                #"paused pages [0] shown 0..<4: "#,
                #"paused pages [0] shown 0..<4: "#,
                #"unlisted pages [] shown 0..<4: "#,
                #"paused pages [0] shown 0..<12: "#,
                #"paused pages [0] shown 0..<4: "#,
                #"paused pages [0] shown 0..<4: "#,
                #"paused pages [0] shown 0..<4: "#,
                #"paused pages [0] shown 0..<4: "#,
            ],
        ])
    }
}

// MARK: - LiveEventLog

/// The changes kept for requests in flight: every state by every event.
@Suite struct LiveEventLogTests {
    static func describe(_ log: LiveEventLog) -> String {
        switch log.state {
        case .idle(let next): return "idle next \(next)"
        case .recording(let first, let changes, let requests):
            let kinds = changes.map { change -> String in
                switch change {
                case .arrived: "arrived"
                case .expunged: "expunged"
                case .flagsChanged: "flags"
                case .reloadNeeded, .connectionLost, .connectionRestored, .failed, .alert: "other"
                }
            }
            let asked = requests.map { "\($0.key):\($0.value)" }.sorted().joined(separator: " ")
            return "recording from \(first) [\(kinds.joined(separator: " "))] {\(asked)}"
        }
    }

    static let arrived = MailServiceEvent.arrived([Fixture.newcomer])
    static let expunged = MailServiceEvent.expunged([Fixture.id(2)])

    static func log(_ events: LiveEventLog.Event...) -> LiveEventLog {
        var log = LiveEventLog()
        for event in events { log.event(event) }
        return log
    }

    static var table: MachineTable<LiveEventLog, LiveEventLog.Event> {
        MachineTable(
            states: [
                ("idle", log()),
                ("one request", log(.started(.list), .happened(arrived))),
                ("two requests", log(.started(.list), .happened(arrived), .started(.search), .happened(expunged))),
            ],
            events: [
                ("started list", .started(.list)), ("started search", .started(.search)),
                ("arrived", .happened(arrived)), ("flags", .happened(.flagsChanged(Fixture.id(1), [.seen]))),
                ("alert", .happened(.alert("maintenance"))), ("none in flight", .inFlight([])),
                ("list in flight", .inFlight([.list])), ("search in flight", .inFlight([.search])),
            ],
            describe: { log, event in
                log.event(event)
                return Self.describe(log)
            })
    }

    @Test func everyStateByEveryEvent() {
        Self.table.check([
            "idle": [
                #"recording from 0 [] {list:0}"#,
                #"recording from 0 [] {search:0}"#,
                #"idle next 1"#,
                #"idle next 1"#,
                #"idle next 0"#,
                #"idle next 0"#,
                #"idle next 0"#,
                #"idle next 0"#,
            ],
            "one request": [
                #"recording from 0 [arrived] {list:1}"#,
                #"recording from 0 [arrived] {list:0 search:1}"#,
                #"recording from 0 [arrived arrived] {list:0}"#,
                #"recording from 0 [arrived flags] {list:0}"#,
                #"recording from 0 [arrived] {list:0}"#,
                #"idle next 1"#,
                #"recording from 0 [arrived] {list:0}"#,
                #"idle next 1"#,
            ],
            "two requests": [
                #"recording from 0 [arrived expunged] {list:2 search:1}"#,
                #"recording from 0 [arrived expunged] {list:0 search:2}"#,
                #"recording from 0 [arrived expunged arrived] {list:0 search:1}"#,
                #"recording from 0 [arrived expunged flags] {list:0 search:1}"#,
                #"recording from 0 [arrived expunged] {list:0 search:1}"#,
                #"idle next 2"#,
                #"recording from 0 [arrived expunged] {list:0}"#,
                #"recording from 1 [expunged] {search:1}"#,
            ],
        ])
    }

    /// An answer is brought up to date with the changes since its request, and only those.
    @Test func replayBringsAnAnswerUpToDate() {
        var log = Self.log(.started(.list), .happened(Self.arrived), .started(.search))
        log.event(.happened(.expunged([Fixture.id(2)])))
        log.event(.happened(.flagsChanged(Fixture.id(4), [.seen, .flagged])))
        var listing = Array(Fixture.emails.prefix(4))
        let expunged = log.replay(.list, onto: &listing, insertingArrivals: true, pinFlag: .flagged)
        #expect(expunged == [Fixture.id(2)])
        #expect(listing.map(\.uid) == [11, 1, 3, 4])
        #expect(listing.last?.isPinned == true)
        var results = Array(Fixture.emails.prefix(4))
        _ = log.replay(.search, onto: &results, insertingArrivals: true, pinFlag: .flagged)
        #expect(results.map(\.uid) == [1, 3, 4], "the arrival came before the search was sent")
        #expect(log.changes(since: .unread).isEmpty)
    }
}

// MARK: - FlagChanges

/// Optimistic flag changes: every state by every event.
@Suite struct FlagChangesTests {
    static let unread = Email(
        id: Fixture.id(1), from: Email.Person(name: "Albus", address: "albus@hogwarts.example"), subject: "Lemon drops",
        date: Fixture.now, preview: "", flags: [])
    static let pinned = Email(
        id: Fixture.id(2), from: Email.Person(name: "Minerva", address: "minerva@hogwarts.example"), subject: "Rules",
        date: Fixture.now, preview: "", flags: [.flagged]
    )
    .withFlags([.flagged], pinFlag: .flagged)

    static func describe(_ changes: FlagChanges) -> String {
        switch changes.state {
        case .idle: return "idle"
        case .pending(let pending, let confirmed):
            let waiting = pending.map { "#\($0.id) \($0.kind) \($0.value) \(names($0.emails))" }
            let known = confirmed.map { "\(name($0.key))=\(flagNames($0.value))" }.sorted()
            return "pending \(waiting.joined(separator: "; ")) confirmed \(known.joined(separator: " "))"
        }
    }

    static func describe(_ actions: [FlagChanges.Action]) -> String {
        actions.map { action in
            switch action {
            case .send(let change): "send #\(change.id)"
            case .show(let id, let flags): "show \(name(id)) \(flagNames(flags))"
            case .refused(let change, let reasons): "refused #\(change.id) \(names(reasons.keys))"
            case .failed(let change, _): "failed #\(change.id)"
            case .adopted(let emails):
                "adopted " + emails.map { "\($0.uid)\(flagNames($0.flags))" }.joined(separator: " ")
            case .readOnly(let change): "read-only \(FlagChanges.verb(change))"
            }
        }
        .joined(separator: ", ")
    }

    static func changes(_ events: FlagChanges.Event...) -> FlagChanges {
        var changes = FlagChanges()
        for event in events { _ = changes.event(event, pinFlag: .flagged) }
        return changes
    }

    static var table: MachineTable<FlagChanges, FlagChanges.Event> {
        MachineTable(
            states: [
                ("idle", changes()),
                ("read pending", changes(.toggle(.read, unread, isReadOnly: false))),
                (
                    "read and unpin pending",
                    changes(.toggle(.read, unread, isReadOnly: false), .toggle(.pin, pinned, isReadOnly: false))
                ),
            ],
            events: [
                ("toggle read", .toggle(.read, unread, isReadOnly: false)),
                ("toggle pin, read-only", .toggle(.pin, pinned, isReadOnly: true)),
                ("#1 completed", .completed(1, FlagChangeResult())),
                (
                    "#1 completed with flags",
                    .completed(1, FlagChangeResult(flags: [Fixture.id(1): [.seen, .answered]]))
                ),
                ("#1 refused", .completed(1, FlagChangeResult(refused: [Fixture.id(1): "read-only"]))),
                ("#2 completed", .completed(2, FlagChangeResult())),
                ("#99 completed", .completed(99, FlagChangeResult())),
                ("#1 failed", .failed(1, Fixture.failure)),
                ("1 changed elsewhere", .changedElsewhere(Fixture.id(1), [.answered])),
                ("5 changed elsewhere", .changedElsewhere(Fixture.id(5), [.seen])),
                ("loaded", .loaded([unread, pinned])),
            ],
            describe: { changes, event in
                let actions = changes.event(event, pinFlag: .flagged)
                return "\(Self.describe(changes)): \(Self.describe(actions))"
            })
    }

    @Test func everyStateByEveryEvent() {
        Self.table.check([
            "idle": [
                #"pending #1 read true 1 confirmed 1=[]: send #1, show 1 [\Seen]"#,
                #"idle: read-only unpin"#,
                #"idle: "#,
                #"idle: "#,
                #"idle: "#,
                #"idle: "#,
                #"idle: "#,
                #"idle: "#,
                #"idle: show 1 [\Answered]"#,
                #"idle: show 5 [\Seen]"#,
                #"idle: adopted 1[] 2[\Flagged]"#,
            ],
            "read pending": [
                #"pending #1 read true 1; #2 read true 1 confirmed 1=[]: send #2, show 1 [\Seen]"#,
                #"pending #1 read true 1 confirmed 1=[]: read-only unpin"#,
                #"idle: show 1 [\Seen]"#,
                #"idle: show 1 [\Seen \Answered]"#,
                #"idle: show 1 [], refused #1 1"#,
                #"pending #1 read true 1 confirmed 1=[]: "#,
                #"pending #1 read true 1 confirmed 1=[]: "#,
                #"idle: show 1 [], failed #1"#,
                #"pending #1 read true 1 confirmed 1=[\Answered]: show 1 [\Answered \Seen]"#,
                #"pending #1 read true 1 confirmed 1=[]: show 5 [\Seen]"#,
                #"pending #1 read true 1 confirmed 1=[]: adopted 1[\Seen] 2[\Flagged]"#,
            ],
            "read and unpin pending": [
                #"pending #1 read true 1; #2 pin false 2; #3 read true 1 confirmed 1=[] 2=[\Flagged]: send #3, show 1 [\Seen]"#,
                #"pending #1 read true 1; #2 pin false 2 confirmed 1=[] 2=[\Flagged]: read-only unpin"#,
                #"pending #2 pin false 2 confirmed 2=[\Flagged]: show 1 [\Seen]"#,
                #"pending #2 pin false 2 confirmed 2=[\Flagged]: show 1 [\Seen \Answered]"#,
                #"pending #2 pin false 2 confirmed 2=[\Flagged]: show 1 [], refused #1 1"#,
                #"pending #1 read true 1 confirmed 1=[]: show 2 []"#,
                #"pending #1 read true 1; #2 pin false 2 confirmed 1=[] 2=[\Flagged]: "#,
                #"pending #2 pin false 2 confirmed 2=[\Flagged]: show 1 [], failed #1"#,
                #"pending #1 read true 1; #2 pin false 2 confirmed 1=[\Answered] 2=[\Flagged]: show 1 [\Answered \Seen]"#,
                #"pending #1 read true 1; #2 pin false 2 confirmed 1=[] 2=[\Flagged]: show 5 [\Seen]"#,
                #"pending #1 read true 1; #2 pin false 2 confirmed 1=[] 2=[\Flagged]: adopted 1[\Seen] 2[]"#,
            ],
        ])
    }
}

// MARK: - SearchSuggestions

/// The search field, the history and suggestions: every state by every event.
@Suite struct SearchSuggestionsTests {
    static let albus = Fixture.emails.first { ($0.from.name ?? "").hasPrefix("Albus") }!

    static func describe(_ field: SearchSuggestions) -> String {
        let state: String
        switch field.state {
        case .historyNotRead: state = "not read"
        case .historyLoading: state = "loading"
        case .historyLoaded(let entries): state = "loaded \(entries)"
        }
        return "\(state) query \"\(field.query)\" suggests \(field.suggestions.map(\.text))"
    }

    static func field(_ events: SearchSuggestions.Event...) -> SearchSuggestions {
        var field = SearchSuggestions()
        for event in events { _ = field.event(event) }
        return field
    }

    static var table: MachineTable<SearchSuggestions, SearchSuggestions.Event> {
        MachineTable(
            states: [
                ("not read", field()),
                ("loading", field(.start)),
                ("loaded, typing from:", field(.start, .historyLoaded(["from:bob"]), .typed("from:"))),
            ],
            events: [
                ("start", .start), ("history", .historyLoaded(["from:albus", "is:unread"])),
                ("typed from:alb", .typed("from:alb")), ("follow", .follow), ("clear", .clear),
                ("seen Albus, following", .seen([albus], following: true)),
                ("seen Albus, not following", .seen([albus], following: false)),
            ],
            describe: { field, event in
                let actions = field.event(event)
                return "\(Self.describe(field)): \(actions.map { "\($0)" }.joined(separator: ", "))"
            })
    }

    @Test func everyStateByEveryEvent() {
        Self.table.check([
            "not read": [
                #"loading query "" suggests []: loadHistory"#,
                #"loaded ["from:albus", "is:unread"] query "" suggests ["from:albus", "is:unread"]: "#,
                #"not read query "from:alb" suggests []: "#,
                #"not read query "" suggests []: "#,
                #"not read query "" suggests []: "#,
                #"not read query "" suggests []: "#,
                #"not read query "" suggests []: "#,
            ],
            "loading": [
                #"loading query "" suggests []: "#,
                #"loaded ["from:albus", "is:unread"] query "" suggests ["from:albus", "is:unread"]: "#,
                #"loading query "from:alb" suggests []: "#,
                #"loading query "" suggests []: "#,
                #"loading query "" suggests []: "#,
                #"loading query "" suggests []: "#,
                #"loading query "" suggests []: "#,
            ],
            "loaded, typing from:": [
                #"loaded ["from:bob"] query "from:" suggests ["from:bob"]: "#,
                #"loaded ["from:albus", "is:unread"] query "from:" suggests ["from:albus"]: "#,
                #"loaded ["from:bob"] query "from:alb" suggests []: "#,
                #"loaded ["from:bob"] query "from:" suggests ["from:bob"]: "#,
                #"loaded ["from:bob"] query "" suggests []: "#,
                #"loaded ["from:bob"] query "from:" suggests ["from:bob", "from:\"Albus Dumbledore\"", "from:\"Harry Potter\"", "from:albus@hogwarts.example", "from:harry@hogwarts.example"]: "#,
                #"loaded ["from:bob"] query "from:" suggests ["from:bob"]: "#,
            ],
        ])
    }
}
