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

    /// The inbox as rows: the Pinned section (if any message is pinned) titled, then the rest
    /// under the mailbox's name, then "Loading more" while a page loads.
    package static func inbox(_ snapshot: InboxSnapshot) -> [ListRow] {
        var rows: [ListRow] = []
        let pinned = snapshot.pinnedEmails
        if !pinned.isEmpty {
            rows.append(.section("Pinned"))
            rows += pinned.enumerated().map { .email($1, index: $0) }
            if !snapshot.unpinnedEmails.isEmpty { rows.append(.section(snapshot.mailboxName)) }
        }
        rows += snapshot.unpinnedEmails.enumerated().map { .email($1, index: pinned.count + $0) }
        if snapshot.isLoadingMore { rows.append(.loadingMore) }
        return rows
    }

    /// The search results as rows, then "Loading more" while a page loads.
    package static func results(_ snapshot: InboxSnapshot) -> [ListRow] {
        var rows: [ListRow] = snapshot.searchResults.enumerated().map { .email($1, index: $0) }
        if snapshot.isLoadingMoreResults { rows.append(.loadingMore) }
        return rows
    }
}
