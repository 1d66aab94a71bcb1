import Synchronization

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
            close(descriptor)
            throw error
        }
    }

    deinit { state.requestStop() }

    /// Stops accepting; the `connections` stream ends. Accepted connections stay open.
    public func stop() { state.requestStop() }

    private static func bind(host: String, port: Int, backlog: Int32) throws(TransportError) -> (Int32, Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let address = list else {
            throw TransportError(.listenFailed, "cannot listen on \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let descriptor = try systemCall("socket") {
            socket(
                address.pointee.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard Glibc.bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0,
            Glibc.listen(descriptor, backlog) == 0
        else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TransportError(.listenFailed, "cannot listen on \(host):\(port) (\(reason)); pick another port")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let boundPort = withUnsafeMutablePointer(to: &storage) { pointer -> Int in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                getsockname(descriptor, generic, &length)
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
        return (descriptor, boundPort)
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
        wakeUp = try WakeUpPipe()
    }

    deinit { wakeUp.close() }

    func requestStop() {
        stopRequested.store(true, ordering: .relaxed)
        wakeUp.signal()
    }

    func acceptLoop(tls: TLSContext?, timeouts: ConnectionTimeouts, output: AsyncStream<NetworkConnection>.Continuation)
    {
        defer {
            close(descriptor)
            output.finish()
        }
        while !stopRequested.load(ordering: .relaxed) {
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeUp.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&descriptors, 2, -1)
            if descriptors[1].revents != 0 { wakeUp.drain() }
            guard descriptors[0].revents != 0 else { continue }
            while true {
                let accepted = accept(descriptor, nil, nil)
                if accepted < 0 { break }
                _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                var one: Int32 = 1
                setsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                do {
                    output.yield(try NetworkConnection.accepted(descriptor: accepted, tls: tls, timeouts: timeouts))
                } catch {
                    close(accepted)
                }
            }
        }
    }
}
