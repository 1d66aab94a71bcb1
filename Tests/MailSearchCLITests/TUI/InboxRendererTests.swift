import Foundation
import MailSearch
import MailSearchCLI
import TestSupport
import Testing

/// What each state of the three enums looks like on an 80x24 terminal, reached through the real
/// model over the in-memory service and the screen's own keys; and every state at every size,
/// down to one row, staying inside the terminal.
@MainActor @Suite(.hangGuard, .timeLimit(.minutes(1)))
struct InboxRendererTests {
    static let unreachable = MailServiceError(.connection, "the server imap.example.com cannot be reached")

    @Test(arguments: [
        ("AD", "AD"), ("M", "M"), ("山太", "山"), ("明G", "明"), ("ZÜ", "ZÜ"), ("", "?"),
    ])
    func initialsFitTheirTwoColumnCell(initials: String, shown: String) {
        // Both letters when they fit; a double-width first letter alone, never a cut "…".
        #expect(InboxRenderer.initialsColumn(initials) == shown)
    }

    @Test func inboxData() async {
        let harness = ScreenHarness()
        await harness.start()
        #expect(harness.model.emailsListState == .data)
        let lines = harness.lines
        #expect(lines.count == 24)
        #expect(lines[0].hasPrefix(" INBOX "))
        #expect(lines[0].hasSuffix(" 10 messages"))
        #expect(lines[1] == " Pinned")
        // Selected (">"), read, pinned: Snape's message; the date is yesterday's.
        #expect(lines[2].hasPrefix("> 📌 SS Severus Snape       Potions homework"), "\(lines[2])")
        #expect(lines[2].contains("Potions homework  Turn to page 394."))
        #expect(lines[2].hasSuffix("Mar 14"))
        #expect(lines[3].hasPrefix(" ●📌 RH Rubeus Hagrid       Tea on Friday?"), "\(lines[3])")
        #expect(lines[4] == " INBOX")
        // Unread, today's: the time.
        #expect(
            lines[5].hasPrefix(" ●   AD Albus Dumbledore    About Nicolas Flamel  To the well-organ"), "\(lines[5])")
        #expect(lines[5].hasSuffix("10:00"))
        #expect(lines[6].hasPrefix("     MM Minerva McGonagall  Transfiguration timetable"))
        #expect(lines[12].hasPrefix("     NL Neville Longbottom  Mimbulus mimbletonia"))
        #expect(lines[22].trimmingCharacters(in: .whitespaces) == "Updated just now · 4 unread")
        #expect(lines[23] == " u Unread  p Unpin  ⏎ Open  / Search  R Refresh  ? Help  q Quit")
        for line in lines { #expect(FrameLine(line).width <= 80, "\(line)") }
    }

    @Test func inboxLoading() async {
        let service = ScreenHarness.sampleService()
        service.hold(.list)
        let harness = ScreenHarness(service: service)
        harness.model.start()
        // The listing is held: the model shows loading until it is released.
        await harness.waitUntil { $0.connection == .open }
        #expect(harness.model.emailsListState == .loading)
        let lines = harness.lines
        #expect(lines[0].hasPrefix(" INBOX"))
        for row in 1..<22 { #expect(lines[row].contains("░░░"), "row \(row): \(lines[row])") }
        #expect(!harness.text.contains("Dumbledore"))
        #expect(lines[22].trimmingCharacters(in: .whitespaces) == "Checking for mail...")
        #expect(lines[23] == " / Search  R Refresh  ? Help  q Quit")
        service.release(.list)
        await harness.settle()
        #expect(harness.text.contains("Albus Dumbledore"))
    }

    @Test func inboxEmpty() async {
        let harness = ScreenHarness(service: InMemoryMailService(now: { ScreenHarness.now }))
        await harness.start()
        #expect(harness.model.emailsListState == .empty)
        let lines = harness.lines
        #expect(lines[10].trimmingCharacters(in: .whitespaces) == "No messages in INBOX.")
        #expect(lines[11].trimmingCharacters(in: .whitespaces) == "R checks for mail again; / searches.")
        #expect(lines[22].trimmingCharacters(in: .whitespaces) == "Updated just now · 0 unread")
    }

    @Test func inboxErrorOffersRetry() async {
        let service = ScreenHarness.sampleService()
        service.setFailure(Self.unreachable, for: .list)
        let harness = ScreenHarness(service: service)
        await harness.start()
        #expect(harness.model.emailsListState == .error(Self.unreachable.message))
        let text = harness.text
        #expect(text.contains("Could not load INBOX."))
        #expect(text.contains("the server imap.example.com cannot be reached"))
        #expect(text.contains("r  Retry"))
        #expect(harness.lines[22].trimmingCharacters(in: .whitespaces) == "Could not check for mail")
        #expect(harness.lines[23] == " r Retry  / Search  ? Help  q Quit")

        service.setFailure(nil, for: .list)
        harness.press(.character("r"))
        await harness.settle()
        #expect(harness.model.emailsListState == .data)
        #expect(harness.text.contains("Albus Dumbledore"))
    }

    @Test func searchRecentSearches() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"))
        #expect(harness.model.inboxViewState == .search)
        #expect(harness.model.searchState == .empty)
        let lines = harness.lines
        #expect(lines[0].hasPrefix(" Search: "))
        #expect(lines[0].hasSuffix("Esc Inbox"))
        #expect(harness.frame.cursor == Frame.Position(row: 0, column: 9))
        #expect(lines[1] == " Recent searches")
        #expect(lines[2].hasPrefix("   from:albus"))
        #expect(lines[2].hasSuffix("recent"))
        #expect(lines[3].hasPrefix("   has:attachment"))
        #expect(lines[4].hasPrefix("   is:unread is:pinned"))
        #expect(lines[23] == " ⏎ Search  Tab Complete  ↑↓ Suggestions  Esc Inbox")
    }

    @Test func searchWithoutHistoryExplainsWhatToType() async {
        let harness = ScreenHarness(history: [])
        await harness.start()
        harness.press(.character("/"))
        #expect(harness.lines[1] == " No recent searches.")
        #expect(harness.text.contains("Type a search, for example:"))
    }

    @Test func searchSuggestionsWhileTyping() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:alb")
        let lines = harness.lines
        #expect(lines[0].hasPrefix(" Search: from:alb "))
        #expect(harness.frame.cursor == Frame.Position(row: 0, column: 17))
        #expect(lines[1] == " Suggestions")
        #expect(lines[2].hasPrefix("   from:albus "))
        #expect(lines[2].hasSuffix("recent"))
        #expect(lines.contains { $0.hasPrefix("   from:albus@hogwarts.example") && $0.hasSuffix("person") })
        #expect(harness.model.searchState == .empty)
        #expect(harness.model.searchedQuery == nil, "typing does not search")
    }

    @Test func typeAheadShowsTheNewestLocalMatchesUnderTheSuggestions() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:alb")
        await harness.waitUntil { $0.typeAheadQuery == "from:alb" }
        let lines = harness.lines
        #expect(lines[1] == " Suggestions")
        let title = lines.firstIndex(of: " Newest local matches for “from:alb”; Enter asks the server")
        #expect(title != nil, "\(lines)")
        if let title {
            #expect(
                lines[title + 1].hasPrefix("  ●   AD Albus Dumbledore")
                    || lines[title + 1].hasPrefix(" ●   AD Albus Dumbledore"), "\(lines[title + 1])")
            #expect(lines[title + 1].contains("About Nicolas Flamel"))
            #expect(lines[title + 3].trimmingCharacters(in: .whitespaces).isEmpty, "Albus wrote two")
        }
        #expect(harness.model.searchedQuery == nil, "typing does not search")

        // Nothing matches: said so, until Enter asks the server.
        harness.type("xyz")
        await harness.waitUntil { $0.typeAheadQuery == "from:albxyz" }
        #expect(harness.lines.contains(" No local matches for “from:albxyz”; Enter asks the server"))
        for line in harness.lines { #expect(FrameLine(line).width <= 80, "\(line)") }
    }

    @Test func typeAheadStaysWhileTheServerSearches() async {
        let service = ScreenHarness.sampleService()
        service.hold(.search)
        let harness = ScreenHarness(service: service)
        await harness.start()
        harness.press(.character("/"))
        harness.type("potion")
        await harness.waitUntil { $0.typeAheadQuery == "potion" }
        harness.press(.enter)
        #expect(harness.model.searchState == .searching)
        let lines = harness.lines
        #expect(lines[1] == " Searching the server for “potion”...")
        #expect(lines[2] == " Newest local matches for “potion”; Enter asks the server")
        #expect(lines[3].contains("Potions homework"), "\(lines[3])")
        service.release(.search)
        await harness.settle()
        #expect(harness.model.searchState == .results)
        #expect(!harness.text.contains("local matches"), "the server's page replaces them")
    }

    @Test func searchSearching() async {
        let service = ScreenHarness.sampleService()
        service.hold(.search)
        let harness = ScreenHarness(service: service)
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:albus")
        harness.press(.enter)
        #expect(harness.model.searchState == .searching)
        let lines = harness.lines
        #expect(lines[0].hasPrefix(" Search: from:albus "))
        #expect(harness.frame.cursor == nil, "the results have the keys")
        #expect(lines[1] == " Searching the server for “from:albus”...")
        #expect(lines[2].contains("░░░"))
        #expect(lines[22].trimmingCharacters(in: .whitespaces) == "Searching...")
        service.release(.search)
        await harness.settle()
    }

    @Test func searchResults() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:albus")
        harness.press(.enter)
        await harness.settle()
        #expect(harness.model.searchState == .results)
        let lines = harness.lines
        #expect(lines[1].hasPrefix(">●   AD Albus Dumbledore    About Nicolas Flamel"), "\(lines[1])")
        #expect(lines[2].hasPrefix(" ●   AD Albus Dumbledore    Thing about pain"), "\(lines[2])")
        #expect(lines[3].isEmpty)
        #expect(lines[22].trimmingCharacters(in: .whitespaces) == "2 results for “from:albus”")
        #expect(lines[23] == " u Read  p Pin  ⏎ Open  / Edit search  Esc Inbox")
    }

    @Test func searchNoResults() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:voldemort")
        harness.press(.enter)
        await harness.settle()
        #expect(harness.model.searchState == .empty)
        #expect(harness.model.searchedQuery == "from:voldemort")
        let lines = harness.lines
        #expect(lines[10].trimmingCharacters(in: .whitespaces) == "No results for “from:voldemort”.")
        #expect(lines[22].trimmingCharacters(in: .whitespaces) == "No results")
    }

    @Test func searchError() async {
        let service = ScreenHarness.sampleService()
        service.setFailure(Self.unreachable, for: .search)
        let harness = ScreenHarness(service: service)
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:albus")
        harness.press(.enter)
        await harness.settle()
        #expect(harness.model.searchState == .error(Self.unreachable.message))
        #expect(harness.text.contains("The search failed."))
        #expect(harness.text.contains("the server imap.example.com cannot be reached"))
        #expect(harness.lines[22].trimmingCharacters(in: .whitespaces) == "Search failed")
    }

    @Test func aQueryThatDoesNotParseNamesTheColumn() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:\"albus")
        harness.press(.enter)
        guard case .error(let message) = harness.model.searchState else {
            Issue.record("expected an error, got \(harness.model.searchState)")
            return
        }
        #expect(message.contains("column"))
        #expect(harness.text.contains("The search failed."))
        #expect(harness.text.contains(String(message.prefix(40))))
    }

    nonisolated static let sizes = [
        TerminalSize(width: 80, height: 24), TerminalSize(width: 120, height: 40), TerminalSize(width: 60, height: 15),
        TerminalSize(width: 40, height: 8), TerminalSize(width: 20, height: 4), TerminalSize(width: 10, height: 2),
        TerminalSize(width: 5, height: 1),
    ]

    @Test(arguments: sizes)
    func everyStateFitsEverySize(size: TerminalSize) async {
        let harness = ScreenHarness()
        await harness.start()
        var frames: [String: MailSearchCLI.Frame] = [:]
        func check(_ name: String) {
            harness.send(.resized(size))
            let frame = harness.frame
            frames[name] = frame
            #expect(frame.lines.count == size.height, "\(name) at \(size)")
            for line in frame.lines { #expect(line.width <= size.width, "\(name) at \(size): \(line.text)") }
        }
        check("inbox")
        harness.press(.character("?"))
        check("help")
        harness.press(.escape)
        harness.press(.enter)
        check("reader, loading")
        harness.send(
            .messageLoaded(harness.fetched[0], ["From: Severus Snape", "", String(repeating: "word ", count: 60)]))
        check("reader")
        harness.press(.character("q"))
        harness.press(.character("/"))
        check("recent searches")
        harness.type("from:")
        check("suggestions")
        harness.press(.control("u"))
        harness.type("from:albus")
        harness.press(.enter)
        await harness.settle()
        check("results")
        if size.height >= 10 {
            #expect(frames["inbox"]?.lines.last?.text.hasPrefix(" u Unread") == true)
        } else if size.height >= 3 {
            #expect(frames["inbox"]?.lines.last?.text.contains("Updated") == true, "the status row is last")
        }
        if size.height >= 2 && size.width >= 40 {
            #expect(frames["inbox"]?.text.contains("Severus") == true || frames["inbox"]?.text.contains("SS") == true)
        }
    }
}
