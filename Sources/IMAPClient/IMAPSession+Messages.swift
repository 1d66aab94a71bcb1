public import IMAPCore

/// Where APPEND put a message (RFC 4315 APPENDUID): its mailbox's UIDVALIDITY and its UID.
///
/// ```
/// C: A7 APPEND Drafts (\Draft) {310}
/// S: A7 OK [APPENDUID 38505 3955] APPEND completed
/// ```
public struct AppendedMessage: Hashable, Sendable {
    /// The UIDVALIDITY of the mailbox the message went to.
    public var uidValidity: UInt32
    /// The message's UID there.
    public var uid: UInt32

    /// An appended message.
    public init(uidValidity: UInt32, uid: UInt32) {
        self.uidValidity = uidValidity
        self.uid = uid
    }
}

/// Where COPY or MOVE put the messages (RFC 4315 COPYUID), as the server reported it.
///
/// ```
/// C: A8 UID COPY 42:43 Archive
/// S: A8 OK [COPYUID 432432 42:43 11:12] COPY completed
/// ```
/// gives `destinationUIDValidity` 432432 and `destinationUIDs` `[42: 11, 43: 12]`.
public struct CopiedMessages: Hashable, Sendable {
    /// The UIDVALIDITY of the destination mailbox, nil when the server reported no COPYUID
    /// (it lacks UIDPLUS, or copied nothing).
    public var destinationUIDValidity: UInt32?
    /// Each copied message's UID in the destination, by its UID in the source; empty when the
    /// server did not report them.
    public var destinationUIDs: [UInt32: UInt32]

    /// A copy's outcome.
    public init(destinationUIDValidity: UInt32?, destinationUIDs: [UInt32: UInt32]) {
        self.destinationUIDValidity = destinationUIDValidity
        self.destinationUIDs = destinationUIDs
    }
}

/// What an EXPUNGE removed.
///
/// ```
/// C: A9 UID EXPUNGE 3000:3002
/// S: * 3 EXPUNGE
/// S: * VANISHED 3001:3002          (with QRESYNC enabled)
/// S: A9 OK UID EXPUNGE completed
/// ```
public struct ExpungedMessages: Hashable, Sendable {
    /// The UIDs removed, ascending: from VANISHED (QRESYNC), or each `* n EXPUNGE` mapped
    /// through the session's sequence-to-UID map.
    public var uids: [UInt32]
    /// How many messages were removed whose UID the session could not tell (another client
    /// changed the mailbox while its UIDs were read); 0 almost always.
    public var unidentifiedCount: Int

    /// An expunge's outcome.
    public init(uids: [UInt32], unidentifiedCount: Int = 0) {
        self.uids = uids
        self.unidentifiedCount = unidentifiedCount
    }
}

extension IMAPSession {
    // MARK: - APPEND

    /// APPEND (RFC 3501 6.3.11): adds `message` (the raw RFC 5322 bytes) to `mailbox`, with
    /// `flags` and an INTERNALDATE (the server's clock when nil). Returns where it went when the
    /// server reports it (UIDPLUS), else nil.
    ///
    /// The message goes as a literal: non-synchronizing with LITERAL+ (or LITERAL- up to 4 KB),
    /// else after the server's `+`. A message holding NUL bytes goes as a binary literal `~{n}`
    /// where the server has BINARY (RFC 3516). A UTF-8 name is written `MailboxName(displayName:)`.
    ///
    /// ```swift
    /// let appended = try await session.append(raw, to: "Sent", flags: [.seen])
    /// appended?.uid   // 3955
    /// ```
    @discardableResult
    public func append(
        _ message: [UInt8], to mailbox: MailboxName, flags: [Flag] = [], internalDate: IMAPDateTime? = nil
    ) async throws(IMAPError) -> AppendedMessage? {
        let binary = capabilities.contains(.binary) && message.contains(0)
        let outcome = try await run(
            .append(
                mailbox,
                AppendMessage(flags: flags, internalDate: internalDate, data: ByteString(message), binary: binary)))
        guard case .appendUID(let uidValidity, let uids)? = outcome.tagged.text.code, let uid = uids.numbers?.first
        else { return nil }
        return AppendedMessage(uidValidity: uidValidity, uid: uid)
    }

    // MARK: - COPY, MOVE

    /// UID COPY (RFC 3501 6.4.7) of `uids` of the selected mailbox to `mailbox`; returns the new
    /// UIDs when the server reports them (UIDPLUS). A set too long for one command line
    /// (``IMAPConfiguration/maximumCommandLength``) is copied in several commands, which
    /// together are not atomic. With `expected`, fails with `.mailboxChanged` rather than copy
    /// from another mailbox another task selected.
    @discardableResult
    public func copy(
        _ uids: SequenceSet, to mailbox: MailboxName, in expected: MailboxExpectation? = nil
    ) async throws(IMAPError) -> CopiedMessages {
        var copied = CopiedMessages(destinationUIDValidity: nil, destinationUIDs: [:])
        for command in Command.uidCopy(uids, mailbox).split(maximumLineLength: configuration.maximumCommandLength) {
            let outcome = try await run(command, expecting: expected)
            copied.add(outcome.tagged.text.code)
        }
        return copied
    }

    /// Moves `uids` of the selected mailbox to `mailbox`: UID MOVE (RFC 6851) where the server
    /// has it, else UID COPY, UID STORE +FLAGS.SILENT (\Deleted) and UID EXPUNGE (RFC 6851 3.3,
    /// with UIDPLUS). Returns the new UIDs when the server reports them (UIDPLUS).
    ///
    /// A server with neither MOVE nor UIDPLUS can only remove the originals with a plain EXPUNGE,
    /// which removes every message marked \Deleted: that is done only when no other message of
    /// the mailbox is so marked (checked before copying, and again before the EXPUNGE); otherwise
    /// the move fails with `.unsupported` rather than remove messages the caller did not name.
    /// Like COPY, a long set goes in several commands, together not atomic.
    ///
    /// ```swift
    /// let moved = try await session.move(SequenceSet(numbers: [42, 43]), to: "Archive")
    /// moved.destinationUIDs   // [42: 11, 43: 12]
    /// ```
    @discardableResult
    public func move(
        _ uids: SequenceSet, to mailbox: MailboxName, in expected: MailboxExpectation? = nil
    ) async throws(IMAPError) -> CopiedMessages {
        if capabilities.contains(.move) {
            var moved = CopiedMessages(destinationUIDValidity: nil, destinationUIDs: [:])
            let commands = Command.uidMove(uids, mailbox).split(maximumLineLength: configuration.maximumCommandLength)
            for command in commands {
                // RFC 6851 4.3: COPYUID comes in an untagged OK before the EXPUNGEs.
                let outcome = try await run(
                    command, claim: .custom { $0.copyUID != nil }, expecting: expected)
                for response in outcome.untagged { moved.add(response.copyUID) }
                moved.add(outcome.tagged.text.code)
            }
            return moved
        }
        let hasUIDPlus = capabilities.contains(.uidPlus)
        if !hasUIDPlus { try await refuseIfOthersAreDeleted(than: uids, to: mailbox, expected) }
        let copied = try await copy(uids, to: mailbox, in: expected)
        try await store(uids, .add, [.deleted], silent: true, in: expected)
        if hasUIDPlus {
            _ = try await expungeRemoving(uids, expected)
            return copied
        }
        do throws(IMAPError) {
            try await refuseIfOthersAreDeleted(than: uids, to: mailbox, expected)
        } catch {
            // The copies are made; the originals stay, as they were.
            try await store(uids, .remove, [.deleted], silent: true, in: expected)
            throw error
        }
        _ = try await expungeAll(expected)
        return copied
    }

    // MARK: - EXPUNGE

    /// EXPUNGE (RFC 3501 6.4.3): removes every message of the selected mailbox marked \Deleted;
    /// returns their UIDs. Without QRESYNC the server names them by sequence number, so the
    /// session first reads the mailbox's UIDs (`UID SEARCH ALL`) if its sequence-to-UID map is
    /// not complete.
    @discardableResult
    public func expunge(in expected: MailboxExpectation? = nil) async throws(IMAPError) -> ExpungedMessages {
        try await expungeAll(expected)
    }

    /// UID EXPUNGE (RFC 4315 2.1): removes those of `uids` marked \Deleted, and no other message;
    /// returns the UIDs removed. Needs UIDPLUS (`.unsupported` without it). A long set goes in
    /// several commands.
    ///
    /// ```swift
    /// try await session.store(SequenceSet(3000), .add, [.deleted], silent: true)
    /// let expunged = try await session.expunge(uids: SequenceSet(3000))   // uids == [3000]
    /// ```
    @discardableResult
    public func expunge(
        uids: SequenceSet, in expected: MailboxExpectation? = nil
    ) async throws(IMAPError) -> ExpungedMessages {
        guard capabilities.contains(.uidPlus) else {
            throw IMAPError(
                .unsupported,
                "the server does not offer UIDPLUS, so it cannot expunge chosen messages (UID EXPUNGE); use expunge() to remove every message marked \\Deleted"
            )
        }
        return try await expungeRemoving(uids, expected)
    }

    private func expungeAll(_ expected: MailboxExpectation?) async throws(IMAPError) -> ExpungedMessages {
        try await completeSequenceMap()
        let outcome = try await run(.expunge, expecting: expected)
        return ExpungedMessages(outcome)
    }

    private func expungeRemoving(
        _ uids: SequenceSet, _ expected: MailboxExpectation?
    ) async throws(IMAPError) -> ExpungedMessages {
        try await completeSequenceMap()
        var expunged = ExpungedMessages(uids: [])
        for command in Command.uidExpunge(uids).split(maximumLineLength: configuration.maximumCommandLength) {
            let part = ExpungedMessages(try await run(command, expecting: expected))
            expunged.uids += part.uids
            expunged.unidentifiedCount += part.unidentifiedCount
        }
        expunged.uids.sort()
        return expunged
    }

    /// Fails with `.unsupported` when a message outside `uids` is marked \Deleted: a plain
    /// EXPUNGE would remove it too.
    private func refuseIfOthersAreDeleted(
        than uids: SequenceSet, to mailbox: MailboxName, _ expected: MailboxExpectation?
    ) async throws(IMAPError) {
        // NOT UID set is not used: a long set would be split, and NOT of each part is not NOT
        // of the whole.
        let deleted = try await search([.deleted], in: expected, ordered: false).uids
        let others = deleted.filter { !uids.contains($0) }.sorted()
        guard !others.isEmpty else { return }
        let mailboxName = selectedMailbox.map { "\($0.name)" } ?? "the mailbox"
        throw IMAPError(
            .unsupported,
            "cannot move to \(mailbox): the server has neither MOVE nor UIDPLUS, so the originals could only be removed with an EXPUNGE, which would also remove \(others.count) other message(s) of \(mailboxName) marked \\Deleted (UID \(SequenceSet(numbers: others))); expunge or undelete them first, or copy instead"
        )
    }
}

extension CopiedMessages {
    /// Adds the mapping a COPYUID code reports; other codes change nothing.
    fileprivate mutating func add(_ code: ResponseCode?) {
        guard case .copyUID(let uidValidity, let source, let destination)? = code,
            let sourceUIDs = source.numbers, let destinationUIDs = destination.numbers
        else { return }
        destinationUIDValidity = uidValidity
        for (from, to) in zip(sourceUIDs, destinationUIDs) { self.destinationUIDs[from] = to }
    }
}

extension ExpungedMessages {
    /// What the state machine credited to an EXPUNGE, UID EXPUNGE or MOVE.
    fileprivate init(_ outcome: CommandOutcome) {
        self.init(uids: outcome.expungedUIDs.sorted(), unidentifiedCount: outcome.unidentifiedExpunges)
    }
}

extension UntaggedResponse {
    /// The COPYUID code of an untagged OK (MOVE's, RFC 6851 4.3), else nil.
    fileprivate var copyUID: ResponseCode? {
        guard case .condition(.ok, let text) = self, case .copyUID? = text.code else { return nil }
        return text.code
    }
}
