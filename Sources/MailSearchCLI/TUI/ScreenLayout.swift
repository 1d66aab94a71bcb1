package import MailSearch

/// Where the parts of the screen go for a terminal size: a title row (the mailbox, or the
/// search field), the body (the list), a status row (the toolbar of the first design document:
/// "Updated just now", "N unread", "Checking for mail...", notices) and a row of key hints.
/// Parts give way as the terminal shrinks: the key hints below 10 rows, the status row below 3,
/// the body below 2 (80x24 shows 21 rows of mail).
package struct ScreenLayout: Hashable, Sendable {
    /// The terminal size.
    package var size: TerminalSize

    /// A layout for `size`.
    package init(_ size: TerminalSize) { self.size = size }

    /// Rows of the title (0 or 1).
    package var titleRows: Int { size.height >= 1 ? 1 : 0 }
    /// Rows of the status line (0 or 1).
    package var statusRows: Int { size.height >= 3 ? 1 : 0 }
    /// Rows of key hints (0 or 1).
    package var keyRows: Int { size.height >= 10 ? 1 : 0 }
    /// Rows of the body: the list, the message, the help.
    package var bodyRows: Int { max(0, size.height - titleRows - statusRows - keyRows) }
    /// The first row of the body.
    package var bodyTop: Int { titleRows }
    /// How far Page Down moves: a body less one row, so a row stays in view for context.
    package var page: Int { max(1, bodyRows - 1) }
    /// What the title row shows before the search field.
    package static let searchLabel = " Search: "
    /// Columns of the search field (the cursor's included): the title row after
    /// ``searchLabel``, less its last column.
    package var searchFieldColumns: Int { max(0, size.width - TerminalText.width(of: Self.searchLabel) - 1) }
}

/// One row of a mail list: a section title, a message, or a message whose page is not loaded.
package enum ListRow: Hashable, Sendable {
    /// "Pinned", or the mailbox's name after the pinned section.
    case section(String)
    /// The message at `index` of the list's messages.
    case email(Email, index: Int)
    /// Message `index` of the list, on a page that is being fetched (or will be when it comes
    /// near the view).
    case notLoaded(index: Int)
}

/// The rows of a mail list, worked out from its ``MailListWindow`` rather than built: a key
/// press asks for a screenful of them, and the list may have 100,000 messages of which a few
/// pages are held.
///
/// The inbox: the Pinned section (if any message is pinned) titled, then the rest under the
/// mailbox's name (titled only after a Pinned section). The results: the messages.
package struct ListRows: Sendable {
    private let window: MailListWindow
    private let mailboxName: String
    private let titled: Bool

    private init(window: MailListWindow, mailboxName: String, titled: Bool) {
        self.window = window
        self.mailboxName = mailboxName
        self.titled = titled
    }

    /// The inbox's rows.
    package static func inbox(_ snapshot: InboxScreenState) -> ListRows {
        ListRows(window: snapshot.inboxWindow, mailboxName: snapshot.mailboxName, titled: true)
    }

    /// The search results' rows.
    package static func results(_ snapshot: InboxScreenState) -> ListRows {
        ListRows(window: snapshot.resultsWindow, mailboxName: "", titled: false)
    }

    private var pinnedTitleRows: Int { titled && window.pinnedCount > 0 ? 1 : 0 }
    private var othersTitleRows: Int { pinnedTitleRows == 1 && window.othersCount > 0 ? 1 : 0 }
    /// The row of the first message that is not pinned.
    private var othersStart: Int { pinnedTitleRows + window.pinnedCount + othersTitleRows }

    /// How many rows.
    package var count: Int { othersStart + window.othersCount }

    /// Row `row` (0 ..< count).
    package subscript(row: Int) -> ListRow {
        let pinned = window.pinnedCount
        if pinnedTitleRows == 1 {
            if row == 0 { return .section("Pinned") }
            if row <= pinned { return window[row - 1].map { .email($0, index: row - 1) } ?? .notLoaded(index: row - 1) }
            if othersTitleRows == 1 && row == pinned + 1 { return .section(mailboxName) }
        }
        let index = row - othersStart
        if let email = window.other(at: index) { return .email(email, index: pinned + index) }
        return .notLoaded(index: pinned + index)
    }

    /// The row of the message at `index` of the list's messages (pinned first).
    package func row(ofMessage index: Int) -> Int {
        let pinned = window.pinnedCount
        return index < pinned ? pinnedTitleRows + index : othersStart + index - pinned
    }

    /// The message on row `row`, or for a section title the message under it.
    package func message(ofRow row: Int) -> Int {
        let pinned = window.pinnedCount
        if pinnedTitleRows == 1 && row <= pinned { return max(0, row - 1) }
        return pinned + max(0, row - othersStart)
    }
}
