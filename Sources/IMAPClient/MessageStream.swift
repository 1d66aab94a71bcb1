import Synchronization

/// An async sequence of values produced by a session, with backpressure: the producer waits when
/// `capacity` values are buffered, so memory stays bounded by what the consumer holds.
///
/// When the consumer stops (breaks out of its loop, or its task is cancelled) the producer is told
/// and stops sending more commands.
public final class MessageStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = IMAPError

    private struct State {
        var buffer: [Element] = []
        var head = 0
        var finished = false
        var failure: IMAPError?
        var consumerGone = false
        var receiver: CheckedContinuation<Element?, any Error>?
        var senders: [CheckedContinuation<Void, Never>] = []

        var count: Int { buffer.count - head }

        mutating func pop() -> Element? {
            guard head < buffer.count else { return nil }
            let element = buffer[head]
            head += 1
            if head > 1024 && head * 2 > buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let wakeThreshold: Int

    private let onConsumerGone: (@Sendable () -> Void)?

    init(capacity: Int = 512, wakeThreshold: Int = 64, onConsumerGone: (@Sendable () -> Void)? = nil) {
        self.capacity = capacity
        self.wakeThreshold = Swift.min(wakeThreshold, capacity)
        self.onConsumerGone = onConsumerGone
    }

    /// Hands whatever is buffered to a waiting consumer (the producer has nothing more right now).
    func flush() {
        let handOver = state.withLock { state -> (CheckedContinuation<Element?, any Error>, Element)? in
            guard let receiver = state.receiver, let first = state.pop() else { return nil }
            state.receiver = nil
            return (receiver, first)
        }
        if let (receiver, first) = handOver { receiver.resume(returning: first) }
    }

    /// Whether the consumer has gone away.
    var isConsumerGone: Bool { state.withLock { $0.consumerGone } }

    /// Hands `element` to the consumer, waiting while the buffer is full. Returns false when the
    /// consumer has gone away (the element is dropped).
    func send(_ element: Element) async -> Bool {
        while true {
            let step = state.withLock { state -> SendStep<Element> in
                if state.consumerGone || state.finished { return .done(false) }
                if state.count < capacity {
                    state.buffer.append(element)
                    // Wake a waiting consumer only once a batch is ready; `flush()` hands over
                    // the rest when the producer has nothing more for now.
                    if state.count >= wakeThreshold, let receiver = state.receiver, let first = state.pop() {
                        state.receiver = nil
                        return .resumeReceiver(receiver, first)
                    }
                    return .done(true)
                }
                if let receiver = state.receiver, let first = state.pop() {
                    state.receiver = nil
                    state.buffer.append(element)
                    return .resumeReceiver(receiver, first)
                }
                return .wait
            }
            switch step {
            case .done(let accepted): return accepted
            case .resumeReceiver(let receiver, let first):
                receiver.resume(returning: first)
                return true
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.consumerGone || state.count < capacity { return true }
                        state.senders.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// Ends the sequence, with an error or normally.
    func finish(throwing failure: IMAPError? = nil) {
        let (receiver, first, senders) = state.withLock {
            state -> (CheckedContinuation<Element?, any Error>?, Element?, [CheckedContinuation<Void, Never>]) in
            guard !state.finished else { return (nil, nil, []) }
            state.finished = true
            state.failure = failure
            let receiver = state.receiver
            state.receiver = nil
            let senders = state.senders
            state.senders = []
            // A waiting consumer gets what is still buffered first, then the end.
            return (receiver, receiver == nil ? nil : state.pop(), senders)
        }
        if let receiver {
            if let first {
                receiver.resume(returning: first)
            } else if let failure {
                receiver.resume(throwing: failure)
            } else {
                receiver.resume(returning: nil)
            }
        }
        senders.forEach { $0.resume() }
    }

    fileprivate func consumerLeft() {
        let (receiver, senders, first) = state.withLock {
            state -> (CheckedContinuation<Element?, any Error>?, [CheckedContinuation<Void, Never>], Bool) in
            let first = !state.consumerGone
            state.consumerGone = true
            state.buffer = []
            state.head = 0
            let receiver = state.receiver
            state.receiver = nil
            let senders = state.senders
            state.senders = []
            return (receiver, senders, first)
        }
        receiver?.resume(throwing: IMAPError(.cancelled, "the consumer stopped reading"))
        senders.forEach { $0.resume() }
        if first { onConsumerGone?() }
    }

    fileprivate func receive() async throws(IMAPError) -> Element? {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                    let (step, sender) = state.withLock {
                        state -> (ReceiveStep<Element>, CheckedContinuation<Void, Never>?) in
                        if let element = state.pop() {
                            let sender = state.senders.isEmpty ? nil : state.senders.removeFirst()
                            return (.value(element), sender)
                        }
                        if state.finished { return (.end(state.failure), nil) }
                        if state.consumerGone {
                            return (.end(IMAPError(.cancelled, "the consumer stopped reading")), nil)
                        }
                        state.receiver = continuation
                        return (.wait, nil)
                    }
                    sender?.resume()
                    switch step {
                    case .value(let element): continuation.resume(returning: element)
                    case .end(let failure?): continuation.resume(throwing: failure)
                    case .end(nil): continuation.resume(returning: nil)
                    case .wait: break
                    }
                }
            } onCancel: {
                self.consumerLeft()
            }
        } catch let error as IMAPError {
            throw error
        } catch {
            throw IMAPError(.cancelled, "reading was cancelled")
        }
    }

    public final class AsyncIterator: AsyncIteratorProtocol {
        private let stream: MessageStream<Element>

        init(stream: MessageStream<Element>) { self.stream = stream }

        deinit { stream.consumerLeft() }

        public func next() async throws(IMAPError) -> Element? { try await stream.receive() }

        public func next(isolation actor: isolated (any Actor)?) async throws(IMAPError) -> Element? {
            try await stream.receive()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}

private enum SendStep<Element: Sendable> {
    case done(Bool)
    case resumeReceiver(CheckedContinuation<Element?, any Error>, Element)
    case wait
}

private enum ReceiveStep<Element: Sendable> {
    case value(Element)
    case end(IMAPError?)
    case wait
}
