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
}

/// One row of a mail list: a section title, a message, or the row that says more are loading.
package enum ListRow: Hashable, Sendable {
    /// "Pinned", or the mailbox's name after the pinned section.
    case section(String)
    /// The message at `index` of the list's messages.
    case email(Email, index: Int)
    /// More messages are being fetched.
    case loadingMore
}

/// The rows of a mail list, worked out from the sections' sizes rather than built: a key press
/// asks for a few of them, and a list scrolled to its end holds the whole mailbox.
///
/// The inbox: the Pinned section (if any message is pinned) titled, then the rest under the
/// mailbox's name (titled only after a Pinned section), then "Loading more" while a page loads.
/// The results: the messages, then "Loading more" while a page loads.
package struct ListRows: Sendable {
    private let pinned: [Email]
    private let others: [Email]
    private let mailboxName: String
    private let isLoadingMore: Bool

    private init(pinned: [Email], others: [Email], mailboxName: String, isLoadingMore: Bool) {
        self.pinned = pinned
        self.others = others
        self.mailboxName = mailboxName
        self.isLoadingMore = isLoadingMore
    }

    /// The inbox's rows.
    package static func inbox(_ snapshot: InboxSnapshot) -> ListRows {
        ListRows(
            pinned: snapshot.pinnedEmails, others: snapshot.unpinnedEmails, mailboxName: snapshot.mailboxName,
            isLoadingMore: snapshot.isLoadingMore)
    }

    /// The search results' rows.
    package static func results(_ snapshot: InboxSnapshot) -> ListRows {
        ListRows(
            pinned: [], others: snapshot.searchResults, mailboxName: "", isLoadingMore: snapshot.isLoadingMoreResults)
    }

    private var pinnedTitleRows: Int { pinned.isEmpty ? 0 : 1 }
    private var othersTitleRows: Int { !pinned.isEmpty && !others.isEmpty ? 1 : 0 }
    /// The row of the first message that is not pinned.
    private var othersStart: Int { pinnedTitleRows + pinned.count + othersTitleRows }

    /// How many rows.
    package var count: Int { othersStart + others.count + (isLoadingMore ? 1 : 0) }

    /// Row `row` (0 ..< count).
    package subscript(row: Int) -> ListRow {
        if !pinned.isEmpty {
            if row == 0 { return .section("Pinned") }
            if row <= pinned.count { return .email(pinned[row - 1], index: row - 1) }
            if othersTitleRows == 1 && row == pinned.count + 1 { return .section(mailboxName) }
        }
        let index = row - othersStart
        if index < others.count { return .email(others[index], index: pinned.count + index) }
        return .loadingMore
    }

    /// The row of the message at `index` of the list's messages (pinned first).
    package func row(ofMessage index: Int) -> Int {
        index < pinned.count ? pinnedTitleRows + index : othersStart + index - pinned.count
    }
}
