import IMAPCore

/// Generates the demo mailbox's messages: a deterministic pseudo-random mix (SplitMix64), so the
/// same seed and day always give the same mail.
struct DemoGenerator {
    private var state: UInt64
    private let today: Int
    private var count = 0

    init(seed: UInt64, today: Int) {
        state = seed
        self.today = today
    }

    // MARK: - Randomness

    private mutating func nextRandom() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    private mutating func number(_ range: Range<Int>) -> Int {
        range.lowerBound + Int(nextRandom() % UInt64(range.count))
    }

    private mutating func chance(_ probability: Double) -> Bool {
        Double(nextRandom() % 10_000) < probability * 10_000
    }

    private mutating func pick<T>(_ values: [T]) -> T { values[number(0..<values.count)] }

    // MARK: - Material

    private static let people: [String] = [
        "Grace Jones <grace.jones@apple.com>", "Jürgen Müller <juergen.mueller@example.de>",
        "José Álvarez <jose.alvarez@example.es>", "Zoë Ångström <zoe@example.se>", "田中 太郎 <taro.tanaka@example.jp>",
        "王芳 <wang.fang@example.cn>", "Ольга Петрова <olga.petrova@example.ru>", "Søren Kierkegaard <soren@example.dk>",
        "Priya Natarajan <priya@example.in>", "Chloé Dubois <chloe.dubois@example.fr>",
        "Mateo Rossi <mateo.rossi@example.it>", "Aoife O'Brien <aoife.obrien@example.ie>",
        "Bob Example <bob@example.com>", "Alice Example <alice@example.com>", "Carol Danvers <carol@example.org>",
        "Dave Smith <dave@example.net>",
    ]

    private static let services: [(from: String, subjects: [String])] = [
        (
            "GitHub <noreply@github.com>",
            ["[mailsearch] Pull request #%d: Fix IDLE renewal", "[mailsearch] Issue #%d opened"]
        ),
        ("Stripe <receipts@stripe.com>", ["Your receipt from Example Inc. #%d", "Invoice #%d paid"]),
        ("Amazon <shipment-tracking@amazon.com>", ["Your order #%d has shipped", "Your Amazon.com order #%d"]),
        ("Apple <no_reply@email.apple.com>", ["Your receipt from Apple. Document No. %d", "Your Apple ID was used"]),
        ("Google <no-reply@accounts.google.com>", ["Security alert", "Google Workspace: %d new features"]),
        ("Lufthansa <online@booking.lufthansa.com>", ["Ihre Buchungsbestätigung %d", "Check-in für Ihren Flug %d"]),
        ("Slack <feedback@slack.com>", ["%d new messages in #general", "Your weekly Slack summary"]),
        ("swift-evolution <swift-evolution@forums.swift.org>", ["[Pitch] Typed throws, round %d", "[Review] SE-0%d"]),
        ("Linear <notifications@linear.app>", ["MS-%d: Search history is lost on restart", "MS-%d assigned to you"]),
    ]

    private static let topics = [
        "Quarterly planning", "Team offsite", "Budget review", "Release notes", "Design review", "Hiring update",
        "Customer feedback", "Server migration", "Meeting notes", "Lunch on Friday?", "Conference travel",
        "Search performance", "Inbox redesign", "Invoice question", "Weekend plans",
    ]

    private static let internationalSubjects = [
        "会議の議事録", "パリ出張の件", "请查收本周报告", "Встреча в понедельник", "Rechnung für März", "Café à Paris ☕️",
        "🎉 Launch day!", "Résumé of the project", "Straße gesperrt – neue Route", "München Büro: Schlüsselübergabe",
    ]

    private static let sentences = [
        "Thanks for the quick reply.", "Please find the details below.", "Let me know what you think.",
        "The numbers look better than last quarter.", "We should ship this before the end of the month.",
        "Could you review the draft and send comments by Thursday?", "I moved the meeting to 3 PM.",
        "The invoice is attached for your records.", "Search results now come from the server.",
        "Recent searches are kept on this device only.", "The build is green again.",
        "I'll be out of office next week.", "Happy to help with the migration.",
        "Here is the agenda for tomorrow.", "The report covers Apple, Amazon and Google.",
    ]

    private static let internationalSentences = [
        "明日の会議は午後3時からです。", "资料已经上传到共享文件夹。", "Спасибо за быстрый ответ.",
        "Die Rechnung liegt als PDF bei.", "Merci pour votre retour rapide.", "¿Podemos vernos el jueves?",
        "Grüße aus München – bis bald!", "Vielen Dank für die schöne Zusammenarbeit.",
    ]

    // MARK: - Messages

    /// The next message: when it arrived, its mailbox, flags and content.
    mutating func next() -> (seconds: Int, mailbox: String, flags: [Flag], message: MessageBuilder) {
        count += 1
        let daysAgo = number(0..<183)
        let seconds = today - daysAgo * 86400 + number(6 * 3600..<23 * 3600)
        let zone = pick([0, 60, 120, -300, -420, 330, 540, 480])
        var message = MessageBuilder()
        message.date = IMAPDateTime(secondsSinceEpoch: seconds, zoneMinutes: zone)
        message.messageID = "<demo-\(count).\(nextRandom() % 1_000_000)@mailsearch.example>"
        let me = "Alice Example <alice@example.com>"
        var mailbox = "INBOX"
        var flags: [Flag] = []

        switch number(0..<10) {
        case 0...3:
            // Person to person, sometimes a reply or forward, sometimes international.
            let sender = pick(Self.people.filter { $0 != me })
            message.from = sender
            message.to = [me]
            if chance(0.3) { message.cc = [pick(Self.people)] }
            let international = chance(0.25)
            var subject = international ? pick(Self.internationalSubjects) : pick(Self.topics)
            if chance(0.3) { subject = "Re: " + subject }
            if chance(0.1) { subject = "Fwd: " + subject }
            message.subject = subject
            message.text = paragraphs(international: international, greeting: sender)
            if chance(0.3) { message.html = html(message.text ?? "") }
            if chance(0.2) { message.attachments = [attachment()] }
        case 4...7:
            // Notifications and receipts.
            let service = pick(Self.services)
            message.from = service.from
            message.to = [me]
            message.subject = pick(service.subjects).replacing("%d", with: String(number(1000..<99999)))
            message.text = paragraphs(international: service.from.contains("lufthansa"), greeting: nil)
            message.html = html(message.text ?? "")
            if service.from.contains("stripe") || service.from.contains("Apple") {
                message.attachments = [
                    MessageBuilder.Attachment(
                        filename: "Receipt-\(number(1000..<9999)).pdf", contentType: "application/pdf",
                        data: Self.pdfBytes(pages: 1))
                ]
            }
            if service.from.contains("swift-evolution") {
                message.extraHeaders = [("List-Id", "<swift-evolution.forums.swift.org>")]
            }
        case 8:
            // Sent by the owner.
            mailbox = chance(0.1) ? "Drafts" : "Sent"
            message.from = me
            message.to = [pick(Self.people.filter { $0 != me })]
            message.subject = "Re: " + pick(Self.topics)
            message.text = paragraphs(international: chance(0.2), greeting: message.to.first)
            flags = mailbox == "Drafts" ? [.draft] : [.seen]
        default:
            // Older mail, archived; a little junk.
            if chance(0.15) {
                mailbox = "Junk"
                message.from = "Prize Department <winner@lottery.example>"
                message.to = [me]
                message.subject = "You have won $\(number(1..<100)),000,000!!!"
                message.text = "Claim your prize now. Reply with your bank details."
            } else {
                mailbox = "Archive"
                message.from = pick(Self.people.filter { $0 != me })
                message.to = [me]
                message.subject = pick(Self.topics)
                message.text = paragraphs(international: chance(0.2), greeting: message.from)
            }
        }
        if mailbox != "Sent" && mailbox != "Drafts" {
            // Older mail is mostly read; some flagged (pinned), some answered.
            if chance(daysAgo > 14 ? 0.85 : 0.45) { flags.append(.seen) }
            if chance(0.08) { flags.append(.flagged) }
            if chance(0.06) { flags.append(.answered) }
            if chance(0.03) { flags.append(Flag("$Pinned")) }
        }
        return (seconds, mailbox, flags, message)
    }

    private mutating func paragraphs(international: Bool, greeting: String?) -> String {
        var text = ""
        if let greeting {
            let name = greeting.split(separator: "<").first.map { String($0).trimmingSpaces } ?? ""
            text += "Hi \(name.split(separator: " ").first.map(String.init) ?? name),\n\n"
        }
        for _ in 0..<number(1..<4) {
            var sentences: [String] = []
            for _ in 0..<number(2..<5) {
                sentences.append(
                    international && chance(0.5) ? pick(Self.internationalSentences) : pick(Self.sentences))
            }
            text += sentences.joined(separator: " ") + "\n\n"
        }
        return text + "Best,\n" + pick(["Alice", "Bob", "Grace", "Jürgen", "太郎", "Olga"]) + "\n"
    }

    private func html(_ text: String) -> String {
        let paragraphs = text.split(separator: "\n\n").map { "<p>" + $0.replacing("\n", with: "<br>") + "</p>" }
        return "<html><body>" + paragraphs.joined() + "</body></html>"
    }

    private mutating func attachment() -> MessageBuilder.Attachment {
        switch number(0..<4) {
        case 0:
            return MessageBuilder.Attachment(
                filename: "Report \(number(1..<12))-2024.pdf", contentType: "application/pdf",
                data: Self.pdfBytes(pages: number(1..<4)))
        case 1:
            return MessageBuilder.Attachment(
                filename: "numbers.csv", contentType: "text/csv",
                data: Array("name,amount\nApple,120\nAmazon,95\nGoogle,87\n".utf8))
        case 2:
            return MessageBuilder.Attachment(
                filename: "invite.ics", contentType: "text/calendar",
                data: Array(
                    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nSUMMARY:Team meeting\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
                        .utf8))
        default:
            return MessageBuilder.Attachment(
                filename: "Übersicht_März.pdf", contentType: "application/pdf", data: Self.pdfBytes(pages: 1))
        }
    }

    /// A small, valid-looking PDF.
    static func pdfBytes(pages: Int) -> [UInt8] {
        var text = "%PDF-1.4\n"
        for page in 1...max(1, pages) { text += "% page \(page)\n\(page) 0 obj << /Type /Page >> endobj\n" }
        text += "trailer << /Root 1 0 R >>\n%%EOF\n"
        return Array(text.utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A]
    }
}
