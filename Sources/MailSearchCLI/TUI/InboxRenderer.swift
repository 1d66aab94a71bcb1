package import FoundationEssentials
package import MailSearch

/// Draws a ``TerminalScreen`` as a ``Frame``: a pure function of the screen (with the model's
/// snapshot in it), the moment and the time zone, so tests check what a person sees without a
/// terminal.
///
/// ```
///  INBOX                                                            342 messages
///  Pinned
/// > ●📌 AD Albus Dumbledore     About Nicolas Flamel  To the well-organized…  Mar 14
///  INBOX
///    ●   Team                 Reminder: Team meeting at 3 PM.  Hi all, the…   Mar 9
///                          Updated just now · 11 unread
///  u Read  p Unpin  ⏎ Open  / Search  R Refresh  ? Help  q Quit
/// ```
/// Rows follow the swipe-actions document's MailCell: unread dot, pin, initials, the sender
/// (from 60 columns), the subject (bold when unread), a dimmed preview, the date.
package struct InboxRenderer {
    /// The moment dates and "Updated ..." are judged from.
    package var now: Date
    /// The time zone dates are shown in.
    package var timeZone: LocalZone

    /// A renderer for `now` in `timeZone`.
    package init(now: Date, timeZone: LocalZone = .system) {
        self.now = now
        self.timeZone = timeZone
    }

    /// The frame for `screen`.
    package func frame(_ screen: TerminalScreen) -> Frame {
        let layout = screen.layout
        let width = layout.size.width
        var lines: [FrameLine] = []
        var cursor: Frame.Position?
        if layout.titleRows > 0 {
            let (title, column) = titleLine(screen, width: width)
            lines.append(title)
            if let column { cursor = Frame.Position(row: 0, column: min(column, max(0, width - 1))) }
        }
        var body = body(screen, width: width, rows: layout.bodyRows)
        body = Array(body.prefix(layout.bodyRows))
        while body.count < layout.bodyRows { body.append(FrameLine()) }
        lines += body
        if layout.statusRows > 0 { lines.append(statusLine(screen, width: width)) }
        if layout.keyRows > 0 { lines.append(keyLine(screen).truncated(to: width, ellipsis: true)) }
        return Frame(size: layout.size, lines: lines, cursor: cursor)
    }

    // MARK: - Title

    /// The title row, and the cursor's column when the search field has the keys.
    private func titleLine(_ screen: TerminalScreen, width: Int) -> (FrameLine, Int?) {
        let bar = TextStyle.reverse
        let snapshot = screen.snapshot
        var left = FrameLine()
        var right = ""
        var cursorColumn: Int?
        switch screen.mode {
        case .reader:
            right = "q Back "
            // A long subject is cut so the way back always shows.
            let room = width - TerminalText.width(of: right) - 2
            let subject = screen.actionTarget.map { Self.subject(of: $0) } ?? "Message"
            left.append(" " + subject, bar.with(bold: true))
            left = left.truncated(to: max(0, room), ellipsis: true)
        case .help:
            left.append(" Keys", bar.with(bold: true))
            right = "any key closes "
        case .inbox:
            left.append(" " + snapshot.mailboxName, bar.with(bold: true))
            if let count = snapshot.mailbox?.messageCount {
                right = "\(count) message\(count == 1 ? "" : "s") "
            }
        case .searchField, .searchResults:
            left.append(ScreenLayout.searchLabel, bar.with(bold: true))
            // Scrolled so the cursor is in view, as in a shell's line.
            let field = screen.field.visible(columns: screen.layout.searchFieldColumns)
            let start = left.width
            left.append(field.text, bar)
            if screen.mode == .searchField { cursorColumn = start + field.cursorColumn }
            right = "Esc Inbox "
        }
        var line = left.truncated(to: width)
        let gap = width - line.width - TerminalText.width(of: right)
        if gap >= 2 {
            line.pad(gap, bar)
            line.append(right, bar)
        } else {
            line.pad(width - line.width, bar)
        }
        return (line, cursorColumn)
    }

    // MARK: - Body

    private func body(_ screen: TerminalScreen, width: Int, rows: Int) -> [FrameLine] {
        let snapshot = screen.snapshot
        switch screen.mode {
        case .help:
            return Self.helpLines.map { FrameLine($0).truncated(to: width, ellipsis: true) }
        case .reader:
            guard case .message(let reader) = screen.overlay else { return [] }
            switch reader.content {
            case .loading:
                return [FrameLine(" Loading the message...", .dim)]
            case .loaded, .failed:
                let lines = reader.wrappedLines(width: width)
                return lines.dropFirst(reader.top).prefix(rows).map { FrameLine($0) }
            }
        case .inbox:
            switch snapshot.emailsListState {
            case .loading where snapshot.inboxWindow.isEmpty:
                return placeholderRows(count: rows, width: width)
            case .loading, .data:
                return list(ListRows.inbox(snapshot), position: screen.inbox, width: width, rows: rows)
            case .empty:
                return centered(
                    [
                        FrameLine("No messages in \(snapshot.mailboxName).", .bold),
                        FrameLine("R checks for mail again; / searches.", .dim),
                    ], width: width, rows: rows)
            case .error(let message):
                var lines = [FrameLine("Could not load \(snapshot.mailboxName).", TextStyle.bold.colored(.red))]
                lines += MessageReader.wrap([message], width: max(1, width - 4)).map { FrameLine($0) }
                lines += [FrameLine(), FrameLine("r  Retry", .bold)]
                return centered(lines, width: width, rows: rows)
            }
        case .searchField where screen.showsSuggestions || screen.showsTypeAhead,
            .searchResults where screen.showsTypeAhead:
            var lines = screen.showsSuggestions ? suggestionRows(screen, width: width) : []
            if screen.showsTypeAhead {
                if snapshot.searchState == .searching {
                    let query = snapshot.searchedQuery ?? snapshot.query
                    lines.append(FrameLine(" Searching the server for “\(query)”...", .dim))
                }
                lines += typeAheadRows(snapshot, width: width, rows: rows - lines.count)
            }
            return Array(lines.prefix(rows))
        case .searchField, .searchResults:
            switch snapshot.searchState {
            case .searching:
                let query = snapshot.searchedQuery ?? snapshot.query
                return [FrameLine(" Searching the server for “\(query)”...", .dim)]
                    + placeholderRows(count: max(0, rows - 1), width: width)
            case .results:
                return list(ListRows.results(snapshot), position: screen.results, width: width, rows: rows)
            case .empty:
                if let query = snapshot.searchedQuery {
                    return centered(
                        [
                            FrameLine("No results for “\(query)”.", .bold),
                            FrameLine("/ changes the search; Esc goes back to the inbox.", .dim),
                        ], width: width, rows: rows)
                }
                return searchHints(snapshot, width: width)
            case .error(let message):
                var lines = [FrameLine("The search failed.", TextStyle.bold.colored(.red))]
                lines += MessageReader.wrap([message], width: max(1, width - 4)).map { FrameLine($0) }
                lines += [FrameLine(), FrameLine("/ changes the search; Esc goes back to the inbox.", .dim)]
                return centered(lines, width: width, rows: rows)
            }
        }
    }

    /// The rows of a list in view from `position.top`, the selected message highlighted.
    private func list(
        _ rows: ListRows, position: TerminalScreen.ListPosition, width: Int, rows count: Int
    )
        -> [FrameLine]
    {
        let first = min(max(0, position.top), rows.count)
        return (first..<min(rows.count, first + max(0, count))).map { number in
            switch rows[number] {
            case .section(let title):
                return FrameLine(" " + title, TextStyle.bold.colored(.cyan)).truncated(to: width)
            case .email(let email, let index):
                return emailRow(email, selected: index == position.index, width: width)
            case .notLoaded(let index):
                return notLoadedRow(selected: index == position.index, width: width)
            }
        }
    }

    /// One message's row.
    package func emailRow(_ email: Email, selected: Bool, width: Int) -> FrameLine {
        let base: TextStyle = selected ? .reverse : .plain
        var line = FrameLine()
        line.append(selected ? ">" : " ", base.with(bold: true))
        line.append(email.isRead ? " " : "●", base.colored(.blue))
        line.append(email.isPinned ? "📌" : "  ", base)
        line.pad(1, base)
        let sender = Self.sender(of: email)
        line.append(TerminalText.padded(Self.initialsColumn(email.from.initials), to: 2) + " ", base.with(bold: true))
        if width >= 60 {
            line.append(TerminalText.padded(sender, to: width >= 100 ? 22 : 18) + "  ", base)
        }
        let date = width >= 50 ? MessageRows.formatDate(email.date, now: now, timeZone: timeZone) : ""
        let dateColumn = date.isEmpty ? 0 : 12
        let room = max(0, width - line.width - dateColumn)
        var middle = FrameLine()
        middle.append(Self.subject(of: email), base.with(bold: !email.isRead))
        let preview = Self.collapsed(email.preview)
        if !preview.isEmpty {
            middle.append("  ", base)
            middle.append(preview, base.with(dim: true))
        }
        line.append(middle.truncated(to: room, ellipsis: true))
        line.pad(room - middle.truncated(to: room, ellipsis: true).width, base)
        if dateColumn > 0 {
            line.pad(dateColumn - TerminalText.width(of: date) - 1, base)
            line.append(date + " ", base.with(dim: !selected))
        }
        return line.fitted(to: width, base)
    }

    /// A message whose page is on its way: a grey bar where its row will be.
    private func notLoadedRow(selected: Bool, width: Int) -> FrameLine {
        let base: TextStyle = selected ? .reverse : .plain
        var line = FrameLine()
        line.append(selected ? ">" : " ", base.with(bold: true))
        line.pad(4, base)
        line.append(String(repeating: "░", count: 2) + " ", base.with(dim: true))
        line.append("Loading...", base.with(dim: true))
        return line.fitted(to: width, base)
    }

    /// Rows standing in for messages while the list loads (the first document's redacted
    /// loader): grey bars where sender, subject and date will be.
    private func placeholderRows(count: Int, width: Int) -> [FrameLine] {
        (0..<count).map { index in
            var line = FrameLine()
            line.pad(5)
            let bar = { (length: Int) in String(repeating: "░", count: max(1, length)) }
            line.append(bar(2) + " " + bar(8 + (index * 5) % 9), .dim)
            line.pad(3)
            line.append(bar(18 + (index * 7) % 23) + " " + bar(10 + (index * 11) % 17), .dim)
            let used = line.width
            if width - used > 8 {
                line.pad(width - used - 7)
                line.append(bar(5), .dim)
            }
            return line.truncated(to: width)
        }
    }

    /// Recent searches (the query is empty) or suggestions for what is typed, the highlighted
    /// one in reverse.
    private func suggestionRows(_ screen: TerminalScreen, width: Int) -> [FrameLine] {
        let snapshot = screen.snapshot
        var lines = [
            FrameLine(snapshot.query.isEmpty ? " Recent searches" : " Suggestions", TextStyle.bold.colored(.cyan))
        ]
        for (index, suggestion) in snapshot.suggestions.enumerated() {
            let highlighted = index == screen.highlightedSuggestion
            let style: TextStyle = highlighted ? .reverse : .plain
            var line = FrameLine()
            line.append(highlighted ? " > " : "   ", style)
            line.append(suggestion.text, style)
            let kind: String
            switch suggestion.kind {
            case .recentSearch: kind = "recent"
            case .operatorCompletion: kind = "operator"
            case .person: kind = "person"
            }
            let gap = width - line.width - kind.count - 1
            if gap >= 2 {
                line.pad(gap, style)
                line.append(kind + " ", style.with(dim: true))
            }
            lines.append(line.fitted(to: width, style))
        }
        return lines
    }

    /// Type-ahead: the newest local matches of the text typed, under a title saying where they
    /// come from (Enter asks the server).
    private func typeAheadRows(_ snapshot: InboxScreenState, width: Int, rows: Int) -> [FrameLine] {
        guard rows > 0, let query = snapshot.typeAheadQuery else { return [] }
        let matches = snapshot.typeAheadResults
        let title =
            matches.isEmpty
            ? " No local matches for “\(query)”; Enter asks the server"
            : " Newest local matches for “\(query)”; Enter asks the server"
        let lines =
            [FrameLine(title, TextStyle.bold.colored(.cyan)).truncated(to: width, ellipsis: true)]
            + matches.prefix(rows - 1).map { emailRow($0, selected: false, width: width) }
        return lines
    }

    /// Search mode before anything is typed or remembered: how to search.
    private func searchHints(_ snapshot: InboxScreenState, width: Int) -> [FrameLine] {
        var lines: [FrameLine] = []
        if snapshot.recentSearches.isEmpty && snapshot.query.isEmpty {
            lines.append(FrameLine(" No recent searches.", .bold))
        }
        lines += [
            FrameLine(" Type a search, for example:", .dim),
            FrameLine("   from:alice is:unread    has:attachment newer_than:7d    \"quarterly report\" OR invoice"),
            FrameLine(" Enter searches the server; Tab completes; Esc goes back to the inbox.", .dim),
        ]
        return lines.map { $0.truncated(to: width, ellipsis: true) }
    }

    /// `lines` in the middle of `rows` rows, each centred.
    private func centered(_ lines: [FrameLine], width: Int, rows: Int) -> [FrameLine] {
        let shown = Array(lines.prefix(rows))
        var result = [FrameLine](repeating: FrameLine(), count: max(0, (rows - shown.count) / 2))
        for line in shown {
            let cut = line.truncated(to: width, ellipsis: true)
            var centred = FrameLine()
            centred.pad((width - cut.width) / 2)
            centred.append(cut)
            result.append(centred)
        }
        return result
    }

    // MARK: - Status and keys

    private func statusLine(_ screen: TerminalScreen, width: Int) -> FrameLine {
        let snapshot = screen.snapshot
        if let notice = snapshot.notice {
            var line = FrameLine()
            line.append(" ! ", TextStyle.bold.colored(.yellow))
            line.append(notice.message, TextStyle.plain.colored(.yellow))
            if screen.mode == .inbox { line.append("  (Esc dismisses)", .dim) }
            return line.truncated(to: width, ellipsis: true)
        }
        var parts: [String] = []
        switch screen.mode {
        case .inbox, .help, .reader:
            switch snapshot.connection {
            case .reconnecting(let state): parts.append(state)
            case .failed(let reason) where snapshot.emailsListState != .error(reason):
                parts.append("Offline: \(reason)")
            case .closed, .opening, .open, .failed: break
            }
            switch snapshot.emailsListState {
            case .loading: parts.append("Checking for mail...")
            case .error: parts.append("Could not check for mail")
            case .data, .empty:
                if parts.isEmpty { parts.append(updated(screen.lastUpdated)) }
                // The whole mailbox's count (counted after the listing, kept up to date), not the
                // rows held; absent until it is in.
                if let unread = snapshot.unreadCount { parts.append("\(unread) unread") }
            }
            if snapshot.isLoadingMore { parts.append("Loading more...") }
        case .searchField, .searchResults:
            switch snapshot.searchState {
            case .searching: parts.append("Searching...")
            case .results:
                let total = snapshot.searchResultsTotal
                parts.append("\(total) result\(total == 1 ? "" : "s") for “\(snapshot.searchedQuery ?? "")”")
                if snapshot.isLoadingMoreResults { parts.append("Loading more...") }
            case .empty:
                parts.append(
                    snapshot.searchedQuery == nil ? "Search \(snapshot.mailboxName) on the server" : "No results")
            case .error: parts.append("Search failed")
            }
        }
        let text = parts.joined(separator: " · ")
        var line = FrameLine()
        let cut = FrameLine(text).truncated(to: width, ellipsis: true)
        line.pad((width - cut.width) / 2)
        line.append(cut)
        return line
    }

    /// "Updated just now", "Updated 5 minutes ago", "Updated at 14:05".
    private func updated(_ date: Date?) -> String {
        guard let date else { return "Updated just now" }
        let seconds = now.timeIntervalSince(date)
        if seconds < 60 { return "Updated just now" }
        if seconds < 3600 {
            let minutes = Int(seconds / 60)
            return "Updated \(minutes) minute\(minutes == 1 ? "" : "s") ago"
        }
        return "Updated at " + MessageRows.formatDate(date, now: now, timeZone: timeZone)
    }

    /// The key hints for what has the keys; the Read/Unread and Pin/Unpin labels follow the
    /// message they would act on.
    private func keyLine(_ screen: TerminalScreen) -> FrameLine {
        var hints: [(String, String)] = []
        let target = screen.actionTarget
        let actions: [(String, String)] =
            target.map {
                [
                    ("u", InboxScreen.readActionTitle(for: $0)), ("p", InboxScreen.pinActionTitle(for: $0)),
                ]
            } ?? []
        switch screen.mode {
        case .inbox:
            if case .error = screen.snapshot.emailsListState {
                hints = [("r", "Retry"), ("/", "Search"), ("?", "Help"), ("q", "Quit")]
            } else {
                hints = actions + (target == nil ? [] : [("⏎", "Open")])
                hints += [("/", "Search"), ("R", "Refresh"), ("?", "Help"), ("q", "Quit")]
            }
        case .searchField:
            hints = [("⏎", "Search"), ("Tab", "Complete"), ("↑↓", "Suggestions"), ("Esc", "Inbox")]
        case .searchResults:
            hints = actions + (target == nil ? [] : [("⏎", "Open")]) + [("/", "Edit search"), ("Esc", "Inbox")]
        case .reader:
            hints = actions + [("↑↓ PgUp PgDn", "Scroll"), ("q", "Back")]
        case .help:
            hints = [("any key", "Close")]
        }
        var line = FrameLine()
        for (index, (key, label)) in hints.enumerated() {
            line.append(index == 0 ? " " : "  ")
            line.append(key, .bold)
            line.append(" " + label, .dim)
        }
        return line
    }

    // MARK: - Text

    /// The key help.
    package static let helpLines = [
        " Moving",
        "   j k  ↓ ↑          next, previous message",
        "   PgDn PgUp  Space  a page down, up",
        "   g G  Home End     first, last message of the mailbox (its page loads at once)",
        " Acting on the selected message",
        "   Enter             open it (headers and text; opening never marks it read)",
        "   u                 Read / Unread",
        "   p                 Pin / Unpin (pinned messages are listed first)",
        " The inbox",
        "   /                 search the server",
        "   R                 check for mail (r: Retry after an error)",
        "   Esc               dismiss a notice",
        "   q  Ctrl-C         quit",
        "   Ctrl-Z            stop, as a shell job (fg brings it back, redrawn)",
        " Searching",
        "   type              the query; suggestions follow (recent searches, operators, people)",
        "                     and, with a local index, its newest matches on every key",
        "   Tab               take the highlighted (or first) suggestion into the field",
        "   ↓ ↑ then Enter    search with the highlighted suggestion",
        "   Enter             search; / edits the search again",
        "   Esc               back to the inbox, as it was",
        "   ← → Alt-B Alt-F   move by a character, a word (Home End, Ctrl-A Ctrl-E: the ends)",
        "   Ctrl-W Ctrl-U Ctrl-K  delete a word back, to the start, to the end (Delete: forward)",
        "   paste             goes into the field as text, never as keys",
    ]

    /// Initials that fit the two-column cell: both letters when they fit ("AD"), else the first
    /// alone ("明 García" -> "明": a double-width letter fills the cell); "?" when there are none.
    package static func initialsColumn(_ initials: String) -> String {
        guard let first = initials.first else { return "?" }
        return TerminalText.width(of: initials) <= 2 ? initials : String(first)
    }

    /// The sender as a row shows it: the name, else the address.
    package static func sender(of email: Email) -> String {
        if let name = email.from.name, !name.isEmpty { return name }
        return email.from.address.isEmpty ? "(no sender)" : email.from.address
    }

    /// The subject, or "(no subject)".
    package static func subject(of email: Email) -> String {
        email.subject.isEmpty ? "(no subject)" : collapsed(email.subject)
    }

    /// `text` with runs of whitespace (line breaks included) made one space.
    package static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

extension TextStyle {
    /// A copy with bold set as given.
    package func with(bold: Bool) -> TextStyle {
        var copy = self
        copy.bold = bold
        return copy
    }

    /// A copy with dim set as given.
    package func with(dim: Bool) -> TextStyle {
        var copy = self
        copy.dim = dim
        return copy
    }
}
