/// Results while the query is typed: on every change of the search field, the service is asked
/// for the newest matches it can give without the server (the local index; nothing when it has
/// none, or the query needs the server). Submitting still asks the server, whose page replaces
/// these (docs/inbox-view-model.md "Type-ahead"). A pure state machine: answers carry the
/// generation of the text they answer, and an answer to text typed over changes nothing.
package struct TypeAhead: Hashable, Sendable {
    /// Where type-ahead is.
    package enum State: Hashable, Sendable {
        /// Nothing shows: nothing typed, or the service had no local answer.
        case off
        /// `query` (normalized) was asked for; the results of the text before still show.
        case asking(String)
        /// ``TypeAhead/results`` answer `query`.
        case shown(String)
    }

    /// What happens.
    package enum Event: Hashable, Sendable {
        /// The field's text is now `text` (not normalized yet).
        case typed(String)
        /// The service answered generation `generation`: the newest matches, or nil when it
        /// cannot answer without the server.
        case answered(generation: Int, [Email]?)
        /// Search mode ended: nothing shows, the question in flight is dropped.
        case clear
    }

    /// What the driver must do.
    package enum Action: Hashable, Sendable {
        /// Ask the service for the newest `limit` local matches of `query`.
        case ask(generation: Int, Query, limit: Int)
        /// Drop the question in flight.
        case cancel
    }

    package private(set) var state: State = .off
    /// Counts questions; an answer must carry the current one.
    package private(set) var generation = 0
    /// The newest local matches of the query ``state`` names (the text before, while asking).
    package private(set) var results: [Email] = []
    /// How many matches are asked for.
    package let limit: Int

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The text the shown ``results`` answer; nil when none show.
    package private(set) var answeredQuery: String?

    /// Applies `event`; returns what the driver must do.
    package mutating func event(_ event: Event) -> [Action] {
        switch event {
        case .typed(let text):
            let query = SearchHistory.normalized(text)
            switch state {
            case .asking(query), .shown(query): return []
            case .off, .asking, .shown: break
            }
            if query.isEmpty { return clear() }
            if query == answeredQuery {
                // Back to the text the results show (a key typed and erased): nothing to ask.
                let actions: [Action] = isAsking ? [.cancel] : []
                generation += 1
                state = .shown(query)
                return actions
            }
            // Text that does not parse yet (an open quote, a field with no value) asks nothing:
            // the results of the text before stay until the text parses again.
            guard let parsed = try? QueryParser.parse(query) else { return [] }
            let wasAsking = isAsking
            generation += 1
            state = .asking(query)
            return (wasAsking ? [.cancel] : []) + [.ask(generation: generation, parsed.query, limit: limit)]
        case .answered(let generation, let emails):
            guard generation == self.generation, case .asking(let query) = state else { return [] }
            guard let emails else {
                state = .off
                results = []
                answeredQuery = nil
                return []
            }
            state = .shown(query)
            results = Array(emails.prefix(limit))
            answeredQuery = query
            return []
        case .clear:
            return clear()
        }
    }

    private var isAsking: Bool {
        if case .asking = state { return true }
        return false
    }

    private mutating func clear() -> [Action] {
        let actions: [Action] = isAsking ? [.cancel] : []
        generation += 1
        state = .off
        results = []
        answeredQuery = nil
        return actions
    }
}
