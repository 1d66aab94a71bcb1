import SearchSemantics

/// What the index learned of the server where servers differ (``IndexSync`` asks, once a
/// mailbox), and what searches then judge by (``LocalSearch``).
extension MessageIndex {
    /// What a server was seen to take for the sent date of an undated message.
    public enum UndatedRule: String, Sendable, Equatable {
        /// Its received date (the mock server).
        case receivedDate = "received"
        /// 1-Jan-1970 (Dovecot 2.3).
        case epoch
        /// Neither: a search by sent date that an undated message could match goes to the server.
        case neither

        /// The matcher's rule, when the index can judge by one.
        var matcherRule: UndatedSentDate? {
            switch self {
            case .receivedDate: return .receivedDate
            case .epoch: return .epoch
            case .neither: return nil
            }
        }
    }

    /// Records what the server's BODY was seen to do with attached messages' headers (nil: not
    /// known, so the next sync asks again).
    public func setAttachedHeadersInBody(_ value: Bool?, in name: String) async throws(StoreError) {
        try await withConnection { (connection) throws(StoreError) in
            let update = try connection.prepare("UPDATE mailbox SET attached_headers_in_body = ?2 WHERE name = ?1")
            try update.bind(1, name)
            try update.bind(2, value.map { Int64($0 ? 1 : 0) })
            try update.run()
        }
    }

    /// Records what the server's SENTBEFORE, SENTON and SENTSINCE were seen to take for the
    /// sent date of an undated message (nil: not known, so the next sync asks again).
    public func setUndatedSentDate(_ rule: UndatedRule?, in name: String) async throws(StoreError) {
        try await withConnection { (connection) throws(StoreError) in
            let update = try connection.prepare("UPDATE mailbox SET undated_sent_date = ?2 WHERE name = ?1")
            try update.bind(1, name)
            try update.bind(2, rule?.rawValue)
            try update.run()
        }
    }
}
