import FoundationEssentials

extension InboxViewModel {
    /// A state of the screen a preview shows (the first design document's `TestInboxViewModel`).
    public enum PreviewScenario: String, Hashable, Sendable, CaseIterable {
        /// The inbox with the sample mail, two of it pinned.
        case data
        /// The inbox while the mailbox is listed (the listing never answers).
        case loading
        /// An empty mailbox.
        case empty
        /// The listing failed.
        case error
        /// Search mode before a submit, `from:` typed: recent searches and people to complete it.
        case searchSuggestions
        /// A search in flight (it never answers).
        case searching
        /// The results of `from:albus`.
        case searchResults
        /// A search that matched nothing.
        case searchEmpty
        /// A search that failed on the server.
        case searchError
        /// A query that does not parse: the error names the column.
        case queryError
    }

    /// The recent searches previews start with.
    public static let previewRecentSearches = ["from:albus", "has:attachment", "is:unread is:pinned"]

    /// A live model over `service` (by default the sample mailbox in memory) that reaches
    /// `scenario` through the real driver: the service is told to fail or to hold, and the
    /// model is started, switched to search mode and submitted as the scenario needs. It keeps
    /// working afterwards (Read/Pin, search again). The search history is kept in memory.
    ///
    /// ```swift
    /// #Preview { InboxView(model: .preview(.searchResults)) }
    /// ```
    public static func preview(
        _ scenario: PreviewScenario,
        service: InMemoryMailService = InMemoryMailService(emails: InMemoryMailService.sampleEmails())
    ) -> InboxViewModel {
        let model = InboxViewModel(service: service, history: .memory(previewRecentSearches))
        let unreachable = MailServiceError(
            .connection, "the server imap.example.com cannot be reached; check the network")
        switch scenario {
        case .data, .searchSuggestions, .searchResults, .searchEmpty, .queryError: break
        case .loading: service.hold(.list)
        case .empty: service.expunge(service.emails().map(\.id))
        case .error: service.setFailure(unreachable, for: .list)
        case .searching: service.hold(.search)
        case .searchError: service.setFailure(unreachable, for: .search)
        }
        model.start()
        let query: String?
        switch scenario {
        case .data, .loading, .empty, .error: query = nil
        case .searchSuggestions: query = "from:"
        case .searching, .searchResults, .searchError: query = "from:albus"
        case .searchEmpty: query = "from:voldemort"
        case .queryError: query = "from:\"albus"
        }
        guard let query else { return model }
        model.setSearching(true)
        model.updateQuery(query)
        if scenario != .searchSuggestions { model.submit() }
        return model
    }
}
