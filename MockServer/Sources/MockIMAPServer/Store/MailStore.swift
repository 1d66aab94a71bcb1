public import IMAPCore
import Synchronization

/// The server's mail: users, their mailboxes and messages, shared by every session.
///
/// Thread-safe (one `Mutex`); every change bumps the mailbox's mod-sequence in the same step and
/// wakes the sessions that watch the mailbox (IDLE), whether a session or a test made it.
///
/// ```swift
/// try server.store.seed(user: "alice", mailbox: "INBOX", from: .mbox(url))
/// #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 7) == [.seen])
/// ```
/// Mailbox names in this API are the names people see, with `/` between levels; on the wire
/// they are modified UTF-7.
public final class MailStore: Sendable {
    struct State: Sendable {
        var accounts: [String: Account] = [:]
        var nextUIDValidity: UInt32
    }

    struct Observer: Sendable {
        let user: String
        let mailbox: String
        let callback: @Sendable () -> Void
    }

    private let state: Mutex<State>
    private let observers = Mutex<(next: UInt64, all: [UInt64: Observer])>((0, [:]))
    private let defaultMailboxes: [MailboxDefinition]

    /// The hierarchy delimiter of mailbox names.
    public static let delimiter: Character = "/"

    /// A store with `users`, each holding `defaultMailboxes`.
    public init(users: [MockIMAPServer.User] = [], defaultMailboxes: [MailboxDefinition] = MailboxDefinition.standard) {
        self.defaultMailboxes = defaultMailboxes
        // UIDVALIDITY from the clock, as real servers do, so a restarted server shows new values.
        state = Mutex(State(nextUIDValidity: UInt32(truncatingIfNeeded: max(1, currentSecondsSinceEpoch()))))
        for user in users { addUser(user) }
    }

    // MARK: - Users

    /// Adds an account (or replaces its credentials when it exists) with the default mailboxes.
    public func addUser(_ user: MockIMAPServer.User) {
        state.withLock { state in
            if state.accounts[user.name] != nil {
                state.accounts[user.name]?.user = user
                return
            }
            var account = Account(user: user)
            for definition in defaultMailboxes {
                let name = Self.wireName(definition.name)
                account.mailboxes[name] = MailboxRecord(
                    name: name, uidValidity: state.takeUIDValidity(), specialUse: definition.specialUse)
                account.subscriptions.insert(name)
            }
            state.accounts[user.name] = account
        }
    }

    /// The names of all users.
    public var userNames: [String] { state.withLock { $0.accounts.keys.sorted() } }

    /// The credentials of `user`, if it exists.
    func credentials(of user: String) -> MockIMAPServer.User? { state.withLock { $0.accounts[user]?.user } }

    // MARK: - Mailboxes

    /// Creates a mailbox (and any missing parents, RFC 3501 6.3.3).
    public func createMailbox(
        _ name: String, user: String, specialUse: SpecialUse? = nil, uidValidity: UInt32? = nil
    ) throws(MockServerError) {
        try createMailbox(wireName: Self.wireName(name), user: user, specialUse: specialUse, uidValidity: uidValidity)
    }

    /// Creates a mailbox by its wire name.
    func createMailbox(
        wireName name: String, user: String, specialUse: SpecialUse? = nil, uidValidity: UInt32? = nil
    ) throws(MockServerError) {
        try state.withLock { (state: inout State) throws(MockServerError) in
            guard var account = state.accounts[user] else { throw Self.unknownUser(user) }
            if let existing = account.mailboxes[name], existing.isSelectable {
                throw MockServerError(.mailboxExists, "mailbox \(name) of \(user) exists already")
            }
            let parts = name.split(separator: Self.delimiter, omittingEmptySubsequences: true)
            for depth in 1..<max(1, parts.count) {
                let parent = parts[0..<depth].joined(separator: String(Self.delimiter))
                if account.mailboxes[parent] == nil {
                    account.mailboxes[parent] = MailboxRecord(name: parent, uidValidity: state.takeUIDValidity())
                }
            }
            var record = MailboxRecord(name: name, uidValidity: uidValidity ?? state.takeUIDValidity())
            record.specialUse = specialUse
            account.mailboxes[name] = record
            state.accounts[user] = account
        }
    }

    /// Deletes a mailbox; one with children stays as a `\Noselect` name (RFC 3501 6.3.4).
    public func deleteMailbox(_ name: String, user: String) throws(MockServerError) {
        let wire = Self.wireName(name)
        try state.withLock { (state: inout State) throws(MockServerError) in
            guard var account = state.accounts[user] else { throw Self.unknownUser(user) }
            guard account.mailboxes[wire] != nil else { throw Self.unknownMailbox(wire, user: user) }
            Self.delete(wire, in: &account)
            state.accounts[user] = account
        }
        notify(user: user, mailbox: wire)
    }

    static func delete(_ name: String, in account: inout Account) {
        let prefix = name + String(delimiter)
        if account.mailboxes.keys.contains(where: { $0.hasPrefix(prefix) }) {
            let validity = account.mailboxes[name]?.uidValidity ?? 1
            var record = MailboxRecord(name: name, uidValidity: validity &+ 1)
            record.isSelectable = false
            account.mailboxes[name] = record
        } else {
            account.mailboxes[name] = nil
        }
    }

    /// The mailboxes of `user`, as people see their names, sorted.
    public func mailboxNames(user: String) -> [String] {
        state.withLock { state in
            (state.accounts[user]?.mailboxes.values.filter(\.isSelectable).map { MailboxName(ByteString($0.name)) }
                ?? [])
                .map(\.displayName).sorted()
        }
    }

    /// Sets a mailbox's UIDVALIDITY (as after a server rebuilt it); sessions that have it
    /// selected are told with `* BYE` at their next command.
    public func setUIDValidity(_ value: UInt32, user: String, mailbox: String) throws(MockServerError) {
        try update(user: user, mailbox: Self.wireName(mailbox)) { record in record.uidValidity = value }
    }

    /// Gives a mailbox a fresh UIDVALIDITY, different from its current one, as if it had been
    /// deleted and created again; returns it. Sessions that have it selected get `* BYE` at
    /// their next command, which does not run; the next SELECT shows the new value.
    @discardableResult
    public func renewUIDValidity(user: String, mailbox: String) throws(MockServerError) -> UInt32 {
        let name = Self.wireName(mailbox)
        let fresh = try state.withLock { (state: inout State) throws(MockServerError) -> UInt32 in
            guard state.accounts[user] != nil else { throw Self.unknownUser(user) }
            guard let current = state.accounts[user]?.mailboxes[name]?.uidValidity else {
                throw Self.unknownMailbox(mailbox, user: user)
            }
            var fresh = state.takeUIDValidity()
            while fresh == current { fresh = state.takeUIDValidity() }
            return fresh
        }
        try setUIDValidity(fresh, user: user, mailbox: mailbox)
        return fresh
    }

    /// The UIDVALIDITY of a mailbox.
    public func uidValidity(user: String, mailbox: String) -> UInt32? {
        snapshot(user: user, mailbox: Self.wireName(mailbox))?.uidValidity
    }

    /// The UIDNEXT of a mailbox.
    public func uidNext(user: String, mailbox: String) -> UInt32? {
        snapshot(user: user, mailbox: Self.wireName(mailbox))?.uidNext
    }

    /// The HIGHESTMODSEQ of a mailbox (RFC 7162).
    public func highestModificationSequence(user: String, mailbox: String) -> UInt64? {
        snapshot(user: user, mailbox: Self.wireName(mailbox))?.highestModificationSequence
    }

    // MARK: - Messages

    /// Adds a message; returns its UID. `uid` must be above every UID the mailbox has used;
    /// `internalDate` defaults to the Date header, or now when there is none.
    @discardableResult
    public func append(
        _ bytes: [UInt8], user: String, mailbox: String, flags: [Flag] = [], internalDate: IMAPDateTime? = nil,
        uid: UInt32? = nil
    ) throws(MockServerError) -> UInt32 {
        let message = IndexedMessage(bytes: bytes)
        let date = internalDate ?? message.defaultInternalDate
        return try update(user: user, mailbox: Self.wireName(mailbox)) { (record) throws(MockServerError) in
            try record.append(message, flags: flags, internalDate: date, uid: uid)
        }
    }

    /// The UIDs in a mailbox, ascending.
    public func uids(user: String, mailbox: String) -> [UInt32] {
        snapshot(user: user, mailbox: Self.wireName(mailbox))?.messages.map(\.uid) ?? []
    }

    /// The flags of a message, or nil when there is no such message.
    public func flags(user: String, mailbox: String, uid: UInt32) -> Set<Flag>? {
        message(user: user, mailbox: mailbox, uid: uid).map { Set($0.flags) }
    }

    /// The mod-sequence of a message (RFC 7162), or nil when there is no such message.
    public func modificationSequence(user: String, mailbox: String, uid: UInt32) -> UInt64? {
        message(user: user, mailbox: mailbox, uid: uid)?.modificationSequence
    }

    /// The received date (INTERNALDATE) of a message.
    public func internalDate(user: String, mailbox: String, uid: UInt32) -> IMAPDateTime? {
        message(user: user, mailbox: mailbox, uid: uid)?.internalDate
    }

    /// The bytes of a message.
    public func rawMessage(user: String, mailbox: String, uid: UInt32) -> [UInt8]? {
        message(user: user, mailbox: mailbox, uid: uid)?.message.section(.complete)
    }

    /// Replaces the flags of a message, as another client would; watching sessions see a FETCH.
    public func setFlags(_ flags: Set<Flag>, user: String, mailbox: String, uid: UInt32) throws(MockServerError) {
        try update(user: user, mailbox: Self.wireName(mailbox)) { (record) throws(MockServerError) in
            guard let index = record.index(ofUID: uid) else {
                throw MockServerError(.unknownMailbox, "no message with UID \(uid) in \(mailbox) of \(user)")
            }
            let ordered = Array(flags).sorted { $0.rawValue < $1.rawValue }.normalizedFlags
            record.noteKeywords(ordered)
            record.messages[index].flags = ordered
            record.messages[index].modificationSequence = record.nextModificationSequence()
        }
    }

    /// Test hook: gives messages the mod-sequences `values` (by UID), as an RFC example shows
    /// them; the mailbox's HIGHESTMODSEQ becomes the largest of all. Sessions are not told.
    package func setModificationSequences(
        _ values: [UInt32: UInt64], user: String, mailbox: String
    ) throws(MockServerError) {
        try update(user: user, mailbox: Self.wireName(mailbox), notifying: false) { record in
            for (uid, value) in values {
                guard let index = record.index(ofUID: uid) else { continue }
                record.messages[index].modificationSequence = value
            }
            record.highestModificationSequence = record.messages.map(\.modificationSequence).max() ?? 1
        }
    }

    /// Removes messages, as another client would; watching sessions see EXPUNGE.
    public func expunge(user: String, mailbox: String, uids: [UInt32]) throws(MockServerError) {
        try update(user: user, mailbox: Self.wireName(mailbox)) { record in
            _ = record.remove(at: uids.compactMap { record.index(ofUID: $0) })
        }
    }

    func message(user: String, mailbox: String, uid: UInt32) -> StoredMessage? {
        guard let record = snapshot(user: user, mailbox: Self.wireName(mailbox)),
            let index = record.index(ofUID: uid)
        else { return nil }
        return record.messages[index]
    }

    // MARK: - For sessions

    /// A copy of a mailbox (copy-on-write: cheap until either side changes).
    func snapshot(user: String, mailbox: String) -> MailboxRecord? {
        state.withLock { $0.accounts[user]?.mailboxes[mailbox] }
    }

    /// A copy of an account.
    func account(_ user: String) -> Account? { state.withLock { $0.accounts[user] } }

    /// Changes a mailbox in one step and wakes its watchers.
    @discardableResult
    func update<Result: Sendable>(
        user: String, mailbox: String, notifying: Bool = true,
        _ body: (inout MailboxRecord) throws(MockServerError) -> Result
    ) throws(MockServerError) -> Result {
        let result = try state.withLock { (state: inout State) throws(MockServerError) -> Result in
            guard state.accounts[user] != nil else { throw Self.unknownUser(user) }
            guard var record = state.accounts[user]?.mailboxes[mailbox], record.isSelectable else {
                throw Self.unknownMailbox(mailbox, user: user)
            }
            // Take the record out so the account's dictionary does not hold a second reference
            // while it changes (no copy of the message array).
            state.accounts[user]?.mailboxes[mailbox] = nil
            defer { state.accounts[user]?.mailboxes[mailbox] = record }
            return try body(&record)
        }
        if notifying { notify(user: user, mailbox: mailbox) }
        return result
    }

    /// Changes an account in one step (mailbox creation, deletion, renaming, subscriptions);
    /// wakes the watchers of `touching`.
    func updateAccount<Result: Sendable>(
        _ user: String, touching: [String] = [], _ body: (inout Account, inout State) throws(MockServerError) -> Result
    ) throws(MockServerError) -> Result {
        let result = try state.withLock { (state: inout State) throws(MockServerError) -> Result in
            guard var account = state.accounts[user] else { throw Self.unknownUser(user) }
            state.accounts[user] = nil
            defer { state.accounts[user] = account }
            return try body(&account, &state)
        }
        for mailbox in touching { notify(user: user, mailbox: mailbox) }
        return result
    }

    /// Changes two mailboxes of one user in one step (COPY, MOVE). The destination is nil when
    /// it is the source itself.
    func transfer<Result: Sendable>(
        user: String, from source: String, to destination: String,
        _ body: (inout MailboxRecord, inout MailboxRecord?) throws(MockServerError) -> Result
    ) throws(MockServerError) -> Result {
        guard source != destination else {
            return try update(user: user, mailbox: source) { (record) throws(MockServerError) -> Result in
                var none: MailboxRecord?
                return try body(&record, &none)
            }
        }
        let result = try state.withLock { (state: inout State) throws(MockServerError) -> Result in
            guard state.accounts[user] != nil else { throw Self.unknownUser(user) }
            guard var from = state.accounts[user]?.mailboxes[source], from.isSelectable else {
                throw Self.unknownMailbox(source, user: user)
            }
            var to = state.accounts[user]?.mailboxes[destination]
            guard to?.isSelectable == true else { throw Self.unknownMailbox(destination, user: user) }
            state.accounts[user]?.mailboxes[source] = nil
            state.accounts[user]?.mailboxes[destination] = nil
            defer {
                state.accounts[user]?.mailboxes[source] = from
                state.accounts[user]?.mailboxes[destination] = to
            }
            return try body(&from, &to)
        }
        notify(user: user, mailbox: source)
        notify(user: user, mailbox: destination)
        return result
    }

    /// Calls `callback` after every change to the mailbox (on the changing thread; keep it short).
    func observe(user: String, mailbox: String, _ callback: @escaping @Sendable () -> Void) -> UInt64 {
        observers.withLock { registry in
            registry.next += 1
            registry.all[registry.next] = Observer(user: user, mailbox: mailbox, callback: callback)
            return registry.next
        }
    }

    /// Stops an observation.
    func stopObserving(_ id: UInt64) {
        _ = observers.withLock { $0.all.removeValue(forKey: id) }
    }

    private func notify(user: String, mailbox: String) {
        let callbacks = observers.withLock { registry in
            registry.all.values.filter { $0.user == user && $0.mailbox == mailbox }.map(\.callback)
        }
        for callback in callbacks { callback() }
    }

    // MARK: - Names and errors

    /// The wire name of a mailbox name people see (`INBOX` in any case is `INBOX`).
    static func wireName(_ name: String) -> String {
        var trimmed = Substring(name)
        while trimmed.count > 1 && trimmed.last == delimiter { trimmed.removeLast() }
        return MailboxName(displayName: String(trimmed)).bytes.string
    }

    static func unknownUser(_ user: String) -> MockServerError {
        MockServerError(.unknownUser, "no user \(user); add it to Configuration.users or call store.addUser")
    }

    static func unknownMailbox(_ mailbox: String, user: String) -> MockServerError {
        MockServerError(.unknownMailbox, "no mailbox \(mailbox) for \(user); create it with store.createMailbox")
    }
}

extension MailStore.State {
    /// A fresh UIDVALIDITY.
    mutating func takeUIDValidity() -> UInt32 {
        defer { nextUIDValidity = nextUIDValidity == .max ? 1 : nextUIDValidity + 1 }
        return nextUIDValidity
    }
}

extension IndexedMessage {
    /// The received date a message gets when none is given: its Date header, else now.
    var defaultInternalDate: IMAPDateTime {
        if let sent = sentTimestamp { return IMAPDateTime(secondsSinceEpoch: sent) }
        return .now
    }
}
