public import IMAPCore
import Synchronization

/// The one windowed fetch of the session: every FETCH a caller streams (raw messages, summaries
/// in a list's order, summaries of new mail) goes through ``IMAPSession/windowedFetch(_:items:modifiers:mailbox:plan:into:deliver:)``.
///
/// The UIDs go out in windows, in the order given. Each window's FETCH responses land in a
/// ``FetchWindow`` as the session parses them, merged by UID: a server may split one message's
/// data over several FETCH responses (RFC 3501 7.4.2, RFC 9051 7.5.2), e.g. a FLAGS-only FETCH
/// after the full one, and a later response updates the items it carries, never blanking the
/// others. A window is handed to the caller (`deliver`) in its order once its commands ended;
/// the next window is sent once the consumer has taken all of it, so at most
/// `concurrentWindows` windows are in flight and the stream holds at most two.
///
/// The windows' commands run in a task group of the producing task: nothing outlives the
/// fetch. The producing task (``IMAPSession/produce(_:_:)``) holds the session only while it
/// runs; it ends when the fetch ends, when the consumer leaves (no further command is sent),
/// or when the session closes (every command fails at once).
extension IMAPSession {
    /// How a fetch is cut into windows.
    struct WindowPlan: Sendable {
        /// UIDs per window.
        var window: Int
        /// Windows in flight at once.
        var concurrentWindows: Int
    }

    /// UID FETCH of `items` for `uids`, as a stream of parsed messages. BODY[...] items are
    /// always sent as BODY.PEEK, so fetching never marks mail read.
    ///
    /// The UIDs are asked for in windows of `fetchWindow`, two in flight, each sent once the
    /// consumer has taken the window before the last, so the stream holds at most two windows
    /// and any other command, even one awaited inside the loop over this stream, runs between
    /// two windows. When the consumer stops, no further commands are sent. Messages come in UID
    /// order, each once, with the data the server sent for it merged. `progress` counts what
    /// arrived of the UIDs asked for (a set with `*` is resolved with a UID SEARCH first).
    public nonisolated func fetch(
        _ uids: SequenceSet, items: [FetchAttribute], changedSince: UInt64? = nil,
        in mailbox: MailboxExpectation? = nil
    ) -> MessageStream<FetchResponse> {
        let attributes = items.contains(.uid) ? items.map(Self.peeking) : [.uid] + items.map(Self.peeking)
        let modifiers: [FetchModifier] = changedSince.map { [.changedSince($0)] } ?? []
        let plan = WindowPlan(window: max(configuration.fetchWindow, 1), concurrentWindows: 2)
        return produce(MessageStream<FetchResponse>()) { stream throws(IMAPError) in
            let numbers = try await self.resolved(uids, mailbox: mailbox)
            stream.setTotal(numbers.count)
            try await self.windowedFetch(
                numbers, items: attributes, modifiers: modifiers, mailbox: mailbox, plan: plan, into: stream
            ) { responses throws(IMAPError) in
                stream.yield(movingFrom: &responses)
            }
        }
    }

    /// Starts a stream's producer. This is the fetch engine's one unstructured task: its owner is
    /// the stream it fills (the producer ends when the consumer leaves), and it holds the session
    /// only while it runs (closing the session fails its commands at once, which ends it).
    nonisolated func produce<Element: Sendable>(
        _ stream: MessageStream<Element>,
        _ body: @escaping @Sendable (MessageStream<Element>) async throws(IMAPError) -> Void
    ) -> MessageStream<Element> {
        Task {
            do throws(IMAPError) {
                try await body(stream)
                stream.finish()
            } catch {
                stream.finish(throwing: error)
            }
        }
        return stream
    }

    /// The UIDs of `set`: its own numbers, or (with `*` or ranges to resolve) the existing ones.
    func resolved(_ set: SequenceSet, mailbox: MailboxExpectation?) async throws(IMAPError) -> [UInt32] {
        if let explicit = set.numbers { return explicit }
        return try await existingUIDs(in: set, mailbox: mailbox)
    }

    /// Fetches `items` of `uids` window by window (see the type's summary) and hands each window
    /// to `deliver` in order: the messages in the order of `uids`, nil where the server sent none.
    /// `deliver` runs off the session's actor, beside the parsing of the next window.
    nonisolated func windowedFetch<Element: Sendable>(
        _ uids: [UInt32], items: [FetchAttribute], modifiers: [FetchModifier] = [], mailbox: MailboxExpectation?,
        plan: WindowPlan, into stream: MessageStream<Element>,
        deliver: (inout [FetchResponse?]) async throws(IMAPError) -> Void
    ) async throws(IMAPError) {
        let window = max(plan.window, 1)
        let windows = stride(from: 0, to: uids.count, by: window).map {
            FetchWindow(uids: Array(uids[$0..<min(uids.count, $0 + window)]))
        }
        guard !windows.isEmpty else { return }
        let group = await newStreamGroup()
        let kinds = Set(items.compactMap(AttributeKind.init))
        let outcome = await withTaskGroup(of: Void.self) { tasks -> Result<Void, IMAPError> in
            var launched = 0
            var delivered = 0
            // Windows still in flight when this stops (the consumer left, or a failure) send no
            // more commands and keep nothing; the group then waits for their current command.
            defer { for pending in windows[delivered...] { pending.consumerLeft() } }
            func launch() {
                let next = windows[launched]
                launched += 1
                tasks.addTask {
                    await self.fill(
                        next, items: items, modifiers: modifiers, kinds: kinds, group: group, mailbox: mailbox)
                }
            }
            while launched < min(max(plan.concurrentWindows, 1), windows.count) { launch() }
            do throws(IMAPError) {
                while delivered < windows.count {
                    var responses = try await windows[delivered].responses()
                    delivered += 1
                    guard !stream.isConsumerGone else { return .success(()) }
                    try await deliver(&responses)
                    stream.flush()
                    // The next window goes out once the consumer has taken all of this one (the
                    // window after it is in flight meanwhile): a consumer that stops early
                    // costs no more commands, and the stream holds at most two windows.
                    if launched < windows.count {
                        guard await stream.waitForDemand(bufferedAtMost: 0) else { return .success(()) }
                        launch()
                    }
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    /// Numbers a fetch's windows, which may be in flight together (no other command's FETCH
    /// responses may be).
    private func newStreamGroup() -> UInt64 {
        nextStreamGroup += 1
        return nextStreamGroup
    }

    /// Runs one window's UID FETCH (split when the line would be too long) into the window,
    /// which ends with its last command.
    private func fill(
        _ window: FetchWindow, items: [FetchAttribute], modifiers: [FetchModifier], kinds: Set<AttributeKind>,
        group: UInt64, mailbox: MailboxExpectation?
    ) async {
        let commands = Command.uidFetch(SequenceSet(numbers: window.uids), items, modifiers: modifiers).split(
            maximumLineLength: configuration.maximumCommandLength)
        do throws(IMAPError) {
            for command in commands {
                guard !window.isConsumerGone else { break }
                guard case .uidFetch(let part, _, _) = command else { continue }
                try await run(
                    command, claim: .fetch(part, kinds: kinds), expecting: mailbox, sink: window, streamGroup: group)
            }
            window.finish(throwing: nil)
        } catch {
            window.finish(throwing: error)
        }
    }

    /// The UIDs of `set` that exist, ascending: `UID SEARCH UID set` (ESEARCH `RETURN (ALL)`
    /// when offered, a compact answer), never SORT, which would make the server sort for nothing.
    func existingUIDs(in set: SequenceSet, mailbox: MailboxExpectation?) async throws(IMAPError) -> [UInt32] {
        let esearch = capabilities.contains(.esearch)
        let outcome = try await run(
            .uidSearch(returnOptions: esearch ? [.all] : nil, keys: [.uid(set)]), claim: .search, expecting: mailbox)
        var uids: [UInt32] = []
        for response in outcome.untagged {
            if case .extendedSearch(let answer) = response { uids += answer.all?.numbers ?? [] }
            if case .search(let numbers, _) = response { uids += numbers }
        }
        return uids.sorted()
    }

    static func peeking(_ attribute: FetchAttribute) -> FetchAttribute {
        switch attribute {
        case .bodySection(_, let section, let partial):
            return .bodySection(peek: true, section: section, partial: partial)
        case .binary(_, let part, let partial): return .binary(peek: true, part: part, partial: partial)
        case .rfc822: return .bodySection(peek: true, section: .complete, partial: nil)
        case .rfc822Text: return .bodySection(peek: true, section: .text, partial: nil)
        default: return attribute
        }
    }
}

/// One window of a fetch: each FETCH response goes straight to its message's place in the
/// window's order as the session parses it, merged with what came before for that UID. The
/// consumer takes the whole window when its commands have ended: the order can only be kept
/// once all of the window is here, and the consumer wakes once per window.
final class FetchWindow: FetchSink {
    private struct State {
        var slots: [FetchResponse?]
        var finished = false
        var failure: IMAPError?
        var consumerGone = false
        var waiter: CheckedContinuation<[FetchResponse?], any Error>?
    }

    /// Where a UID's slot is: found by binary search in a window in UID order (ascending, or
    /// newest first as a list asks), by a table otherwise.
    private enum Positions {
        case ascending, descending
        case table([UInt32: Int])
    }

    let uids: [UInt32]
    private let positions: Positions
    private let state: Mutex<State>

    init(uids: [UInt32]) {
        self.uids = uids
        if zip(uids, uids.dropFirst()).allSatisfy({ $0 < $1 }) {
            positions = .ascending
        } else if zip(uids, uids.dropFirst()).allSatisfy({ $0 > $1 }) {
            positions = .descending
        } else {
            var table: [UInt32: Int] = [:]
            table.reserveCapacity(uids.count)
            for (index, uid) in uids.enumerated() { table[uid] = index }
            positions = .table(table)
        }
        state = Mutex(State(slots: [FetchResponse?](repeating: nil, count: uids.count)))
    }

    private func position(of uid: UInt32) -> Int? {
        switch positions {
        case .table(let table): return table[uid]
        case .ascending, .descending:
            let ascending = if case .ascending = positions { true } else { false }
            var low = 0
            var high = uids.count
            while low < high {
                let middle = (low + high) / 2
                if uids[middle] == uid { return middle }
                if (uids[middle] < uid) == ascending { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    func yield(_ fetch: consuming FetchResponse) {
        guard let uid = fetch.uid, let index = position(of: uid) else { return }
        var arrived = Optional(fetch)
        state.withLock { state in
            guard !state.consumerGone, !state.finished, let message = arrived.take() else { return }
            if state.slots[index] == nil {
                state.slots[index] = message
            } else {
                state.slots[index]?.merge(message)
            }
        }
    }

    func flush() {}

    func finish(throwing failure: IMAPError?) {
        let (waiter, outcome) = state.withLock {
            state -> (CheckedContinuation<[FetchResponse?], any Error>?, Result<[FetchResponse?], IMAPError>?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            state.failure = failure
            guard let waiter = state.waiter else { return (nil, nil) }
            state.waiter = nil
            return (waiter, Self.outcome(&state))
        }
        if let waiter, let outcome { waiter.resume(with: outcome.mapError { $0 as any Error }) }
    }

    var isConsumerGone: Bool { state.withLock { $0.consumerGone } }

    /// The window's messages in its order (nil where the server sent none), once its commands
    /// have ended; its failure, if it failed. Cancelling the waiting task stops the window.
    func responses() async throws(IMAPError) -> [FetchResponse?] {
        try await waitCancellably(onCancel: { self.consumerLeft() }) {
            (continuation: CheckedContinuation<[FetchResponse?], any Error>) in
            let ready = state.withLock { state -> Result<[FetchResponse?], IMAPError>? in
                if state.consumerGone { return .failure(IMAPError(.cancelled, "the consumer stopped reading")) }
                guard state.finished else {
                    state.waiter = continuation
                    return nil
                }
                return Self.outcome(&state)
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }

    /// The consumer stopped: the window's remaining commands are not sent, what arrives is
    /// dropped, and a waiting `responses()` ends.
    func consumerLeft() {
        let waiter = state.withLock { state -> CheckedContinuation<[FetchResponse?], any Error>? in
            state.consumerGone = true
            state.slots = []
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: IMAPError(.cancelled, "the consumer stopped reading"))
    }

    /// The ended window's messages (moved out) or its failure.
    private static func outcome(_ state: inout State) -> Result<[FetchResponse?], IMAPError> {
        if let failure = state.failure { return .failure(failure) }
        let slots = state.slots
        state.slots = []
        return .success(slots)
    }
}

extension FetchResponse {
    /// Takes in a later FETCH response for the same message (RFC 3501 7.4.2: a server may send
    /// a message's data items in several responses): each item it carries replaces the same
    /// item sent before, or is added; items it does not carry are kept.
    mutating func merge(_ later: consuming FetchResponse) {
        for item in later.attributes {
            if let index = attributes.firstIndex(where: { $0.isSameItem(as: item) }) {
                attributes[index] = item
            } else {
                attributes.append(item)
            }
        }
    }
}

extension MessageAttribute {
    /// Whether `other` is a value of the same data item (the same kind; for sections and
    /// binary parts, the same section or part at the same origin).
    fileprivate func isSameItem(as other: MessageAttribute) -> Bool {
        switch self {
        case .uid: if case .uid = other { return true }
        case .flags: if case .flags = other { return true }
        case .internalDate: if case .internalDate = other { return true }
        case .rfc822Size: if case .rfc822Size = other { return true }
        case .envelope: if case .envelope = other { return true }
        case .body: if case .body = other { return true }
        case .bodyStructure: if case .bodyStructure = other { return true }
        case .bodySection(let section, let origin, _):
            if case .bodySection(section, origin, _) = other { return true }
        case .binary(let part, let origin, _):
            if case .binary(part, origin, _) = other { return true }
        case .binarySize(let part, _): if case .binarySize(part, _) = other { return true }
        case .rfc822: if case .rfc822 = other { return true }
        case .rfc822Header: if case .rfc822Header = other { return true }
        case .rfc822Text: if case .rfc822Text = other { return true }
        case .preview: if case .preview = other { return true }
        case .modificationSequence: if case .modificationSequence = other { return true }
        case .gmailMessageID: if case .gmailMessageID = other { return true }
        case .gmailThreadID: if case .gmailThreadID = other { return true }
        case .gmailLabels: if case .gmailLabels = other { return true }
        case .unknown(let name, _): if case .unknown(name, _) = other { return true }
        }
        return false
    }
}
