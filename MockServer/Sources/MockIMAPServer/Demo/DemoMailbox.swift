public import IMAPCore

/// The sample mailbox of `mock-imap-server --demo` and `mailsearch --demo`: the messages of the
/// design documents (the inbox and search results of "Recreating Apple Mail's search", the
/// Hogwarts letters of the swipe-actions article) with plausible senders, plus a few hundred
/// generated messages with realistic variety: RFC 2047 names, multipart/alternative, attachments,
/// Japanese, Chinese, Russian and German text, mixed flags, dates over the last six months.
///
/// Everything is generated in code, deterministically for a given day, so it works the same from
/// `swift run`, a test, or an installed binary.
public enum DemoMailbox {
    /// One demo message.
    public struct Message: Sendable {
        /// The mailbox it belongs in (INBOX, Sent, Archive, Drafts, Junk).
        public let mailbox: String
        /// The RFC 5322 bytes.
        public let bytes: [UInt8]
        /// Its flags.
        public let flags: [Flag]
        /// When it was received.
        public let internalDate: IMAPDateTime
    }

    /// How many messages are generated besides the design documents' own.
    public static let generatedCount = 320

    /// The demo messages, in arrival order per mailbox, dated relative to `now` (seconds since
    /// 1970; the same day gives the same messages).
    public static func messages(now: Int? = nil) -> [Message] {
        let today = ((now ?? currentSecondsSinceEpoch()) / 86400) * 86400
        var drafts: [(seconds: Int, mailbox: String, flags: [Flag], message: MessageBuilder)] = []
        drafts += designDocumentMessages(today: today)
        var generator = DemoGenerator(seed: 0x4D61_696C_5365_6172, today: today)
        for _ in 0..<generatedCount { drafts.append(generator.next()) }
        return drafts.sorted { $0.seconds < $1.seconds }.map { draft in
            Message(
                mailbox: draft.mailbox, bytes: draft.message.bytes(), flags: draft.flags,
                internalDate: IMAPDateTime(secondsSinceEpoch: draft.seconds + 7))
        }
    }

    /// Seeds the demo messages into `user`'s mailboxes (creating any that are missing).
    @discardableResult
    public static func seed(
        into store: MailStore, user: String, now: Int? = nil
    ) throws(MockServerError)
        -> [SeededMessage]
    {
        guard store.credentials(of: user) != nil else { throw MailStore.unknownUser(user) }
        let seeds = messages(now: now).map { message in
            SeedMessage(
                user: user, mailbox: message.mailbox, bytes: message.bytes, flags: message.flags,
                internalDate: message.internalDate)
        }
        return try store.store(seeds)
    }

    // MARK: - The design documents' messages

    private static let alice = "Alice Example <alice@example.com>"
    private static let bob = "Bob Example <bob@example.com>"
    private static let team = "Team <team@example.com>"

    private static func designDocumentMessages(
        today: Int
    ) -> [(
        seconds: Int, mailbox: String, flags: [Flag], message: MessageBuilder
    )] {
        let hour = 3600
        let day = 86400
        // The inbox of "Recreating Apple Mail's search": from, text, days ago, hour, read.
        let inbox: [(String, String, String, Int, Int, Bool)] = [
            (alice, bob, "Hello Bob, how are you?", 9, 9, true),
            (bob, alice, "Hi Alice, I'm doing well. How about you?", 9, 11, true),
            (team, bob, "Reminder: Team meeting at 3 PM.", 6, 8, false),
            (alice, bob, "Can we reschedule our appointment?", 5, 10, true),
            (bob, alice, "Here's the report you asked for.", 4, 16, true),
            (team, bob, "Check out this cool new feature!", 3, 12, false),
            (team, bob, "Don't forget to submit your timesheet.", 2, 9, false),
            (alice, bob, "Happy Birthday!", 1, 8, true),
            (bob, alice, "Can you review the attached document?", 1, 14, false),
            (alice, bob, "Let's catch up soon.", 0, 9, false),
        ]
        // Its search results.
        let results: [(String, String, Int)] = [
            ("Amazon <updates@amazon.com>", "Amazon quarterly update.", 40),
            ("Apple <news@apple.com>", "Apple new product launch.", 33),
            ("Google <no-reply@accounts.google.com>", "Google security alert.", 21),
            ("Amazon <store-news@amazon.com>", "Amazon Prime Day specials.", 14),
            ("Apple <no_reply@email.apple.com>", "Apple software update.", 11),
            ("Google Workspace <workspace-noreply@google.com>", "Google workspace new features.", 7),
        ]
        // The swipe-actions article's letters: from, subject, text, read, time.
        let letters: [(String, String, String, Bool, Int)] = [
            (
                "Albus Dumbledore <albus.dumbledore@hogwarts.example>", "About Nicolas Flamel",
                "To the well-organized mind, death is but the next great adventure.", false, 20 * hour + 25 * 60
            ),
            (
                "Kingsley Shacklebolt <kingsley.shacklebolt@ministry.example>", "Battle of Hogwarts",
                "Every human life is worth the same, and worth saving.", true, 12 * hour + 25 * 60
            ),
            (
                "Hermione Granger <hermione.granger@hogwarts.example>", "Wrong vs Right",
                "Dumbledore says people find it far easier to forgive others for being wrong than being right.",
                true, 12 * hour + 25 * 60
            ),
            (
                "Luna Lovegood <luna.lovegood@hogwarts.example>", "Crumple-Horned Snorkack",
                "You can laugh, but people used to believe there were no such things as the Blibbering Humdinger "
                    + "or the Crumple-Horned Snorkack!", false, 14 * hour + 25 * 60
            ),
            (
                "Albus Dumbledore <albus.dumbledore@hogwarts.example>", "Thing about pain",
                "Numbing the pain for a while will make it worse when you finally feel it", false,
                7 * hour + 55 * 60
            ),
        ]
        var drafts: [(seconds: Int, mailbox: String, flags: [Flag], message: MessageBuilder)] = []
        for (index, entry) in inbox.enumerated() {
            let (from, to, text, daysAgo, hourOfDay, read) = entry
            let seconds = today - daysAgo * day + hourOfDay * hour + index * 60
            var message = MessageBuilder()
            message.from = from
            message.to = [to]
            message.subject = text
            message.date = IMAPDateTime(secondsSinceEpoch: seconds)
            message.messageID = "<design-\(index + 1)@example.com>"
            message.text = text
            if text.contains("report") || text.contains("attached") {
                message.attachments = [
                    MessageBuilder.Attachment(
                        filename: text.contains("report") ? "Quarterly report.pdf" : "Design document.pdf",
                        contentType: "application/pdf", data: DemoGenerator.pdfBytes(pages: 2 + index % 3))
                ]
            }
            drafts.append((seconds, "INBOX", read ? [.seen] : [], message))
        }
        for (index, entry) in results.enumerated() {
            let (from, text, daysAgo) = entry
            let seconds = today - daysAgo * day + (10 + index) * hour
            var message = MessageBuilder()
            message.from = from
            message.to = [alice]
            message.subject = text
            message.date = IMAPDateTime(secondsSinceEpoch: seconds, zoneMinutes: -7 * 60)
            let domain = from.split(separator: "@").last.map { String($0.dropLast()) } ?? "example.com"
            message.messageID = "<result-\(index + 1)@\(domain)>"
            message.text = text
            message.html = "<html><body><h1>\(text)</h1><p>\(text)</p></body></html>"
            drafts.append((seconds, "INBOX", index % 2 == 0 ? [.seen] : [], message))
        }
        for (index, entry) in letters.enumerated() {
            let (from, subject, text, read, time) = entry
            let seconds = today - (index % 3) * day + time
            var message = MessageBuilder()
            message.from = from
            message.to = ["Harry Potter <harry.potter@hogwarts.example>"]
            message.subject = subject
            message.date = IMAPDateTime(secondsSinceEpoch: seconds)
            message.messageID = "<letter-\(index + 1)@hogwarts.example>"
            message.text = text
            drafts.append((seconds, "INBOX", read ? [.seen] : [], message))
        }
        return drafts
    }
}
