import IMAPCore

extension MessageIndex {
    /// The newest `limit` messages of `mailbox` matching `query` (compiled for `context`, the
    /// server's), newest first, with their rows: what the server's search would show first.
    /// Nil when the index cannot give that answer: no finished sync of `mailbox` under
    /// `uidValidity`, a query of another mailbox or with a warning, one only the server can
    /// decide, or a store error. Type-ahead's answer (``IMAPMailService/localMatches(_:limit:)``).
    public func newestEmails(
        _ query: Query, context: SearchContext, in mailbox: String, uidValidity: UInt32, limit: Int, now: Int
    ) async -> [Email]? {
        guard let compiled = try? QueryCompiler.compile(query, context: context), case .current = compiled.scope,
            compiled.warnings.isEmpty,
            let indexed = try? await self.mailbox(mailbox), indexed.uidValidity == uidValidity,
            indexed.resumeBelow == nil,
            case .uids(let uids) = try? await newest(
                limit, matching: compiled.programKeys, in: mailbox, now: now, serverMatchesWords: context.isGmail)
        else { return nil }
        return try? await emails(uids, in: mailbox, pinFlag: context.pinFlag.flag)
    }
}
