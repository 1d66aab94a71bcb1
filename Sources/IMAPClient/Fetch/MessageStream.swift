import IMAPCore
import Synchronization

/// How far a stream has come: values handed over so far, of how many expected (when known).
public struct StreamProgress: Hashable, Sendable {
    /// Values received from the server so far.
    public var received: Int
    /// How many the stream expects in all, when it knows.
    public var total: Int?

    public init(received: Int, total: Int?) {
        self.received = received
        self.total = total
    }
}

/// An async sequence of values produced by a session.
///
/// The session's reader never waits for a consumer: values are appended to the buffer at once.
/// Memory stays bounded because the producer asks the server for at most one window of values
/// at a time and sends the next request only when the consumer has drained the buffer below
/// that window (`waitForDemand`). So a consumer may await other commands of the same session
/// inside its loop: they are never stuck behind a full buffer.
///
/// When the consumer stops (breaks out of its loop, or its task is cancelled) the producer is
/// told and stops sending more commands.
public final class MessageStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = IMAPError

    private struct State {
        /// Values not yet taken, in order: a window's slots as they came (nil where the server
        /// sent nothing, skipped by the iterator), or values yielded one by one.
        var buffer: [Element?] = []
        /// The values (not nils) in `buffer`.
        var count = 0
        var finished = false
        var failure: IMAPError?
        var consumerGone = false
        var receiver: CheckedContinuation<Batch, any Error>?
        var demandWaiter: (limit: Int, continuation: CheckedContinuation<Bool, Never>)?
        var received = 0
        var total: Int?

        /// The producer's waiter, when what is buffered and `held` by the iterator has drained to
        /// its limit.
        mutating func takeDemandWaiter(held: Int) -> CheckedContinuation<Bool, Never>? {
            guard let waiter = demandWaiter, count + held <= waiter.limit || consumerGone else { return nil }
            demandWaiter = nil
            return waiter.continuation
        }
    }

    /// Values taken from the stream at once: `slots` in order, nil where there is none, and how
    /// many values they hold (none only at the end).
    @usableFromInline struct Batch: Sendable {
        @usableFromInline var slots: [Element?]
        @usableFromInline var count: Int

        static var end: Batch { Batch(slots: [], count: 0) }
    }

    private let state = Mutex(State())
    private let wakeThreshold: Int
    private let onConsumerGone: (@Sendable () -> Void)?

    init(wakeThreshold: Int = 64, onConsumerGone: (@Sendable () -> Void)? = nil) {
        self.wakeThreshold = Swift.max(wakeThreshold, 1)
        self.onConsumerGone = onConsumerGone
    }

    /// How many values have arrived, of how many expected.
    public var progress: StreamProgress { state.withLock { StreamProgress(received: $0.received, total: $0.total) } }

    /// Values that arrived and the consumer has not had yet: buffered, or taken by its iterator
    /// and not handed out.
    public var bufferedCount: Int { state.withLock { $0.count } + heldByIterator.load(ordering: .relaxed) }

    /// Values the iterator took from the buffer and has not handed out yet.
    private let heldByIterator = Atomic<Int>(0)

    /// With `state` locked: all that is buffered, as one batch (the buffer's array itself, not its
    /// values one by one: a window of a thousand changes hands in one move), now the iterator's.
    /// It counts as held from here, before the iterator has it, so a producer that asks for
    /// demand meanwhile still sees it.
    private func takeAll(_ state: inout State) -> Batch {
        let batch = Batch(slots: state.buffer, count: state.count)
        state.buffer = []
        state.count = 0
        heldByIterator.store(batch.count, ordering: .relaxed)
        return batch
    }

    /// The iterator handed out one of the values it holds.
    @usableFromInline func iteratorHandedOutOne() { heldByIterator.subtract(1, ordering: .relaxed) }

    /// The iterator holds `count` values not handed out yet.
    @usableFromInline func iteratorHolds(_ count: Int) { heldByIterator.store(count, ordering: .relaxed) }

    /// Sets how many values the stream expects in all.
    func setTotal(_ total: Int?) { state.withLock { $0.total = total } }

    /// Whether the consumer has gone away.
    var isConsumerGone: Bool { state.withLock { $0.consumerGone } }

    /// Whether a producer waits for the stream to drain (``waitForDemand(bufferedAtMost:)``).
    var isProducerWaiting: Bool { state.withLock { $0.demandWaiter != nil } }

    /// Appends `element` without waiting. A waiting consumer is woken once a batch is ready;
    /// `flush()` hands over the rest when the producer has nothing more for now.
    func yield(_ element: consuming Element) {
        // Moved into the buffer, not copied (a copy of a summary retains each of its strings).
        var element = Optional(element)
        let handOver = state.withLock { state -> HandOver? in
            guard !state.consumerGone, !state.finished else { return nil }
            state.received += 1
            state.count += 1
            state.buffer.append(element.take())
            return batchIfDue(&state)
        }
        if let (receiver, batch) = handOver { receiver.resume(returning: batch) }
    }

    /// Appends the values of `elements` (nils are skipped by the iterator) under one lock: a window
    /// of a fetch arrives whole, and into an empty buffer (the common case: the consumer keeps up)
    /// it is moved as it is, one array for a thousand values.
    func yield(movingFrom elements: inout [Element?]) {
        var values = 0
        for index in elements.indices where elements[index] != nil { values += 1 }
        guard values > 0 else { return }
        let handOver = state.withLock { state -> HandOver? in
            guard !state.consumerGone, !state.finished else { return nil }
            state.received += values
            state.count += values
            if state.buffer.isEmpty {
                swap(&state.buffer, &elements)
            } else {
                for index in elements.indices where elements[index] != nil {
                    state.buffer.append(elements[index].take())
                }
            }
            return batchIfDue(&state)
        }
        elements = []
        if let (receiver, batch) = handOver { receiver.resume(returning: batch) }
    }

    /// A waiting consumer and the batch to resume it with.
    private typealias HandOver = (CheckedContinuation<Batch, any Error>, Batch)

    /// With `state` locked: once a batch is buffered (`wakeThreshold`), the waiting consumer and
    /// its batch, taken out of `state`.
    private func batchIfDue(_ state: inout State) -> HandOver? {
        guard state.count >= wakeThreshold, let receiver = state.receiver else { return nil }
        state.receiver = nil
        return (receiver, takeAll(&state))
    }

    /// Hands whatever is buffered to a waiting consumer (the producer has nothing more right now).
    func flush() {
        let handOver = state.withLock { state -> HandOver? in
            guard let receiver = state.receiver, state.count > 0 else { return nil }
            state.receiver = nil
            return (receiver, takeAll(&state))
        }
        if let (receiver, batch) = handOver { receiver.resume(returning: batch) }
    }

    /// Waits until at most `limit` values are buffered; false when the consumer has gone.
    func waitForDemand(bufferedAtMost limit: Int) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let ready = state.withLock { state -> Bool? in
                if state.consumerGone || state.finished { return false }
                if state.count + heldByIterator.load(ordering: .relaxed) <= limit { return true }
                state.demandWaiter = (limit, continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the sequence, with an error or normally.
    func finish(throwing failure: IMAPError? = nil) {
        let (receiver, batch, waiter) = state.withLock {
            state -> (CheckedContinuation<Batch, any Error>?, Batch, CheckedContinuation<Bool, Never>?) in
            guard !state.finished else { return (nil, .end, nil) }
            state.finished = true
            state.failure = failure
            let receiver = state.receiver
            state.receiver = nil
            let waiter = state.demandWaiter?.continuation
            state.demandWaiter = nil
            // A waiting consumer gets what is still buffered first, then the end.
            return (receiver, receiver == nil ? .end : takeAll(&state), waiter)
        }
        waiter?.resume(returning: false)
        if let receiver {
            if batch.count > 0 {
                receiver.resume(returning: batch)
            } else if let failure {
                receiver.resume(throwing: failure)
            } else {
                receiver.resume(returning: .end)
            }
        }
    }

    @usableFromInline func consumerLeft() {
        let (receiver, waiter, first) = state.withLock {
            state -> (CheckedContinuation<Batch, any Error>?, CheckedContinuation<Bool, Never>?, Bool) in
            let first = !state.consumerGone
            state.consumerGone = true
            state.buffer = []
            state.count = 0
            let receiver = state.receiver
            state.receiver = nil
            let waiter = state.demandWaiter?.continuation
            state.demandWaiter = nil
            return (receiver, waiter, first)
        }
        receiver?.resume(throwing: IMAPError(.cancelled, "the consumer stopped reading"))
        waiter?.resume(returning: false)
        if first { onConsumerGone?() }
    }

    /// The next values in order (at least one), waiting for them when none is buffered; an
    /// empty batch at the end. Asking again means the iterator handed out all it held: a
    /// producer waiting for the stream to drain is woken.
    @usableFromInline func receiveBatch() async throws(IMAPError) -> Batch {
        // Values already buffered are taken without suspending; a cancelled consumer takes the
        // slow path, which stops it.
        if !Task.isCancelled {
            let batch = takeBuffered()
            if batch.count > 0 { return batch }
        }
        return try await waitCancellably(onCancel: { self.consumerLeft() }) {
            (continuation: CheckedContinuation<Batch, any Error>) in
            let (step, waiter) = state.withLock {
                state -> (ReceiveStep<Batch>, CheckedContinuation<Bool, Never>?) in
                let waiter = state.takeDemandWaiter(held: heldByIterator.load(ordering: .relaxed))
                if state.count > 0 { return (.values(takeAll(&state)), waiter) }
                if state.finished { return (.end(state.failure), waiter) }
                if state.consumerGone {
                    return (.end(IMAPError(.cancelled, "the consumer stopped reading")), waiter)
                }
                state.receiver = continuation
                return (.wait, waiter)
            }
            waiter?.resume(returning: true)
            switch step {
            case .values(let batch): continuation.resume(returning: batch)
            case .end(let failure?): continuation.resume(throwing: failure)
            case .end(nil): continuation.resume(returning: .end)
            case .wait: break
            }
        }
    }

    /// All that is buffered now (none when nothing is), waking a producer waiting for the
    /// stream to drain.
    private func takeBuffered() -> Batch {
        let (batch, waiter) = state.withLock { state -> (Batch, CheckedContinuation<Bool, Never>?) in
            let waiter = state.takeDemandWaiter(held: heldByIterator.load(ordering: .relaxed))
            return (state.count > 0 ? takeAll(&state) : .end, waiter)
        }
        waiter?.resume(returning: true)
        return batch
    }

    /// Reads the values in order.
    ///
    /// It takes all that is buffered at once and hands the values out from its own array:
    /// `next()` is inlined into the consumer and specialised for its element type, so a value
    /// already taken costs no lock, no generic call and no suspension.
    public final class AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let stream: MessageStream<Element>
        /// Values taken from the stream (nil where there is none); those before `position` were
        /// handed out (moved out).
        @usableFromInline var batch: [Element?] = []
        @usableFromInline var position = 0

        init(stream: MessageStream<Element>) { self.stream = stream }

        deinit { stream.consumerLeft() }

        /// The next value; nil at the end.
        @inlinable public func next() async throws(IMAPError) -> Element? { try await next(isolation: nil) }

        /// The next value; nil at the end.
        @inlinable public func next(isolation actor: isolated (any Actor)?) async throws(IMAPError) -> Element? {
            if !Task.isCancelled, let value = handOutNext() { return value }
            return try await refill(isolation: actor)
        }

        /// The next value of the batch taken (its gaps skipped); nil when it is used up.
        @inlinable func handOutNext() -> Element? {
            while position < batch.count {
                position += 1
                if let value = batch[position - 1].take() {
                    stream.iteratorHandedOutOne()
                    return value
                }
            }
            return nil
        }

        /// Takes the next batch from the stream (the handed-out one is let go first) and returns
        /// its first value; nil at the end.
        @usableFromInline func refill(isolation actor: isolated (any Actor)?) async throws(IMAPError) -> Element? {
            batch = []
            position = 0
            stream.iteratorHolds(0)
            let taken = try await stream.receiveBatch()
            guard taken.count > 0 else { return nil }
            // The stream counted the batch as held when it handed it over.
            batch = taken.slots
            return handOutNext()
        }
    }

    /// An iterator; a stream has one consumer.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}

private enum ReceiveStep<Batch: Sendable> {
    case values(Batch)
    case end(IMAPError?)
    case wait
}

/// Waits for `body` to resume its continuation, calling `onCancel` when the waiting task is
/// cancelled. An error that is not an `IMAPError` (none is thrown but by cancellation) becomes
/// `.cancelled`.
func waitCancellably<Value: Sendable>(
    onCancel: @escaping @Sendable () -> Void, _ body: (CheckedContinuation<Value, any Error>) -> Void
) async throws(IMAPError) -> Value {
    do {
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(body)
        } onCancel: {
            onCancel()
        }
    } catch let error as IMAPError {
        throw error
    } catch {
        throw IMAPError(.cancelled, "reading was cancelled")
    }
}

/// Where a command's FETCH responses go as the session parses them.
protocol FetchSink: AnyObject, Sendable {
    func yield(_ fetch: consuming FetchResponse)
    func flush()
    func finish(throwing failure: IMAPError?)
    var isConsumerGone: Bool { get }
}
