import Foundation
import IMAPClient
import IMAPCore
import MailSearchCLI
import MockIMAPServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `mailsearch tui` as a person uses it: the built binary in a tmux pane against the mock server
/// (the demo mailbox), keys sent with send-keys, the screen read with capture-pane. Every state
/// of the three enums appears on screen; searches typed and chosen from the suggestions, and
/// Read/Unread and Pin/Unpin on their results, reach the server (read back over another
/// connection); Esc returns to the inbox as it was; new mail and another client's changes appear
/// without a key; a resize redraws; quitting (q, Ctrl-C, SIGTERM) restores the terminal.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct TUITests {
    /// The UIDs of the two messages from Albus Dumbledore ("About Nicolas Flamel" first), found
    /// with `mailsearch search`, which also puts `from:dumbledore` in the recent searches.
    func dumbledoreMessages(_ account: MockAccount) async throws -> [UInt32] {
        let result = try await ToolProcess.run(
            account.plainArguments + ["search", "--json", "from:dumbledore"], environment: account.environment)
        #expect(result.status == 0, "\(result)")
        return result.lines.compactMap { line -> UInt32? in
            guard let range = line.range(of: #""uid":"#) else { return nil }
            return UInt32(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    func flags(_ account: MockAccount, _ uid: UInt32) async throws -> Set<Flag> {
        try await account.flagsReadBack([uid])[uid] ?? []
    }

    /// The row of the screen that holds `text`.
    func row(_ screen: String, _ text: String) -> String? {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).first { $0.contains(text) }
    }

    @Test func inboxLoadingThenDataLiveChangesAndResize() async throws {
        // The first listing is slow, so "Checking for mail..." and the placeholders show.
        let slow = FaultRule(trigger: .command("UID SORT", occurrence: 1), fault: .delay(.milliseconds(1500)))
        let slowSearch = FaultRule(trigger: .command("UID SEARCH", occurrence: 1), fault: .delay(.milliseconds(1500)))
        let account = try await MockAccount.start(faults: [slow, slowSearch])
        defer { Task { await account.stop() } }
        try await TmuxSession.with(account.tlsArguments + ["tui"], environment: account.environment) { tmux in

            let loading = try await tmux.waitFor(text: "Checking for mail...")
            #expect(loading.contains("░░░"), "\(loading)")
            #expect(!loading.contains("About Nicolas Flamel"))
            let inbox = try await tmux.waitFor(text: "Updated just now")
            #expect(inbox.hasPrefix(" INBOX "), "\(inbox)")
            #expect(row(inbox, " Pinned") != nil, "\(inbox)")
            let flamel = try #require(row(inbox, "About Nicolas Flamel"), "\(inbox)")
            #expect(flamel.hasPrefix(" ●   AD Albus Dumbledore"), "\(flamel)")
            #expect(flamel.contains("To the well-organized mind"))
            // The mailbox's unread count, counted after the first page showed.
            let counted = try await tmux.waitFor(text: " unread")
            #expect(
                counted.range(of: #"Updated just now · [0-9]+ unread"#, options: .regularExpression) != nil,
                "\(counted)")
            #expect(row(inbox, "⏎ Open  / Search  R Refresh  ? Help  q Quit")?.hasPrefix(" u ") == true, "\(inbox)")
            // Colours on a terminal: the unread dot is blue.
            #expect(try await tmux.screen(escapes: true).contains("\u{1B}[34m"))

            // New mail, without a key press.
            let bytes = Array(
                "From: Minerva McGonagall <minerva@hogwarts.example>\r\nTo: alice@example.com\r\nSubject: Transfiguration timetable\r\nDate: Fri, 15 Mar 2024 21:00:00 +0000\r\n\r\nHomework due Monday.\r\n"
                    .utf8)
            try account.server.store.append(bytes, user: MockAccount.user, mailbox: "INBOX")
            let arrived = try await tmux.waitFor(text: "Transfiguration timetable")
            #expect(row(arrived, "Transfiguration timetable")?.contains("Homework due Monday.") == true, "\(arrived)")

            // Another client reads "About Nicolas Flamel": its unread dot goes.
            let uids = try await dumbledoreMessages(account)
            let session = try await account.otherConnection()
            try await session.select("INBOX")
            try await session.store(SequenceSet(numbers: [uids[0]]), .add, [.seen])
            await session.logout()
            try await tmux.waitFor("the row shown read") { screen in
                self.row(screen, "About Nicolas Flamel")?.hasPrefix("     AD Albus Dumbledore") == true
            }

            // A smaller window: everything redrawn to fit, the key row given up below 10 rows.
            try await tmux.resize(width: 60, height: 8)
            let small = try await tmux.waitFor("the 60x8 layout") { screen in
                screen.split(separator: "\n", omittingEmptySubsequences: false).first?.hasSuffix("messages") == true
            }
            let rows = small.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(rows.count == 8, "\(small)")
            for line in rows { #expect(FrameLine(String(line)).width <= 60, "\(line)") }
            #expect(rows.last?.contains("Updated just now") == true, "the status row is last: \(small)")
            #expect(!small.contains("? Help"), "\(small)")

            try await tmux.press("q")
            let ended = try await tmux.finished()
            #expect(ended.status == 0)
            // The same settings, but for the window's new size.
            #expect(ended.before.split(separator: "\n").dropFirst() == ended.after.split(separator: "\n").dropFirst())
            #expect(ended.after.contains("rows 8; columns 60;"))
        }
    }

    @Test func anEmptyMailbox() async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        try await TmuxSession.with(account.plainArguments + ["tui"], environment: account.environment) { tmux in
            let empty = try await tmux.waitFor(text: "Updated just now · 0 unread")
            #expect(empty.contains("No messages in INBOX."))
            try await tmux.press("C-c")
            let ended = try await tmux.finished()
            #expect(ended.status == 0)
            #expect(ended.before == ended.after)
        }
    }

    @Test func anErrorOffersRetry() async throws {
        let refusal = Fault.respond(.no, text: "the index is being rebuilt, try again")
        let account = try await MockAccount.start(faults: [
            FaultRule(trigger: .command("UID SORT", occurrence: 1), fault: refusal),
            FaultRule(trigger: .command("UID SEARCH", occurrence: 1), fault: refusal),
        ])
        defer { Task { await account.stop() } }
        try await TmuxSession.with(account.plainArguments + ["tui"], environment: account.environment) { tmux in
            let error = try await tmux.waitFor(text: "Could not load INBOX.")
            #expect(error.contains("the index is being rebuilt, try again"), "\(error)")
            #expect(error.contains("r  Retry"))
            #expect(error.contains(" r Retry  / Search  ? Help  q Quit"))
            try await tmux.press("r")
            let inbox = try await tmux.waitFor(text: "Updated just now")
            #expect(inbox.contains("About Nicolas Flamel"))
            try await tmux.press("q")
            #expect(try await tmux.finished().status == 0)
        }
    }

    @Test func searchingChangesFlagsOnTheServerAndEscRestoresTheInbox() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uids = try await dumbledoreMessages(account)
        try #require(uids.count == 2)
        #expect(try await flags(account, uids[0]).isEmpty)
        #expect(try await flags(account, uids[1]).isEmpty)
        // The inbox in the order the screen lists it: `list` puts the pinned ones first too.
        let listed = try await ToolProcess.run(
            account.plainArguments + ["list", "--json", "--limit", "50"], environment: account.environment)
        let subjects = listed.lines.compactMap { line -> String? in
            guard let range = line.range(of: #""subject":""#) else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
        try #require(subjects.count == 50, "\(listed)")
        var environment = account.environment
        environment["NO_COLOR"] = "1"
        // 16 rows: 13 of mail, so the 15th message is scrolled into view.
        try await TmuxSession.with(
            account.plainArguments + ["tui"], environment: environment, width: 100, height: 16
        ) { tmux in

            try await tmux.waitFor(text: "Updated just now")
            let attributes = try await tmux.screen(escapes: true)
            #expect(attributes.contains("\u{1B}[7m") || attributes.contains(";7m"), "reverse video stays")
            for color in 31...37 { #expect(!attributes.contains("\u{1B}[\(color)m"), "no colours with NO_COLOR") }
            try await tmux.press("j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j")
            // Settled: the unread count is in and no page is on its way (a page the scroll asked
            // for, still loading, says "Loading more..." in the footer; a loaded run caught it).
            let inbox = try await tmux.waitFor("the 15th message selected, nothing loading", settled: true) { screen in
                self.row(screen, ">")?.contains(subjects[14]) == true && screen.contains(" unread")
                    && !screen.contains("Loading more...")
            }
            #expect(row(inbox, " Pinned") == nil, "scrolled: \(inbox)")

            // Search mode before typing: recent searches. Esc: the inbox exactly as it was.
            try await tmux.press("/")
            let recent = try await tmux.waitFor(text: "Recent searches")
            #expect(row(recent, "from:dumbledore")?.hasSuffix("recent") == true, "\(recent)")
            try await tmux.press("Escape")
            try await tmux.waitFor("the inbox as it was:\n\(inbox)") { $0 == inbox }

            // A typed search: searching, then results; Pin, then Unpin, the first result.
            account.server.faults.add(
                FaultRule(trigger: .command("UID SORT", occurrence: 1), fault: .delay(.milliseconds(1500))))
            try await tmux.press("/")
            try await tmux.type("from:dumbledore")
            try await tmux.press("Enter")
            // Both lines of the searching screen (a capture can fall between the writes of one frame).
            _ = try await tmux.waitFor("the searching screen") { screen in
                screen.contains("Searching the server for “from:dumbledore”...") && screen.contains("Searching...")
            }
            let results = try await tmux.waitFor(text: "2 results for “from:dumbledore”")
            #expect(row(results, ">●")?.contains("About Nicolas Flamel") == true, "\(results)")
            #expect(results.contains(" u Read  p Pin  ⏎ Open  / Edit search  Esc Inbox"))
            try await tmux.press("p")
            try await tmux.waitFor(text: " u Read  p Unpin ")
            try await waitForFlags(account, uids[0]) { $0 == [.flagged] }
            try await tmux.press("p")
            try await tmux.waitFor(text: " u Read  p Pin ")
            try await waitForFlags(account, uids[0]) { $0.isEmpty }

            // No results.
            try await tmux.press("/", "C-u")
            try await tmux.type("from:voldemort")
            try await tmux.press("Enter")
            try await tmux.waitFor(text: "No results for “from:voldemort”.")

            // A query that does not parse.
            try await tmux.press("/", "C-u")
            try await tmux.type("from:\"albus")
            try await tmux.press("Enter")
            let failed = try await tmux.waitFor(text: "The search failed.")
            #expect(failed.contains("column"), "\(failed)")

            // A chosen suggestion: people seen in the inbox complete from:. Read, then Unread, the
            // second result.
            try await tmux.press("/", "C-u")
            try await tmux.type("from:albus.d")
            let suggestions = try await tmux.waitFor(text: "from:albus.dumbledore@hogwarts.example")
            #expect(suggestions.contains(" Suggestions"))
            try await tmux.press("Down", "Enter")
            try await tmux.waitFor(text: "2 results for “from:albus.dumbledore@hogwarts.example”")
            try await tmux.press("j")
            let second = try await tmux.waitFor("the second result selected") {
                self.row($0, ">●")?.contains("Thing about pain") == true
            }
            #expect(second.contains(" u Read  p Pin "))
            try await tmux.press("u")
            try await tmux.waitFor(text: " u Unread  p Pin ")
            try await waitForFlags(account, uids[1]) { $0 == [.seen] }
            try await tmux.press("u")
            try await tmux.waitFor(text: " u Read  p Pin ")
            try await waitForFlags(account, uids[1]) { $0.isEmpty }

            // Back to the inbox: the same rows, the same selection, the same scroll.
            try await tmux.press("Escape")
            try await tmux.waitFor("the inbox as it was:\n\(inbox)") { $0 == inbox }

            try await tmux.press("q")
            let ended = try await tmux.finished()
            #expect(ended.status == 0)
            #expect(ended.before == ended.after)
        }
    }

    @Test func theReaderShowsAMessageWithoutMarkingItRead() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uids = try await dumbledoreMessages(account)
        try await TmuxSession.with(account.plainArguments + ["tui"], environment: account.environment) { tmux in
            try await tmux.waitFor(text: "Updated just now")
            try await tmux.press("/")
            try await tmux.type("from:dumbledore")
            try await tmux.press("Enter")
            try await tmux.waitFor(text: "2 results for")
            try await tmux.press("Enter")
            let message = try await tmux.waitFor(text: "From: Albus Dumbledore <albus.dumbledore@hogwarts.example>")
            #expect(message.hasPrefix(" About Nicolas Flamel"))
            #expect(message.contains("Subject: About Nicolas Flamel"))
            #expect(message.contains("To the well-organized mind, death is but the next great adventure."))
            #expect(message.contains(" u Read  p Pin "))
            #expect(try await flags(account, uids[0]).isEmpty, "reading does not mark it read")
            try await tmux.press("?")
            try await tmux.waitFor(text: "Read / Unread")
            try await tmux.press("x")
            try await tmux.press("q")
            try await tmux.waitFor(text: "2 results for")
            try await tmux.press("q")
            #expect(try await tmux.finished().status == 0)
            #expect(try await flags(account, uids[0]).isEmpty)
        }
    }

    @Test func pastedTextGoesIntoTheSearchFieldAndIsNeverKeys() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uids = try await dumbledoreMessages(account)
        try await TmuxSession.with(account.plainArguments + ["tui"], environment: account.environment) { tmux in
            try await tmux.waitFor(text: "Updated just now")
            try await tmux.press("/")
            try await tmux.waitFor(text: "Search:")
            try await tmux.type("subject:")
            // A newline, then words whose letters are list keys (u toggles read, p pins, q quits).
            try await tmux.paste("from:dumbledore\nis:unread up q")
            let field = try await tmux.waitFor(text: "Search: subject:from:dumbledore is:unread up q")
            #expect(field.contains("Enter") || field.contains("⏎ Search"), "still the field: \(field)")
            try await tmux.press("Escape")
            try await tmux.waitFor(text: "Updated just now")
            // In the inbox a paste opens the search with it, unsent.
            try await tmux.paste("from:dumbledore\n")
            let opened = try await tmux.waitFor(text: "Search: from:dumbledore")
            #expect(!opened.contains("results for"), "\(opened)")
            try await tmux.press("Escape")
            try await tmux.waitFor(text: "Updated just now")
            try await tmux.press("q")
            #expect(try await tmux.finished().status == 0)
            // No flag changed on the server.
            for uid in uids { #expect(try await flags(account, uid).isDisjoint(with: [.flagged, .deleted])) }
            #expect(try await flags(account, uids[0]).contains(.seen) == false)
        }
    }

    enum Ending: String, CaseIterable, Sendable {
        case quitKey, controlC, terminate
    }

    @Test(arguments: Ending.allCases)
    func quittingRestoresTheTerminal(ending: Ending) async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        try await TmuxSession.with(account.plainArguments + ["tui"], environment: account.environment) { tmux in
            try await tmux.waitFor(text: "Updated just now")
            switch ending {
            case .quitKey: try await tmux.press("q")
            case .controlC: try await tmux.press("C-c")
            case .terminate: kill(try await tmux.programID(), SIGTERM)
            }
            let ended = try await tmux.finished()
            #expect(ended.status == (ending == .terminate ? 128 + SIGTERM : 0), "SIGTERM: 143, as shells expect")
            #expect(ended.before == ended.after, "stty -a before:\n\(ended.before)\nafter:\n\(ended.after)")
            #expect(ended.before.contains("icanon") && ended.before.contains(" echo"))
            // The shell's screen is back: the inbox was on the alternate screen.
            let screen = try await tmux.screen()
            #expect(screen.contains("mailsearch exited"))
            #expect(!screen.contains("INBOX"), "\(screen)")
        }
    }

    /// The UIDs each `UID FETCH` the server received names (a sequence set, `3,5:7`).
    func fetchedUIDSets(_ account: MockAccount) -> [[UInt32]] {
        account.server.sessions.flatMap(\.transcript).filter { $0.direction == .client }.compactMap { line in
            let words = line.text.split(separator: " ").map(String.init)
            guard words.count >= 4, words[1].uppercased() == "UID", words[2].uppercased() == "FETCH" else {
                return nil
            }
            return words[3].split(separator: ",").flatMap { part -> [UInt32] in
                let bounds = part.split(separator: ":").compactMap { UInt32($0) }
                guard let low = bounds.min(), let high = bounds.max() else { return [] }
                return Array(low...high)
            }
        }
    }

    @Test func rowsAreFetchedAPageAtATime() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let total = account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").count
        try #require(total > 200)
        try await TmuxSession.with(account.plainArguments + ["tui"], environment: account.environment) { tmux in
            try await tmux.waitFor("the first rows, and no page loading") { screen in
                screen.contains("Updated just now") && !screen.contains("Loading more...")
            }
            let first = fetchedUIDSets(account)
            #expect(!first.isEmpty && first.allSatisfy { $0.count <= 50 }, "\(first.map(\.count))")
            #expect(
                first.joined().count <= 100 + 50,
                "a screenful and the page after it, and the pinned rows in view by UID, not the mailbox")
            // Scrolling fetches the next pages, one at a time.
            try await tmux.press("PageDown", "PageDown", "PageDown", "PageDown")
            try await tmux.waitFor("more rows loaded") { _ in self.fetchedUIDSets(account).count > first.count }
            let later = fetchedUIDSets(account)
            #expect(later.allSatisfy { $0.count <= 50 }, "\(later.map(\.count))")
            #expect(Set(later.joined()).count < total)
            try await tmux.press("q")
            #expect(try await tmux.finished().status == 0)
        }
    }

    @Test func capitalRRefreshesTheInbox() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        try await TmuxSession.with(account.plainArguments + ["tui"], environment: account.environment) { tmux in
            let inbox = try await tmux.waitFor(text: "Updated just now")
            #expect(!inbox.contains("Checking for mail..."))
            // The next listing is slow, so the refresh shows while it runs; a message that came in
            // meanwhile is on the refreshed screen.
            account.server.faults.add(
                FaultRule(trigger: .command("UID SORT", occurrence: 1), fault: .delay(.milliseconds(1500))))
            account.server.faults.add(
                FaultRule(trigger: .command("UID SEARCH", occurrence: 1), fault: .delay(.milliseconds(1500))))
            try await tmux.press("R")
            let checking = try await tmux.waitFor(text: "Checking for mail...")
            #expect(checking.contains("About Nicolas Flamel"), "the rows stay while it checks: \(checking)")
            let refreshed = try await tmux.waitFor(text: "Updated just now")
            #expect(refreshed.contains("About Nicolas Flamel"))
            #expect(account.server.faults.fired.contains { $0.command.uppercased().hasPrefix("UID S") })
            try await tmux.press("q")
            #expect(try await tmux.finished().status == 0)
        }
    }

    /// Ctrl-Z in a shell with job control: the shell's screen and prompt come back with the
    /// job stopped; `fg` brings the screen back, redrawn, where it was, and the keys of `fg`
    /// never reached it.
    @Test func controlZStopsTheScreenAndFgBringsItBack() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        try await TmuxSession.with(
            account.plainArguments + ["tui"], environment: account.environment, jobControl: true
        ) { tmux in
            try await tmux.waitFor(text: "Updated just now")
            try await tmux.press("j", "j", "j")
            // Its row loaded (pinned rows come by UID after the first page).
            let inbox = try await tmux.waitFor("the fourth row selected and loaded", settled: true) {
                $0.split(separator: "\n").firstIndex { $0.hasPrefix(">") } == 5
                    && self.row($0, ">")?.contains("Loading...") == false
            }
            try await tmux.press("C-z")
            let shell = try await tmux.waitFor(text: "Stopped")
            #expect(!shell.contains("Updated just now"), "the shell's screen, not the inbox: \(shell)")
            try await tmux.type("fg")
            try await tmux.press("Enter")
            let back = try await tmux.waitFor("the screen redrawn", settled: true) { $0.contains("Updated just now") }
            #expect(self.row(back, ">") == self.row(inbox, ">"), "\(back)")
            // The shell's "mailsearch exited" line came when the job stopped (147); after q the
            // job ends and the prompt is back on the shell's screen.
            #expect(shell.contains("mailsearch exited 147"), "\(shell)")
            try await tmux.press("q")
            try await tmux.waitFor("the prompt after the job ended") { screen in
                let lines = screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                return !screen.contains("Updated just now") && lines.contains("$ fg") && lines.last == "$"
            }
        }
    }

    @Test func anExpungeElsewhereLeavesTheScreenWithoutAKey() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uids = try await dumbledoreMessages(account)
        try #require(uids.count == 2)
        // Tall enough for every pinned message of the demo and the newest mail below them.
        try await TmuxSession.with(
            account.plainArguments + ["tui"], environment: account.environment, height: 70
        ) { tmux in
            let inbox = try await tmux.waitFor(text: "Updated just now")
            #expect(inbox.contains("About Nicolas Flamel"), "\(inbox)")
            #expect(inbox.contains("Thing about pain"), "\(inbox)")
            let session = try await account.otherConnection()
            try await session.select("INBOX")
            try await session.store(SequenceSet(numbers: [uids[0]]), .add, [.deleted])
            try await session.execute(.expunge)
            await session.logout()
            let after = try await tmux.waitFor("the expunged message gone") { !$0.contains("About Nicolas Flamel") }
            #expect(after.contains("Thing about pain"), "only the expunged one goes: \(after)")
            try await tmux.press("q")
            #expect(try await tmux.finished().status == 0)
        }
    }

    @Test func aRefusedPinShowsTheServersReasonInTheFooter() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uids = try await dumbledoreMessages(account)
        try #require(uids.count == 2)
        account.server.faults.add(
            FaultRule(
                trigger: .command("UID STORE", occurrence: 1),
                fault: .respond(.no, text: "no pins here")))
        try await TmuxSession.with(
            account.plainArguments + ["tui"], environment: account.environment, width: 120, height: 30
        ) { tmux in
            try await tmux.waitFor(text: "Updated just now")
            try await tmux.press("/")
            try await tmux.type("from:dumbledore")
            try await tmux.press("Enter")
            try await tmux.waitFor(text: "2 results for")
            try await tmux.press("p")
            let refused = try await tmux.waitFor(text: "no pins here")
            // The footer says why, and the row is shown unpinned again.
            let footer = refused.split(separator: "\n", omittingEmptySubsequences: false).suffix(3).joined(
                separator: "\n")
            #expect(
                footer.contains(
                    "Could not pin “About Nicolas Flamel”: the server refused to set \\Flagged: no pins here"),
                "\(refused)")
            try await tmux.waitFor(text: " u Read  p Pin ")
            #expect(try await flags(account, uids[0]).isEmpty)
            try await tmux.press("q")
            #expect(try await tmux.finished().status == 0)
        }
    }

    enum Failure: String, CaseIterable, Sendable {
        /// SIGTERM while the first listing hangs on the server.
        case terminatedWhileLoading
        /// The server goes away for good; the screen says so; `q`.
        case serverGone
    }

    @Test(arguments: Failure.allCases)
    func anErrorEndingRestoresTheTerminal(failure: Failure) async throws {
        let account = try await MockAccount.start(
            faults: failure == .terminatedWhileLoading
                ? [
                    FaultRule(trigger: .command("UID SORT", occurrence: 1), fault: .stall),
                    FaultRule(trigger: .command("UID SEARCH", occurrence: 1), fault: .stall),
                ] : [])
        defer { Task { await account.stop() } }
        // A command timeout longer than the test waits for the end: a tool that waited for the
        // stalled server's answers before ending would not end in time.
        try await TmuxSession.with(
            account.plainArguments + ["--timeout", "300", "tui"], environment: account.environment
        ) { tmux in
            switch failure {
            case .terminatedWhileLoading:
                let loading = try await tmux.waitFor(text: "Checking for mail...")
                #expect(loading.contains("░░░"), "\(loading)")
                kill(try await tmux.programID(), SIGTERM)
            case .serverGone:
                try await tmux.waitFor(text: "Updated just now")
                await account.server.stop()
                let lost = try await tmux.waitFor(text: "connection")
                #expect(lost.lowercased().contains("lost") || lost.contains("Could not"), "\(lost)")
                try await tmux.press("q")
            }
            let ended = try await tmux.finished()
            #expect(ended.status == (failure == .terminatedWhileLoading ? 128 + SIGTERM : 0))
            #expect(ended.before == ended.after, "stty -a before:\n\(ended.before)\nafter:\n\(ended.after)")
            #expect(ended.before.contains("icanon") && ended.before.contains(" echo"))
            let screen = try await tmux.screen()
            #expect(screen.contains("mailsearch exited"))
            #expect(!screen.contains("INBOX"), "\(screen)")
        }
    }

    @Test func withoutATerminalItSaysSo() async throws {
        let result = try await ToolProcess.run(
            ["--demo", "tui"], environment: ToolEnvironment.make(FileManager.default.temporaryDirectory))
        #expect(result.status == 64, "\(result)")
        #expect(result.standardError.hasPrefix("error: mailsearch tui needs a terminal"))
        #expect(result.standardOutput.isEmpty)
    }

    /// Reads the flags of `uid` back over another connection, then follows that connection's
    /// IDLE events until `condition` holds (the change is sent after the screen shows it). The
    /// listener starts before the read, so a change made in between is in one or the other; the
    /// suite's time limit bounds a change that never comes.
    func waitForFlags(
        _ account: MockAccount, _ uid: UInt32, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (Set<Flag>) -> Bool
    ) async throws {
        let session = try await account.otherConnection()
        try await session.select(MailboxName(wire: "INBOX"), readOnly: true)
        let events = session.events().makeAsyncIterator()
        var current: Set<Flag> = []
        for try await message in session.fetch(SequenceSet(uid), items: [.uid, .flags]) where message.uid == uid {
            current = Set(message.flags ?? []).subtracting([.recent])
        }
        while !condition(current) {
            guard let event = try await events.next() else {
                Issue.record("the flags of UID \(uid) stayed \(current)", sourceLocation: sourceLocation)
                break
            }
            if case .flagsChanged(uid, let flags, _) = event { current = Set(flags).subtracting([.recent]) }
        }
        await session.logout()
    }
}
