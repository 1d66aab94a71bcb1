public import FoundationEssentials
public import IMAPCore
import Synchronization

/// A ``MailService`` over messages held in memory, for previews and tests: every state of the
/// screen is reachable by construction. It can be told to be slow (a latency, or a gate that
/// holds an operation until released), to fail an operation, or to refuse flag changes; and it
/// plays another client (``deliver(_:)``, ``expunge(_:)``, ``changeFlags(of:to:)``), whose changes
/// reach ``events()`` as a server's would.
///
/// ```swift
/// let service = InMemoryMailService(emails: InMemoryMailService.sampleEmails())
/// service.setFailure(MailServiceError(.connection, "the server is unreachable"), for: .list)
/// service.hold(.search)                 // searches wait until `release(.search)`
/// service.refuseFlagChanges(reason: "the mailbox is read-only")
/// ```
public final class InMemoryMailService: MailService {
    /// The calls that can be slowed, failed or held.
    public enum Operation: Hashable, Sendable, CaseIterable {
        case open, list, search, page, setRead, setPinned
    }

    /// One message and what searching it needs beyond the ``Email``.
    public struct Message: Hashable, Sendable {
        /// The message as the list shows it.
        public var email: Email
        /// The text of its body (searched by bare words, `body:` and `text:`).
        public var body: String
        /// When the server received it (what `after:`/`before:`/`on:` compare).
        public var receivedDate: Date

        /// A message; `body` defaults to the preview and `receivedDate` to the Date header.
        public init(email: Email, body: String? = nil, receivedDate: Date? = nil) {
            self.email = email
            self.body = body ?? email.preview
            self.receivedDate = receivedDate ?? email.date
        }
    }

    private struct State {
        var messages: [String: [Message]] = [:]
        var nextUID: [String: UInt32] = [:]
        var latency: [Operation: Duration] = [:]
        var failures: [Operation: MailServiceError] = [:]
        var held: Set<Operation> = []
        var waiting: [Operation: [UInt64: CheckedContinuation<Void, Never>]] = [:]
        var nextWaiter: UInt64 = 0
        var cancelledWaiters: Set<UInt64> = []
        var refusal: String?
        var calls: [Operation: Int] = [:]
        var isOpen = false
    }

    /// The mailbox this service opens.
    public let mailbox: String
    /// Its UIDVALIDITY.
    public let uidValidity: UInt32
    /// The flag pins are stored with.
    public let pinFlag: Flag
    /// The day `today` and relative dates count from (the search's clock).
    public let now: @Sendable () -> Date
    private let state: Mutex<State>
    private let watchers = Broadcast<MailServiceEvent>()

    /// A service whose mailbox `mailbox` holds `emails` (their IDs are renumbered into it, newest
    /// getting the highest UID, by date), plus `otherMailboxes` for `in:` searches.
    public init(
        emails: [Email] = [], mailbox: String = "INBOX", uidValidity: UInt32 = 1, pinFlag: Flag = .flagged,
        otherMailboxes: [String: [Email]] = [:], now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.mailbox = mailbox
        self.uidValidity = uidValidity
        self.pinFlag = pinFlag
        self.now = now
        var initial = State()
        for (name, list) in [(mailbox, emails)] + otherMailboxes.sorted(by: { $0.key < $1.key }) {
            var uid: UInt32 = 0
            initial.messages[name] = list.sorted { $0.date < $1.date }.map { email in
                uid += 1
                return Message(
                    email: Self.renumbered(email, mailbox: name, uidValidity: uidValidity, uid: uid, pinFlag: pinFlag))
            }
            initial.nextUID[name] = uid + 1
        }
        state = Mutex(initial)
    }

    deinit {
        state.withLock { state in
            for continuation in state.waiting.values.flatMap(\.values) { continuation.resume() }
        }
    }

    // MARK: - Behaviour

    /// Every `operation` takes at least `latency` from now on (nil: no delay).
    public func setLatency(_ latency: Duration?, for operation: Operation) {
        state.withLock { $0.latency[operation] = latency }
    }

    /// Every `operation` fails with `error` from now on (nil: succeeds again).
    public func setFailure(_ error: MailServiceError?, for operation: Operation) {
        state.withLock { $0.failures[operation] = error }
    }

    /// Flag changes are refused with `reason` from now on (nil: accepted again).
    public func refuseFlagChanges(reason: String?) {
        state.withLock { $0.refusal = reason }
    }

    /// Calls of `operation` wait (cancellably) until ``release(_:)``.
    public func hold(_ operation: Operation) {
        state.withLock { _ = $0.held.insert(operation) }
    }

    /// Lets the calls of `operation` held so far, and later ones, go on.
    public func release(_ operation: Operation) {
        let waiting = state.withLock { state in
            state.held.remove(operation)
            return state.waiting.removeValue(forKey: operation)?.values.map { $0 } ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    /// How many calls of `operation` have started.
    public func callCount(_ operation: Operation) -> Int { state.withLock { $0.calls[operation] ?? 0 } }

    /// How many calls of `operation` are waiting at a ``hold(_:)``.
    public func waitingCount(_ operation: Operation) -> Int { state.withLock { $0.waiting[operation]?.count ?? 0 } }

    // MARK: - Another client

    /// A new message arrives in `mailbox` (the open one by default); returns it with its UID.
    @discardableResult
    public func deliver(_ email: Email, to mailbox: String? = nil, body: String? = nil) -> Email {
        let name = mailbox ?? self.mailbox
        let stored = state.withLock { state in
            let uid = state.nextUID[name] ?? 1
            state.nextUID[name] = uid + 1
            let message = Message(
                email: Self.renumbered(email, mailbox: name, uidValidity: uidValidity, uid: uid, pinFlag: pinFlag),
                body: body)
            state.messages[name, default: []].append(message)
            return message.email
        }
        if name == self.mailbox { broadcast(.arrived([stored])) }
        return stored
    }

    /// Another client removes `ids`.
    public func expunge(_ ids: [Email.ID]) {
        let removed = state.withLock { state in
            var removed: [Email.ID] = []
            for id in ids {
                guard let index = state.messages[id.mailbox]?.firstIndex(where: { $0.email.id == id }) else { continue }
                state.messages[id.mailbox]?.remove(at: index)
                removed.append(id)
            }
            return removed
        }
        let here = removed.filter { $0.mailbox == mailbox }
        if !here.isEmpty { broadcast(.expunged(here)) }
    }

    /// Another client sets the flags of `id` to `flags`.
    public func changeFlags(of id: Email.ID, to flags: [Flag]) {
        let changed = state.withLock { state in
            guard let index = state.messages[id.mailbox]?.firstIndex(where: { $0.email.id == id }) else { return false }
            state.messages[id.mailbox]?[index].email.setFlags(flags, pinFlag: pinFlag)
            return true
        }
        if changed && id.mailbox == mailbox { broadcast(.flagsChanged(id, flags)) }
    }

    /// Tells the listeners something (a dropped connection, an alert), as a server would.
    public func announce(_ event: MailServiceEvent) { broadcast(event) }

    /// The message `id` as stored now.
    public func email(_ id: Email.ID) -> Email? {
        state.withLock { $0.messages[id.mailbox]?.first { $0.email.id == id }?.email }
    }

    /// Every message of `mailbox` (the open one by default), oldest first.
    public func emails(in mailbox: String? = nil) -> [Email] {
        state.withLock { $0.messages[mailbox ?? self.mailbox]?.map(\.email) ?? [] }
    }

    // MARK: - MailService

    public func open() async throws(MailServiceError) -> MailboxDescription {
        try await begin(.open)
        let count = state.withLock { state in
            state.isOpen = true
            return state.messages[mailbox]?.count ?? 0
        }
        return MailboxDescription(name: mailbox, uidValidity: uidValidity, messageCount: count, pinFlag: pinFlag)
    }

    public func list(pageSize: Int) async throws(MailServiceError) -> EmailPage {
        try await begin(.list)
        let listed = state.withLock { state in
            (state.messages[mailbox] ?? []).filter { !$0.email.flags.contains(.deleted) }.map(\.email)
        }
        .sorted(by: Self.newestFirst)
        let list = MessageList(ids: listed.map(\.id), pinned: listed.filter(\.isPinned).map(\.id))
        return page(list, offset: 0, pageSize: pageSize)
    }

    public func search(_ query: Query, pageSize: Int) async throws(MailServiceError) -> EmailPage {
        try await begin(.search)
        return page(MessageList(ids: try matches(query).map(\.id)), offset: 0, pageSize: pageSize)
    }

    /// Everything is local here: type-ahead gets the newest matches of any query that compiles.
    public func localMatches(_ query: Query, limit: Int) async -> [Email]? {
        guard let found = try? matches(query) else { return nil }
        return Array(found.prefix(limit))
    }

    /// The messages matching `query`, newest first.
    private func matches(_ query: Query) throws(MailServiceError) -> [Email] {
        let today = SearchContext.day(of: now(), in: TimeZone.current)
        let context = SearchContext(today: today)
        let compiled: CompiledSearch
        do { compiled = try QueryCompiler.compile(query, context: context) } catch { throw MailServiceError(error) }
        let matcher = QueryMatcher(today: today, pinFlag: pinFlag, now: now())
        return state.withLock { state -> [Email] in
            let names: [String]
            switch compiled.scope {
            case .current: names = [mailbox]
            case .mailbox(let name): names = [name]
            case .allMailboxes: names = state.messages.keys.sorted()
            }
            return names.flatMap { state.messages[$0] ?? [] }.filter { message in
                (!compiled.excludesDeleted || !message.email.flags.contains(.deleted))
                    && matcher.matches(query, message)
            }
            .map(\.email)
        }
        .sorted(by: Self.newestFirst)
    }

    public func page(of list: MessageList, offset: Int, pageSize: Int) async throws(MailServiceError) -> EmailPage {
        try await begin(.page)
        return page(list, offset: offset, pageSize: pageSize)
    }

    public func setRead(_ isRead: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
        try await begin(.setRead)
        return change(.seen, isRead, emails)
    }

    public func setPinned(_ isPinned: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
        try await begin(.setPinned)
        return change(pinFlag, isPinned, emails)
    }

    public func unreadUIDs() async throws(MailServiceError) -> [UInt32]? {
        state.withLock { state in
            (state.messages[mailbox] ?? []).map(\.email).filter { !$0.isRead && !$0.flags.contains(.deleted) }.map(
                \.uid)
        }
    }

    public func events() -> AsyncStream<MailServiceEvent> { watchers.listen() }

    public func close() async {
        state.withLock { $0.isOpen = false }
        watchers.finish()
    }

    // MARK: - Helpers

    /// Counts the call, waits out a hold and the latency, then fails if told to.
    private func begin(_ operation: Operation) async throws(MailServiceError) {
        let (latency, isHeld) = state.withLock { state in
            state.calls[operation, default: 0] += 1
            return (state.latency[operation], state.held.contains(operation))
        }
        if isHeld { await waitForRelease(operation) }
        if let latency {
            do { try await Task.sleep(for: latency) } catch { throw Self.cancelled }
        }
        if Task.isCancelled { throw Self.cancelled }
        if let failure = state.withLock({ $0.failures[operation] }) { throw failure }
    }

    private static let cancelled = MailServiceError(.cancelled, "the request was cancelled")

    private func waitForRelease(_ operation: Operation) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let parked = state.withLock { state -> Bool in
                    if state.cancelledWaiters.remove(id) != nil || !state.held.contains(operation) { return false }
                    state.waiting[operation, default: [:]][id] = continuation
                    return true
                }
                if !parked { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let parked = state.waiting[operation]?.removeValue(forKey: id) { return parked }
                state.cancelledWaiters.insert(id)
                return nil
            }
            continuation?.resume()
        }
    }

    private func page(_ list: MessageList, offset: Int, pageSize: Int) -> EmailPage {
        let start = max(0, min(offset, list.ids.count))
        let end = min(list.ids.count, start + max(pageSize, 1))
        let wanted = list.ids[start..<end]
        let emails = state.withLock { state in
            wanted.compactMap { id in state.messages[id.mailbox]?.first { $0.email.id == id }?.email }
        }
        return EmailPage(list: list, offset: start, emails: emails)
    }

    private func change(_ flag: Flag, _ present: Bool, _ ids: [Email.ID]) -> FlagChangeResult {
        var events: [MailServiceEvent] = []
        let result = state.withLock { state in
            var result = FlagChangeResult()
            for id in ids {
                guard let index = state.messages[id.mailbox]?.firstIndex(where: { $0.email.id == id }) else {
                    result.refused[id] = "the message no longer exists (it was deleted or moved)"
                    continue
                }
                if let reason = state.refusal {
                    result.refused[id] = reason
                    continue
                }
                guard let email = state.messages[id.mailbox]?[index].email else { continue }
                let updated = email.setting(flag, present, pinFlag: pinFlag)
                state.messages[id.mailbox]?[index].email = updated
                result.flags[id] = updated.flags
                if updated.flags != email.flags { events.append(.flagsChanged(id, updated.flags)) }
            }
            return result
        }
        for event in events { broadcast(event) }
        return result
    }

    private func broadcast(_ event: MailServiceEvent) {
        watchers.send(event)
    }

    private static func newestFirst(_ a: Email, _ b: Email) -> Bool {
        a.date != b.date ? a.date > b.date : a.uid > b.uid
    }

    private static func renumbered(
        _ email: Email, mailbox: String, uidValidity: UInt32, uid: UInt32, pinFlag: Flag
    ) -> Email {
        Email(
            id: Email.ID(mailbox: mailbox, uidValidity: uidValidity, uid: uid), from: email.from, to: email.to,
            cc: email.cc, subject: email.subject, date: email.date, preview: email.preview, flags: email.flags,
            pinFlag: pinFlag, hasAttachment: email.hasAttachment, size: email.size)
    }
}
