import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import MailSearchCLI
import MockIMAPServer
import TestSupport
import Testing
import Transport

/// The inbox stays true to the server while the person is deep in it: `R` keeps the place, the
/// Pinned section holds every pinned message of the mailbox (not only those scrolled past), and a
/// message marked deleted elsewhere leaves the screen (and comes back when the mark is cleared),
/// as `list` shows the mailbox.
// Three minutes: on a full run the main actor is shared with every other screen test.
@MainActor @Suite(.hangGuard, .timeLimit(.minutes(3)))
struct LiveInboxTests {
    func selected(_ harness: ScreenHarness) -> Email? { harness.screen.actionTarget }

    /// The message with `subject` (the service numbers UIDs itself, oldest first).
    func id(_ harness: ScreenHarness, _ subject: String) -> Email.ID {
        harness.service.emails().first { $0.subject == subject }!.id
    }

    @Test func checkingForMailKeepsTheSelectedMessageSelectedAndInView() async {
        let harness = ScreenHarness(
            service: ScreenHarness.sampleService(extra: 1000), size: .init(width: 80, height: 24))
        await harness.settleAll(after: harness.model.start)
        harness.press(.character("g"))
        for _ in 0..<10 {
            harness.press(.pageDown)
            await harness.settleAll()
        }
        harness.press(.character("j"), .character("j"))
        let before = try! #require(selected(harness))
        #expect(before.subject.hasPrefix("Older message"))
        let row = harness.lines.firstIndex { $0.hasPrefix(">") }

        harness.press(.character("R"))
        await harness.settleAll()
        #expect(selected(harness)?.id == before.id, "\(harness.text)")
        #expect(harness.lines.firstIndex { $0.hasPrefix(">") } == row, "\(harness.text)")
        #expect(harness.lines.contains { $0.hasPrefix(">") && $0.contains(before.subject) }, "\(harness.text)")

        // Mail that arrived meanwhile goes on top; the place is still the message's.
        harness.service.deliver(
            Email(
                id: Email.ID(mailbox: "INBOX", uidValidity: 1, uid: 0),
                from: Email.Person(name: "Dobby", address: "dobby@hogwarts.example"), subject: "Dobby is free",
                date: ScreenHarness.now, preview: "Master has given Dobby a sock."))
        await harness.waitUntil { $0.unpinnedEmails.contains { $0.subject == "Dobby is free" } }
        harness.press(.character("R"))
        await harness.settleAll()
        #expect(selected(harness)?.id == before.id, "\(harness.text)")
        #expect(harness.lines.contains { $0.hasPrefix(">") && $0.contains(before.subject) }, "\(harness.text)")
    }

    /// Over a real server, where a large mailbox's listing first shows a guess of its first
    /// page (50 messages): a refresh's guess never takes the place the person is at.
    @Test func checkingForMailOnALargeMailboxKeepsThePlace() async throws {
        // The refresh's sort (the second) is slow, so its guess shows for a while first.
        let account = try await MockAccount.start(
            demo: false, faults: [FaultRule(trigger: .command("UID SORT", occurrence: 2), fault: .delay(.seconds(1)))])
        defer { Task { await account.stop() } }
        for index in 0..<400 {
            let date =
                "\(String(format: "%02d", 1 + index / 24)) Mar 2024 \(String(format: "%02d", index % 24)):00:00 +0000"
            let message =
                "From: Sender \(index) <s\(index)@example.com>\r\nSubject: message \(index)\r\nDate: \(date)\r\n\r\nBody.\r\n"
            _ = try account.server.store.append(
                Array(message.utf8), user: MockAccount.user, mailbox: "INBOX", flags: [.seen])
        }
        let service = IMAPMailService(
            configuration: IMAPConfiguration(
                host: "localhost", port: account.tlsPort,
                security: .implicitTLS(ClientTLSConfiguration(additionalTrustPEM: account.server.certificatePEM))),
            credentials: .password(user: MockAccount.user, password: account.password), provisionalListingMinimum: 100)
        let harness = ScreenHarness(mailService: service)
        await harness.settleAll(after: harness.model.start)
        for _ in 0..<10 {
            harness.press(.pageDown)
            await harness.settleAll()
        }
        let before = try #require(selected(harness))
        #expect(before.subject == "message \(399 - harness.screen.inbox.index)")
        harness.press(.character("R"))
        // Every state the model passes through reaches the screen (the guess among them).
        await harness.waitUntil { $0.emailsListState == .data && !$0.isLoadingMore }
        await harness.settleAll()
        #expect(selected(harness)?.id == before.id, "\(harness.text)")
        #expect(harness.lines.contains { $0.hasPrefix(">") && $0.contains(before.subject) }, "\(harness.text)")
        harness.model.stop()
        await service.close()
    }

    /// A long outage: one notice when the connection is lost; once dismissed, the status row
    /// says what the service says (offline, how often it retries), in its words only; back
    /// online, the row is the inbox's again.
    @Test func anOutageIsOneNoticeThenOnePlainStatusLine() async {
        let harness = ScreenHarness()
        await harness.start()
        let status = { harness.lines[22].trimmingCharacters(in: .whitespaces) }
        harness.service.announce(.connectionLost("Connection lost (reset by peer); reconnecting"))
        await harness.waitUntil { $0.notice != nil }
        #expect(harness.text.contains("Connection lost (reset by peer); reconnecting"))
        harness.press(.escape)
        #expect(harness.screen.snapshot.notice == nil)
        #expect(status() == "Connection lost (reset by peer); reconnecting · 4 unread", "\(harness.text)")
        harness.service.announce(.connectionLost("Offline: retrying every 30 s"))
        await harness.waitUntil { $0.connection == .reconnecting("Offline: retrying every 30 s") }
        #expect(harness.screen.snapshot.notice == nil, "dismissed stays dismissed")
        #expect(status() == "Offline: retrying every 30 s · 4 unread", "\(harness.text)")
        harness.service.announce(.connectionRestored)
        await harness.waitUntil { $0.connection == .open }
        #expect(status() == "Updated just now · 4 unread", "\(harness.text)")
    }

    /// Ctrl-Z asks the driver to stop in every part of the screen, and is never typed.
    @Test func controlZAsksToStopFromEveryPart() async {
        let harness = ScreenHarness()
        await harness.start()
        harness.press(.control("z"))
        #expect(harness.suspended == 1)
        harness.press(.character("/"))
        harness.type("ab")
        harness.press(.control("z"))
        #expect(harness.suspended == 2)
        #expect(harness.model.query == "ab")
        harness.press(.escape, .character("?"), .control("z"))
        #expect(harness.suspended == 3)
        #expect(harness.screen.mode == .help, "the help stays for when it comes back")
    }

    @Test func thePinnedSectionHoldsEveryPinnedMessageFromTheStart() async {
        // Pinned: the sample's two (Snape, Hagrid) and three far down the mailbox.
        let harness = ScreenHarness(
            service: ScreenHarness.sampleService(extra: 600, pinned: [250, 420, 599]),
            size: .init(width: 80, height: 24))
        await harness.settleAll(after: harness.model.start)
        #expect(harness.model.inboxWindow.pinnedCount == 5)
        let lines = harness.lines
        #expect(lines[1] == " Pinned")
        for (offset, number) in [250, 420, 599].enumerated() {
            #expect(lines[4 + offset].contains("Older message \(number)"), "\(harness.text)")
        }
        // Every message is counted once: the mailbox's 610, 5 of them pinned.
        #expect(harness.model.inboxWindow.count == 610)
        harness.press(.character("G"))
        await harness.settleAll()
        #expect(selected(harness)?.subject == "Older message 598", "\(harness.text)")
        harness.press(.character("g"))
        await harness.settleAll()
        #expect(harness.lines[4].contains("Older message 250"), "\(harness.text)")
    }

    @Test func aMessagePinnedFromTheResultsJoinsThePinnedSection() async {
        let harness = ScreenHarness(
            service: ScreenHarness.sampleService(extra: 600), size: .init(width: 80, height: 24))
        await harness.settleAll(after: harness.model.start)
        #expect(harness.model.inboxWindow.pinnedCount == 2)
        harness.press(.character("/"))
        harness.type("Older message 512")
        harness.press(.enter)
        await harness.settleAll()
        #expect(selected(harness)?.subject == "Older message 512", "\(harness.text)")
        harness.press(.character("p"))
        await harness.settleAll()
        harness.press(.escape)
        await harness.settleAll()
        #expect(harness.model.inboxWindow.pinnedCount == 3)
        #expect(harness.lines[4].contains("Older message 512"), "\(harness.text)")
        // Unpinned elsewhere: it leaves the section and is counted in its page again.
        harness.service.changeFlags(of: id(harness, "Older message 512"), to: [.seen])
        await harness.waitUntil { $0.inboxWindow.pinnedCount == 2 }
        #expect(harness.model.inboxWindow.count == 610)
    }

    @Test func mailMarkedDeletedElsewhereLeavesAndComesBackWhenTheMarkIsCleared() async {
        let harness = ScreenHarness(
            service: ScreenHarness.sampleService(extra: 300), size: .init(width: 80, height: 24))
        await harness.settleAll(after: harness.model.start)
        let count = harness.model.inboxWindow.count
        // A message on screen, and one on a page not held.
        let shown = id(harness, "Older message 3")
        let far = id(harness, "Older message 290")
        #expect(harness.model.inboxWindow.email(shown) != nil)
        harness.service.changeFlags(of: shown, to: [.seen, .deleted])
        harness.service.changeFlags(of: far, to: [.seen, .deleted])
        await harness.waitUntil { $0.inboxWindow.count == count - 2 }
        #expect(harness.model.inboxWindow.email(shown) == nil)

        harness.service.changeFlags(of: shown, to: [.seen])
        harness.service.changeFlags(of: far, to: [.seen])
        await harness.waitUntil { $0.inboxWindow.count == count }
        await harness.settleAll()
        #expect(harness.model.inboxWindow.email(shown)?.subject == "Older message 3", "\(harness.text)")
        harness.press(.character("G"))
        await harness.settleAll()
        #expect(harness.model.inboxWindow.email(far)?.subject == "Older message 290")
    }
}
