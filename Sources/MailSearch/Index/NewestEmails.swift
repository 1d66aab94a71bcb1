import IMAPCore

extension MessageIndex {
    /// The newest `limit` messages of `mailbox` matching `query` (compiled for `context`, the
    /// server's), newest first, with their rows: what the server's search would show first.
    /// Nil when the index cannot give that answer: no finished sync of `mailbox` under
    /// `uidValidity`, a query of another mailbox or with a warning, one only the server can
    /// decide, a store error, or, with a `budget`, a search that took longer (given up, so a key
    /// typed never waits long for the one before). Type-ahead's answer
    /// (``IMAPMailService/localMatches(_:limit:)``), with ``typeAheadBudget``.
    public func newestEmails(
        _ query: Query, context: SearchContext, in mailbox: String, uidValidity: UInt32, limit: Int, now: Int,
        budget: Duration? = nil
    ) async -> [Email]? {
        let deadline = budget.map { ContinuousClock.now + $0 }
        guard let compiled = try? QueryCompiler.compile(query, context: context), case .current = compiled.scope,
            compiled.warnings.isEmpty,
            let indexed = try? await self.mailbox(mailbox), indexed.uidValidity == uidValidity,
            indexed.resumeBelow == nil,
            case .uids(let uids) = try? await newest(
                limit, matching: compiled.programKeys, in: mailbox, now: now, serverMatchesWords: context.isGmail,
                deadline: deadline)
        else { return nil }
        return try? await emails(uids, in: mailbox, pinFlag: context.pinFlag.flag)
    }

    /// How long type-ahead lets the index search for one key before giving that key up (the
    /// goal: a key redrawn within 16 ms).
    public static let typeAheadBudget: Duration = .milliseconds(10)
}
