package import FoundationEssentials
package import MailSearch

/// The terminal UI's own state, as a pure state machine: which message is selected and where
/// each list is scrolled, whether the search field has the keys, which suggestion is
/// highlighted, the help and the message reader. Everything else (the lists, the three states,
/// the query, the notice) is the ``InboxViewModel``'s one published value, ``InboxScreenState``.
///
/// Feed it an ``Event`` (a key, the model's new state, a new size, a fetched message); it
/// returns the ``Action``s for its driver (``TerminalUI``) to perform: calls on the model,
/// fetching a message, quitting. It does no I/O; ``InboxRenderer`` draws it.
///
/// Selections follow messages, not positions: new mail arriving above, a message pinned into
/// the Pinned section, or a page appended keep the same message selected. The inbox keeps its
/// selection and scroll position while search mode shows, so leaving search (Esc) finds it
/// exactly as it was.
package struct TerminalScreen: Hashable, Sendable {
    /// What happens.
    package enum Event: Hashable, Sendable {
        /// A key was pressed.
        case key(Key)
        /// The model changed (or was just read), at `date`.
        case modelChanged(InboxScreenState, at: Date)
        /// The terminal was resized.
        case resized(TerminalSize)
        /// The message opened in the reader arrived: its lines, as `show` prints them.
        case messageLoaded(Email.ID, [String])
        /// The message opened in the reader could not be fetched; why.
        case messageFailed(Email.ID, String)
    }

    /// What the driver should do.
    package enum Action: Hashable, Sendable {
        /// Call the model.
        case model(ModelRequest)
        /// Fetch the message for the reader (`BODY.PEEK[]`), answering with `messageLoaded` or
        /// `messageFailed`.
        case loadMessage(Email.ID)
        /// End: restore the terminal and close the account.
        case quit
        /// Ctrl-Z: give the terminal back and stop, as a shell job does; redraw on return.
        case suspend
    }

    /// A call on ``InboxViewModel``.
    package enum ModelRequest: Hashable, Sendable {
        /// `setSearching(_:)`.
        case setSearching(Bool)
        /// `updateQuery(_:)`.
        case updateQuery(String)
        /// `submit()`.
        case submit
        /// `chooseSuggestion(_:)`.
        case chooseSuggestion(String)
        /// `loadMore()`.
        case loadMore
        /// `loadMoreResults()`.
        case loadMoreResults
        /// `show(_:)`: the rows of the inbox in view and around it.
        case show(Range<Int>)
        /// `showResults(_:)`: the rows of the results in view and around it.
        case showResults(Range<Int>)
        /// `toggleRead(_:)`.
        case toggleRead(Email.ID)
        /// `togglePin(_:)`.
        case togglePin(Email.ID)
        /// `refresh()`.
        case refresh
        /// `dismissNotice()`.
        case dismissNotice
    }

    /// What shows over the inbox or search.
    package enum Overlay: Hashable, Sendable {
        /// Nothing: the inbox or search mode.
        case none
        /// The key help (`?`); any key closes it, back to the reader it was opened from, if any.
        case help(returningTo: MessageReader?)
        /// The message reader (Enter).
        case message(MessageReader)
    }

    /// In search mode, where the keys go.
    package enum SearchFocus: Hashable, Sendable {
        /// The search field: typing edits the query; arrows move over the suggestions.
        case field
        /// The results (after a submit): the list keys act on them; `/` goes back to the field.
        case results
    }

    /// Which part of the screen has the keys, derived from the overlay, the model's
    /// `inboxViewState` and the search focus.
    package enum Mode: Hashable, Sendable {
        case inbox
        case searchField
        case searchResults
        case help
        case reader
    }

    /// A list's selection and scroll position.
    package struct ListPosition: Hashable, Sendable {
        /// The selected message; nil when the list is empty, or when the keys moved to a row
        /// whose page is not loaded yet (it is then the message at `index` once it is). A
        /// message selected before its row went away with a new listing (`R`) stays selected
        /// while its page loads, and the selection follows it to where it now is.
        package var selected: Email.ID?
        /// The selected message's index among the list's messages.
        package var index = 0
        /// The first row in view (rows include section titles).
        package var top = 0
    }

    /// The model's state.
    package private(set) var snapshot: InboxScreenState
    /// The terminal's size.
    package private(set) var size: TerminalSize
    /// The help or the reader, if showing.
    package private(set) var overlay: Overlay = .none
    /// Where keys go in search mode.
    package private(set) var searchFocus: SearchFocus = .field
    /// The highlighted suggestion (arrows in the search field), if any.
    package private(set) var highlightedSuggestion: Int?
    /// The search field's cursor and scroll, over the model's query (a new editor, the cursor
    /// at the end, whenever the query changes by anything but an edit here).
    package private(set) var field = LineEditor()
    /// The inbox's selection and scroll; untouched by search mode.
    package private(set) var inbox = ListPosition()
    /// The results' selection and scroll; reset for each search.
    package private(set) var results = ListPosition()
    /// When the inbox last matched the server: a listing arrived or a live change was applied.
    package private(set) var lastUpdated: Date?

    /// A screen of `size` showing `snapshot`.
    package init(snapshot: InboxScreenState = InboxScreenState(), size: TerminalSize) {
        self.snapshot = snapshot
        self.size = size
        field = LineEditor(text: snapshot.query)
        fixPositions()
    }

    /// The layout for the current size.
    package var layout: ScreenLayout { ScreenLayout(size) }

    /// Which part of the screen has the keys.
    package var mode: Mode {
        switch overlay {
        case .help: return .help
        case .message: return .reader
        case .none: break
        }
        switch snapshot.inboxViewState {
        case .emails: return .inbox
        case .search: return searchFocus == .field ? .searchField : .searchResults
        }
    }

    /// The message the actions (`u`, `p`, Enter) apply to: the one open in the reader, else the
    /// selected one of the list in view.
    package var actionTarget: Email? {
        switch overlay {
        case .message(let reader): return snapshot.email(reader.id)
        case .help: return nil
        case .none: break
        }
        switch snapshot.inboxViewState {
        case .emails:
            guard snapshot.emailsListState == .data || snapshot.emailsListState == .loading else { return nil }
            return Self.selectedEmail(inbox, in: snapshot.inboxWindow)
        case .search:
            guard searchFocus == .results, snapshot.searchState == .results else { return nil }
            return Self.selectedEmail(results, in: snapshot.resultsWindow)
        }
    }

    /// The message `position` selects: at its index (every frame asks, so no search of the held
    /// rows unless it moved).
    private static func selectedEmail(_ position: ListPosition, in window: MailListWindow) -> Email? {
        guard let id = position.selected else { return nil }
        if let email = window[position.index], email.id == id { return email }
        return window.email(id)
    }

    /// Whether the search field shows suggestions (or recent searches) instead of the state: it
    /// has the keys and there is something to suggest.
    package var showsSuggestions: Bool { mode == .searchField && !snapshot.suggestions.isEmpty }

    /// Whether type-ahead's local matches show: in the search field, those of the text typed
    /// unless the server's results of that same query show; after Enter, those of the query
    /// submitted while the server searches.
    package var showsTypeAhead: Bool {
        guard let typed = snapshot.typeAheadQuery else { return false }
        switch (mode, snapshot.searchState) {
        case (.searchField, .results), (.searchField, .error): return typed != snapshot.searchedQuery
        case (.searchField, .searching), (.searchField, .empty): return true
        case (.searchResults, .searching): return typed == snapshot.searchedQuery
        default: return false
        }
    }

    // MARK: - Events

    /// Applies `event`; returns what the driver must do, in order.
    package mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .key(let key):
            if key == .control("c") { return [.quit] }
            if key == .control("z") { return [.suspend] }
            switch mode {
            case .inbox: return inboxKey(key)
            case .searchField: return fieldKey(key)
            case .searchResults: return resultsKey(key)
            case .help:
                // Pasted text is not a key press: the help stays.
                if case .paste = key { return [] }
                if case .help(let reader?) = overlay {
                    overlay = .message(reader)
                } else {
                    overlay = .none
                }
                return []
            case .reader: return readerKey(key)
            }
        case .modelChanged(let new, let date):
            let old = snapshot
            snapshot = new
            if old.inboxViewState == .search && new.inboxViewState == .emails {
                results = ListPosition()
                searchFocus = .field
                highlightedSuggestion = nil
            }
            if old.searchedQuery != new.searchedQuery
                || (old.searchState != new.searchState && new.searchState != .results)
            {
                results = ListPosition()
            }
            switch new.emailsListState {
            case .data, .empty:
                if old.emailsListState != new.emailsListState || old.inboxWindow.revision != new.inboxWindow.revision {
                    lastUpdated = date
                }
            case .loading, .error: break
            }
            if let highlighted = highlightedSuggestion, highlighted >= new.suggestions.count {
                highlightedSuggestion = new.suggestions.isEmpty ? nil : new.suggestions.count - 1
            }
            if field.text != new.query { field = LineEditor(text: new.query) }
            fixPositions()
            return showIfNeeded()
        case .resized(let new):
            size = new
            fixPositions()
            return showIfNeeded()
        case .messageLoaded(let id, let lines):
            guard case .message(var reader) = overlay, reader.id == id, reader.content == .loading else { return [] }
            reader.content = .loaded(lines)
            overlay = .message(reader)
            return []
        case .messageFailed(let id, let reason):
            guard case .message(var reader) = overlay, reader.id == id, reader.content == .loading else { return [] }
            reader.content = .failed(reason)
            overlay = .message(reader)
            return []
        }
    }

    // MARK: - Keys

    private mutating func inboxKey(_ key: Key) -> [Action] {
        switch key {
        case .character("q"): return [.quit]
        case .character("/"):
            searchFocus = .field
            highlightedSuggestion = nil
            field = LineEditor(text: snapshot.query)
            return [.model(.setSearching(true))]
        case .paste(let pasted):
            // Text pasted in the inbox is taken as a search to edit (never as keys, never sent
            // by itself): the field opens with it, as if typed after `/`.
            let text = LineEditor.fieldText(pasted)
            guard !text.allSatisfy(\.isWhitespace) else { return [] }
            searchFocus = .field
            highlightedSuggestion = nil
            field = LineEditor(text: text)
            fixPositions()
            return [.model(.setSearching(true)), .model(.updateQuery(text))]
        case .character("?"):
            overlay = .help(returningTo: nil)
            return []
        case .character("R"): return [.model(.refresh)]
        case .character("r"):
            guard case .error = snapshot.emailsListState else { return [] }
            return [.model(.refresh)]
        case .escape:
            return snapshot.notice == nil ? [] : [.model(.dismissNotice)]
        default:
            return listKey(key, in: .inbox)
        }
    }

    private mutating func resultsKey(_ key: Key) -> [Action] {
        switch key {
        case .character("q"): return [.quit]
        case .escape: return [.model(.setSearching(false))]
        case .character("/"):
            searchFocus = .field
            highlightedSuggestion = nil
            field = LineEditor(text: snapshot.query)
            fixPositions()
            return []
        case .character("?"):
            overlay = .help(returningTo: nil)
            return []
        case .character("R"):
            return snapshot.searchedQuery == nil ? [] : [.model(.submit)]
        default:
            return listKey(key, in: .results)
        }
    }

    private enum ListKind { case inbox, results }

    /// The keys shared by the inbox and the results: moving, opening, Read/Unread, Pin/Unpin.
    private mutating func listKey(_ key: Key, in list: ListKind) -> [Action] {
        let window = list == .inbox ? snapshot.inboxWindow : snapshot.resultsWindow
        let count = window.count
        var position = list == .inbox ? inbox : results
        let page = layout.page
        switch key {
        case .character("j"), .down, .control("n"):
            position.index += 1
        case .character("k"), .up, .control("p"):
            position.index -= 1
        case .pageDown, .control("f"), .character(" "):
            position.index += page
            position.top += page
        case .pageUp, .control("b"):
            position.index -= page
            position.top -= page
        case .character("g"), .home:
            position.index = 0
            position.top = 0
        case .character("G"), .end:
            position.index = count - 1
        case .enter:
            guard let email = actionTarget else { return [] }
            overlay = .message(MessageReader(id: email.id))
            return [.loadMessage(email.id)]
        case .character("u"):
            return actionTarget.map { [.model(.toggleRead($0.id))] } ?? []
        case .character("p"):
            return actionTarget.map { [.model(.togglePin($0.id))] } ?? []
        default:
            return []
        }
        guard count > 0 else { return [] }
        position.index = min(max(position.index, 0), count - 1)
        position.selected = window[position.index]?.id
        switch list {
        case .inbox: inbox = position
        case .results: results = position
        }
        fixPositions()
        return showIfNeeded()
    }

    private mutating func fieldKey(_ key: Key) -> [Action] {
        let query = snapshot.query
        let suggestions = snapshot.suggestions
        switch key {
        case .escape:
            return [.model(.setSearching(false))]
        case .enter:
            if let highlighted = highlightedSuggestion, highlighted < suggestions.count {
                highlightedSuggestion = nil
                searchFocus = .results
                setField(LineEditor(text: suggestions[highlighted].text))
                return [.model(.chooseSuggestion(suggestions[highlighted].text))]
            }
            guard !query.allSatisfy(\.isWhitespace) else { return [] }
            searchFocus = .results
            return [.model(.submit)]
        case .tab:
            let chosen = highlightedSuggestion ?? 0
            guard chosen < suggestions.count else { return [] }
            highlightedSuggestion = nil
            setField(LineEditor(text: suggestions[chosen].text))
            return [.model(.updateQuery(suggestions[chosen].text))]
        case .down, .control("n"):
            if showsSuggestions {
                highlightedSuggestion = min((highlightedSuggestion ?? -1) + 1, suggestions.count - 1)
            } else if snapshot.searchState == .results {
                searchFocus = .results
            }
            return []
        case .up, .control("p"):
            if let highlighted = highlightedSuggestion {
                highlightedSuggestion = highlighted == 0 ? nil : highlighted - 1
            }
            return []
        case .paste(let pasted):
            var editor = field
            editor.insert(LineEditor.fieldText(pasted))
            return edited(editor)
        default:
            var editor = field
            switch editor.handle(key) {
            case .ignored: return []
            case .moved:
                setField(editor)
                return []
            case .edited: return edited(editor)
            }
        }
    }

    /// The field after an edit: the model gets the new query (suggestions follow).
    private mutating func edited(_ editor: LineEditor) -> [Action] {
        guard editor.text != field.text else { return [] }
        highlightedSuggestion = nil
        setField(editor)
        return [.model(.updateQuery(editor.text))]
    }

    private mutating func setField(_ editor: LineEditor) {
        field = editor
        field.keepCursorVisible(columns: layout.searchFieldColumns)
    }

    private mutating func readerKey(_ key: Key) -> [Action] {
        guard case .message(var reader) = overlay else { return [] }
        let lineCount = reader.wrappedLines(width: size.width).count
        let page = layout.page
        switch key {
        case .character("q"), .escape, .left, .character("h"), .backspace:
            overlay = .none
            return []
        case .character("j"), .down, .enter:
            reader.top += 1
        case .character("k"), .up:
            reader.top -= 1
        case .pageDown, .character(" "), .control("f"):
            reader.top += page
        case .pageUp, .control("b"), .character("b"):
            reader.top -= page
        case .character("g"), .home:
            reader.top = 0
        case .character("G"), .end:
            reader.top = lineCount
        case .character("u"):
            return [.model(.toggleRead(reader.id))]
        case .character("p"):
            return [.model(.togglePin(reader.id))]
        case .character("?"):
            overlay = .help(returningTo: reader)
            return []
        default:
            return []
        }
        reader.top = max(0, min(reader.top, lineCount - layout.bodyRows))
        overlay = .message(reader)
        return []
    }

    // MARK: - Keeping positions right

    /// Re-finds each list's selected message (it may have moved or gone), and scrolls so it is
    /// in view and the list does not end above the bottom of the body.
    private mutating func fixPositions() {
        field.keepCursorVisible(columns: layout.searchFieldColumns)
        inbox = Self.fixed(inbox, window: snapshot.inboxWindow, rows: ListRows.inbox(snapshot), layout: layout)
        results = Self.fixed(
            results, window: snapshot.resultsWindow, rows: ListRows.results(snapshot), layout: layout)
        if case .message(var reader) = overlay {
            let lineCount = reader.wrappedLines(width: size.width).count
            reader.top = max(0, min(reader.top, lineCount - layout.bodyRows))
            overlay = .message(reader)
        }
    }

    private static func fixed(
        _ position: ListPosition, window: MailListWindow, rows: ListRows, layout: ScreenLayout
    ) -> ListPosition {
        var position = position
        guard !window.isEmpty else { return ListPosition() }
        // The selected message is usually where it was (a key moved it there): looked for (in
        // the held rows) only when it is not.
        let inPlace = position.selected != nil && window[position.index]?.id == position.selected
        if !inPlace, let selected = position.selected, let index = window.position(of: selected) {
            // Rows came or went above it (a message pinned or unpinned, a refresh): scrolled into
            // the list, the view moves with it, so the message stays on its row of the screen
            // (and comes back to the same view when they go again); at the top, what is new
            // shows above it.
            if position.top > 0 {
                position.top += rows.row(ofMessage: index) - rows.row(ofMessage: position.index)
            }
            position.index = index
        } else {
            position.index = min(max(position.index, 0), window.count - 1)
        }
        // A selected message whose row is not loaded yet (a refresh's new listing) stays
        // selected at its old index until its page comes; a message that is gone gives way to
        // the one now at its index.
        position.selected = window[position.index]?.id ?? (inPlace ? nil : position.selected)
        let visible = max(1, layout.bodyRows)
        let row = rows.row(ofMessage: position.index)
        // The section title above the first message of a section comes into view with it.
        let sectionTitleAbove: Bool = {
            guard row > 0, case .section = rows[row - 1] else { return false }
            return true
        }()
        let highest = sectionTitleAbove ? row - 1 : row
        position.top = min(position.top, max(0, rows.count - visible))
        if highest < position.top { position.top = highest }
        if row >= position.top + visible { position.top = row - visible + 1 }
        position.top = max(0, position.top)
        return position
    }

    /// Tells the model which rows of the list in view to hold: the screenful in view and two
    /// more either side (Page Down held down then finds rows loaded ahead of it), when that is
    /// not what it was last told. The model loads their pages and drops the others, so what is
    /// held stays about five screenfuls wherever the list is scrolled.
    private func showIfNeeded() -> [Action] {
        guard overlay == .none else { return [] }
        let body = max(layout.bodyRows, 1)
        switch snapshot.inboxViewState {
        case .emails:
            guard snapshot.emailsListState == .data else { return [] }
            let first = ListRows.inbox(snapshot).message(ofRow: inbox.top)
            let wanted = (first - 2 * body)..<(first + 3 * body)
            return wanted == snapshot.inboxShown ? [] : [.model(.show(wanted))]
        case .search:
            guard snapshot.searchState == .results else { return [] }
            let first = ListRows.results(snapshot).message(ofRow: results.top)
            let wanted = (first - 2 * body)..<(first + 3 * body)
            return wanted == snapshot.resultsShown ? [] : [.model(.showResults(wanted))]
        }
    }
}
