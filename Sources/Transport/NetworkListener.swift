import Synchronization
import SystemLayer

// libc: sockets: socket, bind, listen, accept.
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on its own accept thread (server side; the mock server uses it).
///
/// ```swift
/// let listener = try NetworkListener(host: "127.0.0.1", port: 0, tls: .selfSigned(hosts: ["localhost"]))
/// for await connection in listener.connections { ... }   // listener.port is the chosen port
/// ```
public final class NetworkListener: Sendable {
    /// The port listened on (the chosen one when 0 was asked for).
    public let port: Int
    /// The host or address listened on.
    public let host: String
    /// Accepted connections, in order. With TLS, each one's handshake runs on its own thread and
    /// its first read waits for it.
    public let connections: AsyncStream<NetworkConnection>
    private let state: ListenerState

    /// Listens on `host:port` (port 0 picks a free one). With `tls`, every accepted connection
    /// speaks TLS from its first byte (implicit TLS).
    public init(
        host: String = "127.0.0.1", port: Int = 0, tls: ServerTLSConfiguration? = nil, backlog: Int32 = 512,
        timeouts: ConnectionTimeouts = .init()
    ) throws(TransportError) {
        let context = try tls.map { configuration throws(TransportError) in try TLSContext(server: configuration) }
        let (descriptor, boundPort) = try Self.bind(host: host, port: port, backlog: backlog)
        self.host = host
        self.port = boundPort
        var continuation: AsyncStream<NetworkConnection>.Continuation!
        connections = AsyncStream(bufferingPolicy: .unbounded) { continuation = $0 }
        state = try ListenerState(descriptor: descriptor)
        let stateReference = state
        let output = continuation!
        do {
            try startIOThread(name: "imap-accept") {
                stateReference.acceptLoop(tls: context, timeouts: timeouts, output: output)
            }
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
    }

    deinit { state.requestStop() }

    /// Stops accepting; the `connections` stream ends. Accepted connections stay open.
    public func stop() { state.requestStop() }

    private static func bind(host: String, port: Int, backlog: Int32) throws(TransportError) -> (Int32, Int) {
        let address: UnsafeMutablePointer<addrinfo>
        switch resolve(host: host, port: port, flags: AI_PASSIVE | AI_NUMERICSERV) {
        case .success(let list): address = list
        case .failure(let failure): throw TransportError(.listenFailed, "cannot listen on \(host): \(failure.reason)")
        }
        defer { freeaddrinfo(address) }
        let descriptor = try transportCall("socket") {
            socket(
                address.pointee.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do throws(TransportError) {
            var one: Int32 = 1
            try transportCall("setsockopt") {
                setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            // bind and listen fail for reasons a person can act on (the port is taken): their
            // errno goes into a listenFailed message rather than a systemCallFailed one.
            var bound = try transportCall("bind", handingBack: { _ in true }) {
                Glibc.bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen)
            }
            if case .success = bound {
                bound = try transportCall("listen", handingBack: { _ in true }) { Glibc.listen(descriptor, backlog) }
            }
            if case .failure(let failure) = bound {
                let reason = String(cString: strerror(failure.number))
                throw TransportError(.listenFailed, "cannot listen on \(host):\(port) (\(reason)); pick another port")
            }
            return (descriptor, try boundPort(of: descriptor))
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
    }

    private static func boundPort(of descriptor: Int32) throws(TransportError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return try withUnsafeMutablePointer(to: &storage) { pointer throws(TransportError) -> Int in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(TransportError) -> Int in
                try transportCall("getsockname") { getsockname(descriptor, generic, &length) }
                if Int32(generic.pointee.sa_family) == AF_INET6 {
                    return generic.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        Int(UInt16(bigEndian: $0.pointee.sin6_port))
                    }
                }
                return generic.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            }
        }
    }
}

/// The listening socket and its stop flag.
///
/// Ownership rule: `descriptor` is used only by the accept thread after it starts and closed by
/// it when it stops; other threads only set the atomic flag and signal the wake-up pipe, which is
/// closed in `deinit` once the accept thread has dropped its reference.
final class ListenerState: @unchecked Sendable {
    private let descriptor: Int32
    private let wakeUp: WakeUpPipe
    private let stopRequested = Atomic<Bool>(false)

    init(descriptor: Int32) throws(TransportError) {
        self.descriptor = descriptor
        wakeUp = try transporting { () throws(SystemCallError) in try WakeUpPipe() }
    }

    deinit { wakeUp.close() }

    func requestStop() {
        stopRequested.store(true, ordering: .relaxed)
        wakeUp.signal()
    }

    func acceptLoop(tls: TLSContext?, timeouts: ConnectionTimeouts, output: AsyncStream<NetworkConnection>.Continuation)
    {
        defer {
            closeDescriptor(descriptor)
            output.finish()
        }
        while !stopRequested.load(ordering: .relaxed) {
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeUp.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            do {
                let polled = try transportCall("poll", handingBack: isInterrupted) { poll(&descriptors, 2, -1) }
                guard case .success = polled else { continue }
                if descriptors[1].revents != 0 { try transporting { () throws(SystemCallError) in try wakeUp.drain() } }
            } catch {
                // poll itself failed (out of memory): nothing can be accepted; the stream ends.
                return
            }
            guard descriptors[0].revents != 0 else { continue }
            while let accepted = acceptOne() {
                do {
                    try transporting { () throws(SystemCallError) in try makeNonBlockingAndCloseOnExec(accepted) }
                    try setNoDelay(accepted)
                    output.yield(try NetworkConnection.accepted(descriptor: accepted, tls: tls, timeouts: timeouts))
                } catch {
                    closeDescriptor(accepted)
                }
            }
        }
    }

    /// The next waiting connection, or nil when there is none now. Every failure is handed back
    /// and ends this round: EAGAIN (none left), a connection reset before it was accepted
    /// (ECONNABORTED) or a full descriptor table; the next poll tries again.
    private func acceptOne() -> Int32? {
        do {
            let accepted = try transportCall("accept", handingBack: { _ in true }) { accept(descriptor, nil, nil) }
            guard case .success(let descriptor) = accepted else { return nil }
            return descriptor
        } catch {
            return nil  // not reached: every errno is handed back above
        }
    }
}
