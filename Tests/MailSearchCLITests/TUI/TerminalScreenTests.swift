import Foundation
import MailSearch
import MailSearchCLI
import TestSupport
import Testing

/// The screen's own state machine with the real model over the in-memory service: keys move and
/// act, selections follow messages, search mode leaves the inbox as it was, more rows load at the
/// end, actions' labels follow the message, the reader never marks read by itself.
@MainActor @Suite(.hangGuard, .timeLimit(.minutes(1)))
struct TerminalScreenTests {
    func selectedSubject(_ harness: ScreenHarness) -> String? {
        harness.screen.actionTarget?.subject
    }

    @Test func movingWithTheKeys() async {
        let harness = ScreenHarness(service: ScreenHarness.sampleService(extra: 30), size: .init(width: 80, height: 12))
        await harness.start()
        #expect(harness.screen.inbox.index == 0)
        harness.press(.character("j"), .down, .control("n"))
        #expect(harness.screen.inbox.index == 3)
        harness.press(.character("k"), .up)
        #expect(harness.screen.inbox.index == 1)
        let page = harness.screen.layout.page
        harness.press(.pageDown)
        #expect(harness.screen.inbox.index == 1 + page)
        harness.press(.pageUp)
        #expect(harness.screen.inbox.index == 1)
        harness.press(.character("G"))
        #expect(harness.screen.inbox.index == 39)
        #expect(harness.lines.contains { $0.hasPrefix(">") && $0.contains("Older message 29") })
        harness.press(.character("g"))
        #expect(harness.screen.inbox.index == 0)
        #expect(harness.screen.inbox.top == 0)
        harness.press(.end, .home)
        #expect(harness.screen.inbox.index == 0)
        harness.press(.up)
        #expect(harness.screen.inbox.index == 0, "no further than the first")
    }

    @Test func theSelectionIsAlwaysInView() async {
        let harness = ScreenHarness(service: ScreenHarness.sampleService(extra: 30), size: .init(width: 80, height: 12))
        await harness.start()
        for _ in 0..<25 {
            harness.press(.character("j"))
            #expect(harness.lines.filter { $0.hasPrefix(">") }.count == 1, "\(harness.text)")
        }
        harness.send(.resized(TerminalSize(width: 80, height: 5)))
        #expect(harness.lines.filter { $0.hasPrefix(">") }.count == 1, "\(harness.text)")
        harness.send(.resized(TerminalSize(width: 100, height: 30)))
        #expect(harness.lines.filter { $0.hasPrefix(">") }.count == 1, "\(harness.text)")
        #expect(harness.lines.count == 30)
    }

    @Test func gJumpsToTheLastPageWithoutTheOnesBetweenAndgComesBack() async {
        // 320 messages, pages of 50: pages 0 to 6.
        let harness = ScreenHarness(
            service: ScreenHarness.sampleService(extra: 310), size: .init(width: 80, height: 24), pageSize: 50)
        await harness.settleAll(after: harness.model.start)
        #expect(harness.model.inboxWindow.count == 320)
        #expect(harness.model.inboxWindow.residentPages == [0, 1], "the first page and the one two screenfuls on")
        harness.press(.character("G"))
        #expect(harness.screen.inbox.index == 319)
        #expect(harness.model.isLoadingMore)
        #expect(harness.lines.contains { $0.hasPrefix(">") && $0.contains("Loading...") }, "\(harness.text)")
        await harness.settleAll()
        #expect(harness.screen.inbox.index == 319)
        #expect(harness.lines.contains { $0.hasPrefix(">") && $0.contains("Older message 309") }, "\(harness.text)")
        let window = harness.model.inboxWindow
        #expect(window.residentPages == [5, 6], "the last page and the one above it, nothing between")
        #expect(harness.lines[22].trimmingCharacters(in: .whitespaces) == "Updated just now · 4 unread")
        harness.press(.character("g"))
        #expect(harness.screen.inbox.index == 0)
        await harness.settleAll()
        #expect(harness.model.inboxWindow.residentPages == [0, 1])
        #expect(harness.lines[1] == " Pinned")
        #expect(harness.lines[2].hasPrefix("> 📌 SS Severus Snape"), "\(harness.lines[2])")
    }

    @Test func rowsTwoScreenfulsAheadAreLoadedBeforeTheyShowAndFewAreHeld() async {
        let harness = ScreenHarness(
            service: ScreenHarness.sampleService(extra: 990), size: .init(width: 80, height: 24), pageSize: 50)
        await harness.settleAll(after: harness.model.start)
        let body = harness.screen.layout.bodyRows
        #expect(body == 21)
        var pressed = 0
        while harness.screen.inbox.index < 999 {
            harness.press(.pageDown)
            pressed += 1
            await harness.settleAll()
            let window = harness.model.inboxWindow
            let first = harness.screen.inbox.index
            for index in first..<min(window.count, first + 2 * body) {
                #expect(window[index] != nil, "message \(index) after \(pressed) presses")
            }
            #expect(!harness.lines.contains { $0.contains("Loading...") }, "\(harness.text)")
            // Five screenfuls touch at most four pages of 50; one more either side.
            #expect(window.residentPages.count <= 6, "\(window.residentPages)")
            #expect(window.residentCount <= 6 * 50 + window.pinnedCount)
        }
        #expect(pressed >= 49)
        #expect(harness.lines.contains { $0.hasPrefix(">") && $0.contains("Older message 989") })
    }

    @Test func newMailKeepsTheSelectionOnItsMessage() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("j"), .character("j"))
        #expect(selectedSubject(harness) == "About Nicolas Flamel")
        let index = harness.screen.inbox.index
        harness.service.deliver(
            Email(
                id: Email.ID(mailbox: "INBOX", uidValidity: 1, uid: 0),
                from: Email.Person(name: "Dobby", address: "dobby@hogwarts.example"), subject: "Dobby is free",
                date: ScreenHarness.now, preview: "Master has given Dobby a sock."))
        await harness.waitUntil { $0.unpinnedEmails.first?.subject == "Dobby is free" }
        #expect(selectedSubject(harness) == "About Nicolas Flamel")
        #expect(harness.screen.inbox.index == index + 1)
        #expect(harness.lines[5].contains("Dobby is free"))
        #expect(harness.lines[22].trimmingCharacters(in: .whitespaces) == "Updated just now · 5 unread")
    }

    @Test func readAndPinLabelsFollowTheSelectedMessage() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("j"), .character("j"))
        #expect(selectedSubject(harness) == "About Nicolas Flamel")
        #expect(harness.lines[23].hasPrefix(" u Read  p Pin  "))
        harness.press(.character("u"))
        #expect(harness.lines[23].hasPrefix(" u Unread  p Pin  "))
        await harness.settle()
        #expect(harness.service.emails().first { $0.subject == "About Nicolas Flamel" }?.isRead == true)

        harness.press(.character("p"))
        #expect(selectedSubject(harness) == "About Nicolas Flamel", "the selection moves with the message")
        #expect(harness.model.pinnedEmails.map(\.subject).contains("About Nicolas Flamel"))
        #expect(harness.lines[23].hasPrefix(" u Unread  p Unpin  "))
        #expect(
            harness.lines.firstIndex { $0.contains("About Nicolas Flamel") }! < harness.lines.firstIndex(of: " INBOX")!)
        await harness.settle()
        #expect(harness.service.emails().first { $0.subject == "About Nicolas Flamel" }?.isPinned == true)

        harness.press(.character("u"), .character("p"))
        #expect(harness.lines[23].hasPrefix(" u Read  p Pin  "), "at once, before the server answers")
        await harness.settle()
        let stored = harness.service.emails().first { $0.subject == "About Nicolas Flamel" }
        #expect(stored?.isRead == false)
        #expect(stored?.isPinned == false)
        // The service's echo of the first change may arrive after the second's answer and show
        // its flags for a moment; the echo of the second follows it.
        await harness.waitUntil { snapshot in
            snapshot.unpinnedEmails.contains { $0.subject == "About Nicolas Flamel" && !$0.isRead }
        }
        #expect(harness.lines[23].hasPrefix(" u Read  p Pin  "))
    }

    @Test func aRefusedChangeShowsWhyUntilDismissed() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.service.refuseFlagChanges(reason: "the mailbox is read-only")
        harness.press(.character("u"))
        await harness.settle()
        let status = harness.lines[22]
        #expect(status.contains("the mailbox is read-only"), "\(status)")
        #expect(status.hasPrefix(" ! "))
        harness.press(.escape)
        #expect(harness.model.notice == nil)
        #expect(harness.lines[22].contains("Updated just now"))
    }

    @Test func escapeReturnsToTheInboxExactlyAsItWas() async {
        let harness = ScreenHarness(service: ScreenHarness.sampleService(extra: 30), size: .init(width: 80, height: 12))
        await harness.start()
        harness.press(.pageDown, .character("j"), .character("j"), .character("j"))
        let position = harness.screen.inbox
        let before = harness.text
        #expect(position.top > 0)

        harness.press(.character("/"))
        harness.type("older")
        harness.press(.enter)
        await harness.settle()
        #expect(harness.model.searchState == .results)
        harness.press(.character("j"), .character("G"))
        #expect(harness.text != before)

        harness.press(.escape)
        #expect(harness.model.inboxViewState == .emails)
        #expect(harness.screen.inbox == position)
        #expect(harness.text == before)
    }

    @Test func keysGoToTheFieldAsSoonAsSearchModeShows() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"), .character("q"), .character("j"), .character("u"))
        #expect(harness.model.query == "qju")
        #expect(!harness.quit)
        harness.press(.backspace)
        #expect(harness.model.query == "qj")
        harness.type(" more words")
        harness.press(.control("w"))
        #expect(harness.model.query == "qj more ")
        harness.press(.control("u"))
        #expect(harness.model.query == "")
        harness.press(.alt("b"))
        #expect(harness.model.inboxViewState == .search, "Alt-b is not Escape")
        harness.press(.escape)
        #expect(harness.model.inboxViewState == .emails)
        harness.press(.character("q"))
        #expect(harness.quit)
    }

    @Test func aPasteGoesIntoTheFieldAtTheCursorAndIsNeverKeys() async {
        let harness = ScreenHarness()
        await harness.start()
        let selected = harness.screen.actionTarget
        #expect(selected != nil)
        harness.press(.character("/"))
        harness.type("subject: ")
        harness.press(.left)
        harness.press(.paste("from:albus\r\nis:unread\tq\u{1B}[A p"))
        #expect(harness.model.query == "subject:from:albus is:unread q [A p ")
        #expect(harness.screen.field.cursor == "subject:from:albus is:unread q [A p".count)
        #expect(harness.model.searchedQuery == nil, "nothing submitted")
        #expect(harness.screen.mode == .searchField)
        #expect(!harness.quit)
        #expect(harness.model.inboxWindow.email(selected!.id) == selected, "no flag changed")
        // In the results and the reader a paste does nothing.
        harness.press(.control("u"), .control("k"))
        harness.type("from:albus")
        harness.press(.enter)
        await harness.settle()
        #expect(harness.screen.mode == .searchResults)
        harness.press(.paste("q\ru"))
        #expect(harness.screen.mode == .searchResults)
        #expect(harness.model.query == "from:albus")
        #expect(!harness.quit)
        harness.press(.enter)
        #expect(harness.screen.mode == .reader)
        harness.press(.paste("q"))
        #expect(harness.screen.mode == .reader)
        harness.press(.character("?"))
        harness.press(.paste("x"))
        #expect(harness.screen.mode == .help, "a paste does not close the help")
    }

    @Test func aPasteInTheInboxOpensTheSearchWithItUnsent() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.paste("\n \n"))
        #expect(harness.screen.mode == .inbox, "nothing but spaces: nothing")
        harness.press(.paste("from:albus\nq"))
        #expect(harness.screen.mode == .searchField)
        #expect(harness.model.query == "from:albus q")
        #expect(harness.model.searchedQuery == nil)
        #expect(!harness.quit)
        #expect(harness.lines[0].hasPrefix(" Search: from:albus q"), "\(harness.lines[0])")
        #expect(harness.frame.cursor == Frame.Position(row: 0, column: 9 + 12))
    }

    @Test func theFieldEditsAtTheCursor() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:alice is:unread")
        harness.press(.alt("b"), .alt("b"))
        #expect(harness.screen.field.cursor == 11)
        harness.press(.left, .left, .left)
        #expect(harness.frame.cursor == Frame.Position(row: 0, column: 9 + 8))
        harness.type("x")
        #expect(harness.model.query == "from:alixce is:unread")
        harness.press(.backspace, .delete)
        #expect(harness.model.query == "from:alie is:unread")
        harness.press(.home)
        harness.type("(")
        harness.press(.end)
        harness.type(")")
        #expect(harness.model.query == "(from:alie is:unread)")
        harness.press(.control("a"), .alt("f"), .alt("f"))
        #expect(harness.screen.field.cursor == 10)
        harness.press(.control("k"))
        #expect(harness.model.query == "(from:alie")
        harness.press(.left, .left, .control("w"))
        #expect(harness.model.query == "ie")
        harness.press(.right, .control("u"))
        #expect(harness.model.query == "e")
        harness.press(.control("e"))
        harness.type("x")
        #expect(harness.model.query == "ex")
        // Tab takes a suggestion with the cursor at its end.
        harness.press(.control("u"))
        harness.type("su")
        harness.press(.home, .tab)
        #expect(harness.model.query == "subject:")
        #expect(harness.screen.field.cursor == 8)
    }

    @Test func aLongQueryScrollsToKeepTheCursorInViewWithWideCharacters() async {
        let harness = ScreenHarness(size: .init(width: 30, height: 12))
        await harness.start()
        harness.press(.character("/"))
        let query = "会議" + String(repeating: "x", count: 30) + "終"
        harness.press(.paste(query))
        // 20 columns of field: the end in view, the cursor after it.
        #expect(harness.lines[0].hasSuffix("x終"), "\(harness.lines[0])")
        #expect(harness.frame.cursor == Frame.Position(row: 0, column: 9 + 19))
        harness.press(.home)
        #expect(harness.lines[0].hasPrefix(" Search: 会議xxx"), "\(harness.lines[0])")
        #expect(harness.frame.cursor == Frame.Position(row: 0, column: 9))
        harness.press(.right)
        #expect(harness.frame.cursor == Frame.Position(row: 0, column: 11), "past a wide character")
        harness.press(.end)
        #expect(harness.frame.cursor == Frame.Position(row: 0, column: 9 + 19))
        for _ in 0..<33 {
            harness.press(.left)
            let column = harness.frame.cursor?.column ?? -1
            #expect((9..<29).contains(column), "\(harness.lines[0])")
        }
        #expect(harness.screen.field.cursor == 0)
    }

    @Test func aLongSubjectLeavesTheReadersWayBackInView() async {
        let long = String(repeating: "Very long subject ", count: 28)
        let email = Email(
            id: Email.ID(mailbox: "INBOX", uidValidity: 1, uid: 7),
            from: Email.Person(name: "Sender", address: "sender@example.com"), subject: long,
            date: ScreenHarness.now, preview: "Text", flags: [])
        let harness = ScreenHarness(
            service: InMemoryMailService(emails: [email], now: { ScreenHarness.now }),
            size: .init(width: 80, height: 24))
        await harness.start()
        harness.press(.enter)
        #expect(harness.screen.mode == .reader)
        #expect(harness.lines[0].hasSuffix("q Back"), "\(harness.lines[0])")
        #expect(harness.lines[0].hasPrefix(" Very long subject"))
        #expect(harness.lines[0].contains("…"))
        #expect(FrameLine(harness.lines[0]).width <= 80)
    }

    @Test func tabCompletesWithoutSearching() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"))
        harness.type("su")
        harness.press(.tab)
        #expect(harness.model.query == "subject:")
        #expect(harness.model.searchedQuery == nil)
        #expect(harness.model.searchState == .empty)
        harness.press(.control("u"))
        harness.type("from:alb")
        harness.press(.tab)
        #expect(harness.model.query == "from:albus", "the recent search comes first")
        #expect(harness.model.searchedQuery == nil)
        harness.press(.enter)
        await harness.settle()
        #expect(harness.model.searchedQuery == "from:albus")
        #expect(harness.model.searchResults.count == 2)
    }

    @Test func arrowsAndEnterChooseASuggestion() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"), .down, .down)
        #expect(harness.screen.highlightedSuggestion == 1)
        #expect(harness.lines[3].hasPrefix(" > has:attachment"))
        harness.press(.down, .down, .down, .up)
        #expect(harness.screen.highlightedSuggestion == 1, "no further than the last, then up one")
        harness.press(.enter)
        #expect(harness.model.query == "has:attachment")
        #expect(harness.model.searchedQuery == "has:attachment")
        await harness.settle()
        #expect(harness.model.searchState == .results)
        #expect(harness.screen.mode == .searchResults)
        #expect(harness.model.searchResults.allSatisfy { $0.hasAttachment })
        #expect(harness.model.recentSearches.first == "has:attachment")
    }

    @Test func aNewSubmitReplacesASlowOne() async {
        let service = ScreenHarness.sampleService()
        service.hold(.search)
        let harness = ScreenHarness(service: service)
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:albus")
        harness.press(.enter)
        #expect(harness.model.searchState == .searching)
        harness.press(.character("/"), .control("u"))
        harness.type("from:luna")
        service.release(.search)
        harness.press(.enter)
        await harness.settle()
        #expect(harness.model.searchedQuery == "from:luna")
        #expect(harness.model.searchResults.map(\.subject) == ["The Quibbler, new issue"])
        #expect(harness.lines[22].trimmingCharacters(in: .whitespaces) == "1 result for “from:luna”")
    }

    @Test func actionsOnResultsChangeTheInboxToo() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("/"))
        harness.type("from:luna")
        harness.press(.enter)
        await harness.settle()
        #expect(harness.lines[23].hasPrefix(" u Read  p Pin  "))
        harness.press(.character("u"), .character("p"))
        #expect(harness.lines[23].hasPrefix(" u Unread  p Unpin  "), "at once, before the server answers")
        await harness.settle()
        let luna = harness.service.emails().first { $0.subject == "The Quibbler, new issue" }
        #expect(luna?.isRead == true)
        #expect(luna?.isPinned == true)
        await harness.waitUntil { snapshot in
            snapshot.searchResults.contains { $0.subject == "The Quibbler, new issue" && $0.isRead && $0.isPinned }
        }
        #expect(harness.lines[23].hasPrefix(" u Unread  p Unpin  "))
        harness.press(.escape)
        #expect(harness.model.pinnedEmails.map(\.subject).contains("The Quibbler, new issue"))
    }

    @Test func theReaderShowsTheMessageAndMarksReadOnlyWhenAsked() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("j"), .character("j"), .enter)
        let id = harness.model.unpinnedEmails[0].id
        #expect(harness.fetched == [id])
        #expect(harness.screen.mode == .reader)
        #expect(harness.lines[1].trimmingCharacters(in: .whitespaces) == "Loading the message...")
        #expect(harness.lines[0].hasPrefix(" About Nicolas Flamel"))
        harness.send(
            .messageLoaded(id, ["From: Albus Dumbledore <albus@hogwarts.example>", "", "To the well-organized mind"]))
        #expect(harness.lines[1] == "From: Albus Dumbledore <albus@hogwarts.example>")
        #expect(harness.lines[3] == "To the well-organized mind")
        #expect(harness.lines[23].hasPrefix(" u Read  p Pin  "))
        await harness.settle()
        #expect(harness.service.email(id)?.isRead == false, "reading does not mark it read")
        harness.press(.character("u"))
        await harness.settle()
        #expect(harness.service.email(id)?.isRead == true)
        #expect(harness.lines[23].hasPrefix(" u Unread  p Pin  "))
        harness.press(.escape)
        #expect(harness.screen.mode == .inbox)
        #expect(selectedSubject(harness) == "About Nicolas Flamel")
    }

    @Test func theReaderScrollsLongMessages() async {
        let harness = ScreenHarness(size: .init(width: 40, height: 12))
        await harness.start()
        harness.press(.enter)
        let id = harness.fetched[0]
        let lines = (1...50).map { "line \($0)" }
        harness.send(.messageLoaded(id, lines))
        #expect(harness.lines[1] == "line 1")
        harness.press(.character("j"))
        #expect(harness.lines[1] == "line 2")
        harness.press(.pageDown)
        #expect(harness.lines[1] == "line \(2 + harness.screen.layout.page)")
        harness.press(.character("G"))
        #expect(harness.lines[9] == "line 50", "the last line at the bottom of the body")
        harness.press(.character("g"))
        #expect(harness.lines[1] == "line 1")
        harness.send(.messageFailed(id, "ignored: the message already arrived"))
        harness.send(.messageLoaded(Email.ID(mailbox: "INBOX", uidValidity: 1, uid: 999), ["another"]))
        #expect(harness.lines[1] == "line 1")
    }

    @Test func helpClosesOnAnyKeyAndControlCQuitsAnywhere() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.character("?"))
        #expect(harness.screen.mode == .help)
        #expect(harness.lines[0].hasPrefix(" Keys"))
        harness.press(.character("q"))
        #expect(harness.screen.mode == .inbox)
        #expect(!harness.quit)
        harness.press(.character("/"))
        harness.press(.control("c"))
        #expect(harness.quit)
    }

    @Test func wrappingBreaksAtSpacesAndInsideLongWords() {
        #expect(MessageReader.wrap(["one two three four"], width: 9) == ["one two", "three", "four"])
        #expect(MessageReader.wrap(["abcdefghijkl"], width: 5) == ["abcde", "fghij", "kl"])
        #expect(MessageReader.wrap(["会議の議事録です"], width: 5) == ["会議", "の議", "事録", "です"])
        #expect(MessageReader.wrap(["a\tb", ""], width: 10) == ["a    b", ""])
    }
}
