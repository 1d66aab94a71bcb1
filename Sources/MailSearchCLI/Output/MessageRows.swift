import FoundationEssentials
import MailSearch

/// Messages as rows for a person (docs/cli.md, "Output"): a marker column (`●` unread, `📌`
/// pinned), the UID, the date (today `14:05`, this year `Mar 5`, else `2023-03-05`), the sender,
/// the subject and a dimmed preview. Colours only on a terminal, never with `NO_COLOR`; rows
/// are cut to the terminal's width.
struct MessageRows {
    /// Whether to use colours (ANSI SGR).
    var colors: Bool
    /// The width to cut rows to; nil leaves them whole (not a terminal).
    var width: Int?
    /// The moment "today" and "this year" are judged from.
    var now: Date
    /// The time zone dates are shown in.
    var timeZone: LocalZone
    /// The open mailbox: rows of another one show it before the UID (`Archive:32`), as the
    /// commands that act on messages take them. Nil: every row shows its UID alone.
    var openMailbox: String? = nil

    /// The sender column's width.
    static let senderWidth = 22

    /// The style for standard output of `context`; rows of mailboxes other than `openMailbox`
    /// show theirs.
    static func forStandardOutput(
        _ context: CommandContext, openMailbox: String? = nil, now: Date = Date()
    ) -> MessageRows {
        let output = context.standardOutput
        let noColor = context.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return MessageRows(
            colors: output.isTerminal && !noColor, width: output.terminalWidth, now: now, timeZone: .system,
            openMailbox: openMailbox)
    }

    /// One line per email, each ending in a newline.
    func render(_ emails: [Email]) -> String {
        let uidWidth = self.uidWidth(emails.map(\.id))
        return emails.map { row($0, uidWidth: uidWidth) + "\n" }.joined()
    }

    /// What the UID column shows for message `id`: its UID, or `Archive:32` for a message of
    /// another mailbox than the open one.
    func uidText(_ id: Email.ID) -> String {
        guard let openMailbox else { return String(id.uid) }
        return TerminalText.sanitized(MessageArguments.label(id, open: openMailbox))
    }

    /// The UID column's width for rows of `ids`.
    func uidWidth(_ ids: some Sequence<Email.ID>) -> Int {
        ids.map { TerminalText.width(of: uidText($0)) }.max() ?? 1
    }

    /// One email's row, without the newline.
    func row(_ email: Email, uidWidth: Int) -> String {
        let marker = (email.isPinned ? "📌" : "  ") + (email.isRead ? " " : "●")
        let uid = uidText(email.id)
        let uidColumn = String(repeating: " ", count: max(0, uidWidth - TerminalText.width(of: uid))) + uid
        let date = TerminalText.padded(Self.formatDate(email.date, now: now, timeZone: timeZone), to: 10)
        let senderText = TerminalText.sanitized(email.from.name.flatMap { $0.isEmpty ? nil : $0 } ?? email.from.address)
        let sender = TerminalText.padded(senderText.isEmpty ? "(no sender)" : senderText, to: Self.senderWidth)
        let subjectText = TerminalText.sanitized(email.subject)
        let subject = subjectText.isEmpty ? "(no subject)" : subjectText
        let preview = TerminalText.sanitized(email.preview)
        var plain = "\(marker) \(uidColumn)  \(date)  \(sender)  \(subject)"
        var previewShown = preview
        if let width {
            let used = TerminalText.width(of: plain)
            if used >= width {
                plain = TerminalText.truncated(plain, to: width)
                previewShown = ""
            } else {
                previewShown = preview.isEmpty ? "" : TerminalText.truncated(preview, to: max(0, width - used - 2))
            }
        }
        guard colors else { return previewShown.isEmpty ? plain : plain + "  " + previewShown }
        // The same text with colours: a blue unread dot, a bold subject when unread, a dim preview.
        var colored = plain
        if !email.isRead, let dot = colored.firstRange(of: "●") {
            colored.replaceSubrange(dot, with: "\u{1B}[34m●\u{1B}[0m")
        }
        if !email.isRead, let range = colored.ranges(of: subject).last {
            colored.replaceSubrange(range, with: "\u{1B}[1m\(subject)\u{1B}[0m")
        }
        if !previewShown.isEmpty { colored += "  \u{1B}[2m\(previewShown)\u{1B}[0m" }
        return colored
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `14:05` today, `Mar 5` this year, else `2023-03-05`, in `timeZone`.
    static func formatDate(_ date: Date, now: Date, timeZone: LocalZone) -> String {
        let time = CivilTime(date, in: timeZone)
        let today = CivilTime(now, in: timeZone)
        if time.year == today.year && time.month == today.month && time.day == today.day {
            return twoDigits(time.hour) + ":" + twoDigits(time.minute)
        }
        if time.year == today.year { return "\(months[time.month - 1]) \(time.day)" }
        return "\(time.year)-\(twoDigits(time.month))-\(twoDigits(time.day))"
    }

    private static func twoDigits(_ number: Int) -> String { number < 10 ? "0\(number)" : String(number) }
}
