import Synchronization

/// Values told to every listener at once, each listener an `AsyncStream` of its own that ends
/// when the listener stops reading or the broadcast ends: the services' events and the local
/// index's catch-ups. Safe from any thread.
public final class Broadcast<Element: Sendable>: Sendable {
    private struct Listeners {
        var next: UInt64 = 0
        var streams: [UInt64: AsyncStream<Element>.Continuation] = [:]
    }

    private let listeners = Mutex(Listeners())
    private let buffering: AsyncStream<Element>.Continuation.BufferingPolicy

    /// Each listener keeps what `buffering` says of what it has not read yet.
    public init(buffering: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded) {
        self.buffering = buffering
    }

    deinit { finish() }

    /// A new listener: it hears what is sent from now on.
    public func listen() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: buffering)
        let id = listeners.withLock { listeners in
            defer { listeners.next += 1 }
            listeners.streams[listeners.next] = continuation
            return listeners.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether anyone listens.
    public var isHeard: Bool { listeners.withLock { !$0.streams.isEmpty } }

    public func send(_ element: Element) {
        for stream in listeners.withLock({ Array($0.streams.values) }) { stream.yield(element) }
    }

    /// Ends every listener's stream; later listeners hear what is sent after.
    public func finish() {
        let ended = listeners.withLock { listeners in
            defer { listeners.streams = [:] }
            return Array(listeners.streams.values)
        }
        for stream in ended { stream.finish() }
    }
}
