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
        /// Taken values are set to nil (moved out, not copied), and the taken front is dropped
        /// once it is more than half of the buffer.
        var buffer: [Element?] = []
        var head = 0
        var finished = false
        var failure: IMAPError?
        var consumerGone = false
        var receiver: CheckedContinuation<[Element?], any Error>?
        var demandWaiter: (limit: Int, continuation: CheckedContinuation<Bool, Never>)?
        var received = 0
        var total: Int?

        var count: Int { buffer.count - head }

        mutating func pop() -> Element? {
            guard head < buffer.count else { return nil }
            let element = buffer[head].take()
            head += 1
            if head > 1024 && head * 2 > buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return element
        }

        /// Up to `limit` values from the front, in order (none when nothing is buffered).
        mutating func popBatch(_ limit: Int) -> [Element?] {
            let taken = Swift.min(limit, count)
            guard taken > 0 else { return [] }
            var batch: [Element?] = []
            batch.reserveCapacity(taken)
            // Moved out of the buffer (take), and later out of the batch: never copied.
            for _ in 0..<taken { batch.append(pop()) }
            return batch
        }

        /// The producer's waiter, when the buffer has drained to its limit.
        mutating func takeDemandWaiter() -> CheckedContinuation<Bool, Never>? {
            guard let waiter = demandWaiter, count <= waiter.limit || consumerGone else { return nil }
            demandWaiter = nil
            return waiter.continuation
        }
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

    /// The iterator handed out one of the values it holds.
    @usableFromInline func iteratorHandedOutOne() { heldByIterator.subtract(1, ordering: .relaxed) }

    /// The iterator holds `count` values not handed out yet.
    @usableFromInline func iteratorHolds(_ count: Int) { heldByIterator.store(count, ordering: .relaxed) }

    /// Sets how many values the stream expects in all.
    func setTotal(_ total: Int?) { state.withLock { $0.total = total } }

    /// Whether the consumer has gone away.
    var isConsumerGone: Bool { state.withLock { $0.consumerGone } }

    /// Appends `element` without waiting. A waiting consumer is woken once a batch is ready;
    /// `flush()` hands over the rest when the producer has nothing more for now.
    func yield(_ element: consuming Element) {
        // Moved into the buffer, not copied (a copy of a summary retains each of its strings).
        var element = Optional(element)
        let handOver = state.withLock { state -> HandOver? in
            guard !state.consumerGone, !state.finished else { return nil }
            state.received += 1
            state.buffer.append(element.take())
            return batchIfDue(&state)
        }
        if let (receiver, batch) = handOver { receiver.resume(returning: batch) }
    }

    /// Appends the values of `elements` (skipping nils, each moved out) under one lock: a window
    /// of a fetch arrives whole, and taking the lock for each of its thousand values cost more
    /// than moving them.
    func yield(movingFrom elements: inout [Element?]) {
        let handOver = state.withLock { state -> HandOver? in
            guard !state.consumerGone, !state.finished else { return nil }
            for index in elements.indices where elements[index] != nil {
                state.received += 1
                state.buffer.append(elements[index].take())
            }
            return batchIfDue(&state)
        }
        if let (receiver, batch) = handOver { receiver.resume(returning: batch) }
    }

    /// A waiting consumer and the batch to resume it with.
    private typealias HandOver = (CheckedContinuation<[Element?], any Error>, [Element?])

    /// With `state` locked: once a batch is buffered (`wakeThreshold`), the waiting consumer and
    /// its batch, taken out of `state`.
    private func batchIfDue(_ state: inout State) -> HandOver? {
        guard state.count >= wakeThreshold, let receiver = state.receiver else { return nil }
        state.receiver = nil
        return (receiver, state.popBatch(Self.batchLimit))
    }

    /// Hands whatever is buffered to a waiting consumer (the producer has nothing more right now).
    func flush() {
        let handOver = state.withLock { state -> HandOver? in
            guard let receiver = state.receiver, state.count > 0 else { return nil }
            state.receiver = nil
            return (receiver, state.popBatch(Self.batchLimit))
        }
        if let (receiver, batch) = handOver { receiver.resume(returning: batch) }
    }

    /// Waits until at most `limit` values are buffered; false when the consumer has gone.
    func waitForDemand(bufferedAtMost limit: Int) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let ready = state.withLock { state -> Bool? in
                if state.consumerGone || state.finished { return false }
                if state.count <= limit { return true }
                state.demandWaiter = (limit, continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the sequence, with an error or normally.
    func finish(throwing failure: IMAPError? = nil) {
        let (receiver, batch, waiter) = state.withLock {
            state -> (CheckedContinuation<[Element?], any Error>?, [Element?], CheckedContinuation<Bool, Never>?) in
            guard !state.finished else { return (nil, [], nil) }
            state.finished = true
            state.failure = failure
            let receiver = state.receiver
            state.receiver = nil
            let waiter = state.demandWaiter?.continuation
            state.demandWaiter = nil
            // A waiting consumer gets what is still buffered first, then the end.
            return (receiver, receiver == nil ? [] : state.popBatch(Self.batchLimit), waiter)
        }
        waiter?.resume(returning: false)
        if let receiver {
            if !batch.isEmpty {
                receiver.resume(returning: batch)
            } else if let failure {
                receiver.resume(throwing: failure)
            } else {
                receiver.resume(returning: [])
            }
        }
    }

    @usableFromInline func consumerLeft() {
        let (receiver, waiter, first) = state.withLock {
            state -> (CheckedContinuation<[Element?], any Error>?, CheckedContinuation<Bool, Never>?, Bool) in
            let first = !state.consumerGone
            state.consumerGone = true
            state.buffer = []
            state.head = 0
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

    /// The most values a consumer takes from the buffer at once: its iterator hands them out
    /// one by one without a lock or a generic call each (a listing of thousands takes nearly all
    /// of its values this way). It bounds what is held outside the buffer, too.
    static var batchLimit: Int { 64 }

    /// The next values in order, at least one, waiting for them when none is buffered; empty at
    /// the end. Taking values wakes a producer waiting for the buffer to drain.
    @usableFromInline func receiveBatch() async throws(IMAPError) -> [Element?] {
        // Values already buffered are taken without suspending; a cancelled consumer takes the
        // slow path, which stops it.
        if !Task.isCancelled {
            let batch = takeBuffered()
            if !batch.isEmpty { return batch }
        }
        return try await waitCancellably(onCancel: { self.consumerLeft() }) {
            (continuation: CheckedContinuation<[Element?], any Error>) in
            let (step, waiter) = state.withLock {
                state -> (ReceiveStep<Element>, CheckedContinuation<Bool, Never>?) in
                let batch = state.popBatch(Self.batchLimit)
                if !batch.isEmpty { return (.values(batch), state.takeDemandWaiter()) }
                if state.finished { return (.end(state.failure), nil) }
                if state.consumerGone {
                    return (.end(IMAPError(.cancelled, "the consumer stopped reading")), nil)
                }
                state.receiver = continuation
                return (.wait, state.takeDemandWaiter())
            }
            waiter?.resume(returning: true)
            switch step {
            case .values(let batch): continuation.resume(returning: batch)
            case .end(let failure?): continuation.resume(throwing: failure)
            case .end(nil): continuation.resume(returning: [])
            case .wait: break
            }
        }
    }

    /// The values buffered now (at most `batchLimit`), waking a producer waiting for the buffer
    /// to drain; empty when none is buffered.
    private func takeBuffered() -> [Element?] {
        let (batch, waiter) = state.withLock { state -> ([Element?], CheckedContinuation<Bool, Never>?) in
            let batch = state.popBatch(Self.batchLimit)
            return (batch, batch.isEmpty ? nil : state.takeDemandWaiter())
        }
        waiter?.resume(returning: true)
        return batch
    }

    /// Reads the values in order.
    ///
    /// It takes values from the stream in batches (at most `batchLimit`) and hands them out from
    /// its own array: `next()` is inlined into the consumer and specialised for its element type,
    /// so a value already taken costs no lock, no generic call and no suspension.
    public final class AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let stream: MessageStream<Element>
        /// Values taken from the stream; those before `position` were handed out (moved out).
        @usableFromInline var batch: [Element?] = []
        @usableFromInline var position = 0

        init(stream: MessageStream<Element>) { self.stream = stream }

        deinit { stream.consumerLeft() }

        /// The next value; nil at the end.
        @inlinable public func next() async throws(IMAPError) -> Element? { try await next(isolation: nil) }

        /// The next value; nil at the end.
        @inlinable public func next(isolation actor: isolated (any Actor)?) async throws(IMAPError) -> Element? {
            if position < batch.count && !Task.isCancelled {
                position += 1
                stream.iteratorHandedOutOne()
                return batch[position - 1].take()
            }
            return try await refill(isolation: actor)
        }

        /// Takes the next batch from the stream (the handed-out one is let go first) and returns
        /// its first value; nil at the end.
        @usableFromInline func refill(isolation actor: isolated (any Actor)?) async throws(IMAPError) -> Element? {
            batch = []
            position = 0
            stream.iteratorHolds(0)
            batch = try await stream.receiveBatch()
            guard !batch.isEmpty else { return nil }
            position = 1
            stream.iteratorHolds(batch.count - 1)
            return batch[0].take()
        }
    }

    /// An iterator; a stream has one consumer.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}

private enum ReceiveStep<Element: Sendable> {
    case values([Element?])
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
