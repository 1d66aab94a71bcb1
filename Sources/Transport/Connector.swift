import SystemLayer

// libc: sockets: getaddrinfo, socket, connect, getsockopt.
#if canImport(Glibc)
import Glibc
#endif

/// Opens the TCP connection of a `ConnectPlan` on the connection's I/O thread: resolves the host,
/// then tries each address in turn until one connects, all within the connect timeout.
struct Connector {
    let plan: ConnectPlan
    /// Wakes `waitForConnect` when the connection is closed while connecting.
    let wakeUp: WakeUpPipe
    /// Whether the caller has asked to close the connection.
    let isCancelled: () -> Bool

    /// Returns a connected, non-blocking socket with TCP_NODELAY set.
    func connect() throws(TransportError) -> Int32 {
        let deadline = ContinuousClock.now + plan.timeouts.connect
        let first: UnsafeMutablePointer<addrinfo>
        switch resolve(host: plan.host, port: plan.port, flags: 0) {
        case .success(let list): first = list
        case .failure(let failure):
            throw TransportError(
                .hostNotFound, "cannot find the host \(plan.host) (\(failure.reason)); check the host name")
        }
        defer { freeaddrinfo(first) }
        var refused = 0
        var attempts = 0
        var lastError: Int32 = 0
        var timedOut = false
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            attempts += 1
            // Every failure of one address is handed back: the next address may work.
            let opened = try transportCall("socket", handingBack: { _ in true }) {
                socket(
                    address.pointee.ai_family,
                    Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                        | Int32(SOCK_CLOEXEC.rawValue), address.pointee.ai_protocol)
            }
            let socketDescriptor: Int32
            switch opened {
            case .success(let descriptor): socketDescriptor = descriptor
            case .failure(let failure):
                lastError = failure.number
                continue
            }
            var result: Int32
            do {
                let connected = try transportCall("connect", handingBack: { _ in true }) {
                    Glibc.connect(socketDescriptor, address.pointee.ai_addr, address.pointee.ai_addrlen)
                }
                switch connected {
                case .success: result = 0
                case .failure(let failure) where failure.number == EINPROGRESS:
                    result = try waitForConnect(socketDescriptor, deadline: deadline)
                case .failure(let failure): result = failure.number
                }
                if result == 0 { try setNoDelay(socketDescriptor) }
            } catch {
                closeDescriptor(socketDescriptor)
                throw error
            }
            if result == -2 {
                timedOut = true
                closeDescriptor(socketDescriptor)
                break
            }
            if result == 0 { return socketDescriptor }
            closeDescriptor(socketDescriptor)
            lastError = result
            if result == ECONNREFUSED { refused += 1 }
        }
        let target = "\(plan.host):\(plan.port)"
        if timedOut {
            throw TransportError(
                .connectTimeout,
                "could not connect to \(target) within \(describe(plan.timeouts.connect)); check the host, the port and the network"
            )
        }
        if refused == attempts && attempts > 0 {
            throw TransportError(
                .connectionRefused, "\(target) refused the connection; check the port and that the server is running")
        }
        throw TransportError(
            .connectionFailed,
            "could not connect to \(target) (\(String(cString: strerror(lastError)))); check the network")
    }

    /// Waits for a non-blocking connect; returns 0, an errno, or -2 on timeout.
    private func waitForConnect(
        _ socketDescriptor: Int32, deadline: ContinuousClock.Instant
    ) throws(TransportError)
        -> Int32
    {
        while true {
            if isCancelled() {
                throw TransportError(.cancelled, "connecting was cancelled")
            }
            let remaining = deadline - .now
            if remaining <= .zero { return -2 }
            let milliseconds = Int32(
                clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
                    + 1)
            var descriptors = [
                pollfd(fd: socketDescriptor, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: wakeUp.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            // EINTR goes round this loop, which works the remaining time out again.
            let polled = try transportCall("poll", handingBack: isInterrupted) { poll(&descriptors, 2, milliseconds) }
            guard case .success(let ready) = polled else { continue }
            if descriptors[1].revents != 0 { try transporting { () throws(SystemCallError) in try wakeUp.drain() } }
            if ready > 0 && descriptors[0].revents != 0 {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                try transportCall("getsockopt") { getsockopt(socketDescriptor, SOL_SOCKET, SO_ERROR, &error, &length) }
                return error
            }
        }
    }
}

/// Why `resolve` found no address, in words for a message.
struct ResolutionFailure: Error {
    let reason: String
}

/// getaddrinfo(3), whose failures do not follow the -1/errno convention: it returns an EAI_ code,
/// and only EAI_SYSTEM means "look at errno". Returns the list (free it with `freeaddrinfo`).
func resolve(host: String, port: Int, flags: Int32) -> Result<UnsafeMutablePointer<addrinfo>, ResolutionFailure> {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = flags
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &list)
    if status == EAI_SYSTEM {
        return .failure(ResolutionFailure(reason: String(cString: strerror(errno))))
    }
    guard status == 0, let list else {
        return .failure(ResolutionFailure(reason: String(cString: gai_strerror(status))))
    }
    return .success(list)
}
