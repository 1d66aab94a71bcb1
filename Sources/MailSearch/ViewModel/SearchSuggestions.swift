/// The search field's text and its suggestions: recent searches (the history, read once), the
/// query language's operators, and the people of the messages seen (docs/inbox-view-model.md
/// "Suggestions"). A pure state machine; nothing it does reaches the server.
package struct SearchSuggestions: Hashable, Sendable {
    /// The search history.
    package enum State: Hashable, Sendable {
        /// Not read yet.
        case historyNotRead
        /// Being read.
        case historyLoading
        /// Read (or written): its entries, newest first.
        case historyLoaded([String])
    }

    /// What happens.
    package enum Event: Hashable, Sendable {
        /// The screen starts: the history is read the first time.
        case start
        /// The history was read or written: its entries, newest first.
        case historyLoaded([String])
        /// The field's text changed.
        case typed(String)
        /// Search mode shows: the suggestions follow the text.
        case follow
        /// Search mode ends: the field empties, no suggestions.
        case clear
        /// Messages were seen: their people are suggested from now on (at once when `following`).
        case seen([Email], following: Bool)
    }

    /// What the driver should do.
    package enum Action: Hashable, Sendable {
        /// Read the search history; answer with `historyLoaded`.
        case loadHistory
    }

    package private(set) var state: State = .historyNotRead
    /// The text of the search field.
    package private(set) var query = ""
    /// Suggestions for `query`.
    package private(set) var suggestions: [Suggestion] = []
    private var people = PeopleIndex()
    /// The messages whose people are counted, as runs of UIDs per mailbox: a mailbox scrolled
    /// page by page is a few runs, not a set of every message scrolled past.
    private var peopleCounted: [MailboxKey: UIDRuns] = [:]

    package init() {}

    /// Recent searches, newest first.
    package var recentSearches: [String] {
        switch state {
        case .historyNotRead, .historyLoading: return []
        case .historyLoaded(let entries): return entries
        }
    }

    /// Applies `event`; returns what the driver must do.
    package mutating func event(_ event: Event) -> [Action] {
        switch event {
        case .start:
            switch state {
            case .historyNotRead:
                state = .historyLoading
                return [.loadHistory]
            case .historyLoading, .historyLoaded: return []
            }
        case .historyLoaded(let entries):
            state = .historyLoaded(entries)
            suggest()
        case .typed(let text):
            query = text
            suggest()
        case .follow:
            suggest()
        case .clear:
            query = ""
            suggestions = []
        case .seen(let emails, let following):
            var counted = false
            for email in emails
            where peopleCounted[MailboxKey(email.id), default: UIDRuns()].insert(email.id.uid) {
                for person in [email.from] + email.to + email.cc where !person.address.isEmpty {
                    people.add(address: person.address, name: person.name)
                    counted = true
                }
            }
            if counted && following { suggest() }
        }
        return []
    }

    private mutating func suggest() {
        suggestions = Suggestions.suggest(for: query, history: recentSearches, people: people)
    }
}

/// A mailbox by name and UIDVALIDITY.
private struct MailboxKey: Hashable, Sendable {
    var name: String
    var uidValidity: UInt32

    init(_ id: Email.ID) {
        name = id.mailbox
        uidValidity = id.uidValidity
    }
}

/// A set of UIDs as sorted runs that neither overlap nor touch.
private struct UIDRuns: Hashable, Sendable {
    private var runs: [ClosedRange<UInt32>] = []

    /// Adds `uid`; false when it was in already.
    mutating func insert(_ uid: UInt32) -> Bool {
        // The first run that does not end before `uid`.
        var (low, high) = (0, runs.count)
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].upperBound < uid { low = middle + 1 } else { high = middle }
        }
        if low < runs.count && runs[low].contains(uid) { return false }
        let joinsBefore = low > 0 && runs[low - 1].upperBound + 1 == uid
        let joinsAfter = low < runs.count && uid + 1 == runs[low].lowerBound
        switch (joinsBefore, joinsAfter) {
        case (true, true):
            runs[low - 1] = runs[low - 1].lowerBound...runs[low].upperBound
            runs.remove(at: low)
        case (true, false): runs[low - 1] = runs[low - 1].lowerBound...uid
        case (false, true): runs[low] = uid...runs[low].upperBound
        case (false, false): runs.insert(uid...uid, at: low)
        }
        return true
    }
}
