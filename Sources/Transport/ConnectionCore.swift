internal import COpenSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The one object that owns a connection's socket and `SSL*`, and the I/O thread that uses them.
///
/// Ownership rule (why `@unchecked Sendable` is sound): `descriptor`, `ssl`, `inbound`,
/// `localOperations`, `writeOffset`, `handshake` and `endOfStream` are read and written only by
/// the connection's I/O thread once it has started (before that, only by the initializer that
/// created it). Async callers touch nothing but `shared` (a Mutex), the atomics and
/// `wakeUp`, which never changes and is closed only in `deinit`, after the I/O thread has
/// dropped its reference.
final class ConnectionCore: @unchecked Sendable {
    let shared = Mutex(SharedState())
    let wakeUp: WakeUpPipe
    let peerIsLoopback = Atomic<Bool>(false)
    let isTLS = Atomic<Bool>(false)
    /// How many received bytes wait for a reader (a test hook; the I/O thread keeps it current).
    let unreadByteCount = Atomic<Int>(0)

    // I/O thread only.
    private var descriptor: Int32
    private var ssl: OpaquePointer?
    private var inbound: [UInt8] = []
    private var endOfStream = false
    private var localOperations: [Operation] = []
    private var writeOffset = 0
    private var handshake: Handshake?
    private var readBuffer = [UInt8](repeating: 0, count: 65536)

    /// The TLS handshake timeout for STARTTLS (set when the thread starts).
    private var handshakeTimeout: Duration = .seconds(15)

    /// How much may be read ahead of the consumer before reading pauses.
    private let readAheadLimit = 1 << 20

    private struct Handshake {
        let role: TLSRole
        let deadline: ContinuousClock.Instant
        let completion: CheckedContinuation<Void, any Error>?
    }

    private enum Direction {
        case read
        case write
    }

    init(descriptor: Int32) throws(TransportError) {
        _ = brokenPipeSignalIgnored
        self.descriptor = descriptor
        wakeUp = try WakeUpPipe()
    }

    deinit {
        wakeUp.close()
        if let ssl { SSL_free(ssl) }
        if descriptor >= 0 { close(descriptor) }
    }

    // MARK: - Called from async callers

    func requestClose() {
        shared.withLock { $0.closeRequested = true }
        wakeUp.signal()
    }

    /// Starts the I/O thread, which connects (and handshakes for TLS) before the call returns.
    func run(connecting plan: ConnectPlan) async throws(TransportError) {
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    do {
                        shared.withLock { $0.threadRunning = true }
                        try startIOThread(name: "imap-io") { self.threadMain(plan: plan, connected: continuation) }
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            } onCancel: {
                self.requestClose()
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.cancelled, "connecting was cancelled")
        }
    }

    /// Starts the I/O thread for an accepted socket.
    func runAccepted(tls: TLSContext?, timeouts: ConnectionTimeouts) throws(TransportError) {
        shared.withLock { $0.threadRunning = true }
        try startIOThread(name: "imap-io") {
            self.handshakeTimeout = timeouts.tlsHandshake
            self.notePeerAddress()
            if let tls {
                do throws(TransportError) {
                    try self.beginHandshake(.server(tls), timeout: timeouts.tlsHandshake, completion: nil)
                } catch {
                    self.finish(error)
                    return
                }
            }
            self.loop()
        }
    }

    func read(timeout: Duration?) async throws(TransportError) -> [UInt8] {
        let id = shared.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
                    let immediate = shared.withLock { state -> TransportError? in
                        if let error = state.terminalError { return error }
                        if state.cancelledIDs.remove(id) != nil {
                            return TransportError(.cancelled, "reading was cancelled")
                        }
                        let deadline = timeout.map { ContinuousClock.now + $0 }
                        state.reads.append(
                            PendingRead(id: id, deadline: deadline, timeout: timeout, continuation: continuation))
                        return nil
                    }
                    if let immediate {
                        continuation.resume(throwing: immediate)
                    } else {
                        wakeUp.signal()
                    }
                }
            } onCancel: {
                let cancelled = self.shared.withLock { state -> PendingRead? in
                    if let index = state.reads.firstIndex(where: { $0.id == id }) {
                        return state.reads.remove(at: index)
                    }
                    state.cancelledIDs.insert(id)
                    return nil
                }
                cancelled?.continuation.resume(throwing: TransportError(.cancelled, "reading was cancelled"))
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.cancelled, "reading was cancelled")
        }
    }

    func enqueue(
        _ make: @escaping @Sendable (UInt64, CheckedContinuation<Void, any Error>) -> Operation
    ) async throws(TransportError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = shared.withLock { state -> TransportError? in
                    if let error = state.terminalError { return error }
                    state.nextID += 1
                    state.operations.append(make(state.nextID, continuation))
                    return nil
                }
                if let immediate {
                    continuation.resume(throwing: immediate)
                } else {
                    wakeUp.signal()
                }
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.cancelled, "the operation was cancelled")
        }
    }

    // MARK: - The I/O thread

    private func threadMain(plan: ConnectPlan, connected: CheckedContinuation<Void, any Error>) {
        handshakeTimeout = plan.timeouts.tlsHandshake
        do {
            try connectSocket(plan)
            if let (context, serverName) = plan.tls {
                try beginHandshake(
                    .client(context, serverName: serverName), timeout: plan.timeouts.tlsHandshake, completion: connected
                )
            } else {
                connected.resume()
            }
        } catch {
            connected.resume(throwing: error)
            finish(error)
            return
        }
        loop()
    }

    private func loop() {
        while true {
            let (closeRequested, newOperations) = shared.withLock { state -> (Bool, [Operation]) in
                let operations = state.operations
                state.operations = []
                return (state.closeRequested, operations)
            }
            if closeRequested {
                finish(TransportError(.cancelled, "the connection was closed"))
                return
            }
            localOperations.append(contentsOf: newOperations)
            var interest: (read: Bool, write: Bool) = (false, false)
            do {
                interest = try makeProgress()
            } catch {
                finish(error)
                return
            }
            let now = ContinuousClock.now
            expireReads(now: now)
            if let handshake, handshake.deadline <= now {
                finish(
                    TransportError(
                        .handshakeTimeout, "the TLS handshake did not finish in time; check that the port speaks TLS"))
                return
            }
            waitForEvents(interest: interest, now: now)
        }
    }

    /// Does everything that can be done without blocking; returns what to wait for.
    private func makeProgress() throws(TransportError) -> (read: Bool, write: Bool) {
        var interest: (read: Bool, write: Bool) = (false, false)
        while true {
            if handshake != nil {
                switch try stepHandshake() {
                case .none: continue
                case .read?: return (true, false)
                case .write?: return (false, true)
                }
            }
            guard let operation = localOperations.first else { break }
            switch operation {
            case .write(let bytes, _, let continuation):
                let (written, blocked) = try writeSome(bytes, from: writeOffset)
                writeOffset += written
                if writeOffset >= bytes.count {
                    localOperations.removeFirst()
                    writeOffset = 0
                    continuation.resume()
                    continue
                }
                // Part written (a TLS record with partial writes, or a short send): go on until
                // the socket pushes back, or nothing would wake this thread to finish.
                guard let blocked else { continue }
                interest = blocked == .read ? (true, false) : (false, true)
            case .startTLS(let role, let prelude, _, let continuation):
                if writeOffset < prelude.count {
                    let (written, blocked) = try writeSome(prelude, from: writeOffset)
                    writeOffset += written
                    if writeOffset < prelude.count {
                        guard let blocked else { continue }
                        interest = blocked == .read ? (true, false) : (false, true)
                        break
                    }
                }
                writeOffset = 0
                localOperations.removeFirst()
                // What arrived before the handshake was not protected: it is never delivered.
                inbound.removeAll()
                try beginHandshake(role, timeout: handshakeTimeout, completion: continuation)
                continue
            }
            break
        }
        let wantsData = shared.withLock { !$0.reads.isEmpty } || inbound.count < readAheadLimit
        if wantsData && !endOfStream {
            if let blocked = try readAvailable() {
                if blocked == .read { interest.read = true } else { interest.write = true }
            }
        }
        deliver()
        unreadByteCount.store(inbound.count, ordering: .relaxed)
        return interest
    }

    private func deliver() {
        while !inbound.isEmpty {
            guard
                let read = shared.withLock({ state -> PendingRead? in
                    state.reads.isEmpty ? nil : state.reads.removeFirst()
                })
            else { break }
            let data = inbound
            inbound = []
            read.continuation.resume(returning: data)
        }
        if endOfStream && inbound.isEmpty {
            let reads = shared.withLock { state -> [PendingRead] in
                let reads = state.reads
                state.reads = []
                return reads
            }
            for read in reads {
                read.continuation.resume(
                    throwing: TransportError(.connectionClosed, "the server closed the connection"))
            }
        }
    }

    private func expireReads(now: ContinuousClock.Instant) {
        let expired = shared.withLock { state -> [PendingRead] in
            var expired: [PendingRead] = []
            state.reads.removeAll { read in
                guard let deadline = read.deadline, deadline <= now else { return false }
                expired.append(read)
                return true
            }
            return expired
        }
        for read in expired {
            read.continuation.resume(
                throwing: TransportError(
                    .readTimeout,
                    "the server sent nothing for \(describe(read.timeout)); it may be overloaded or unreachable"))
        }
    }

    private func waitForEvents(interest: (read: Bool, write: Bool), now: ContinuousClock.Instant) {
        var deadlines = shared.withLock { state in state.reads.compactMap(\.deadline) }
        if let handshake { deadlines.append(handshake.deadline) }
        var timeoutMilliseconds: Int32 = -1
        if let nearest = deadlines.min() {
            let remaining = nearest - now
            let milliseconds =
                remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
            timeoutMilliseconds = Int32(clamping: max(0, milliseconds + 1))
        }
        var events: Int16 = 0
        if interest.read { events |= Int16(POLLIN) }
        if interest.write { events |= Int16(POLLOUT) }
        var descriptors = [
            pollfd(fd: events == 0 ? -1 : descriptor, events: events, revents: 0),
            pollfd(fd: wakeUp.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&descriptors, 2, timeoutMilliseconds)
        if descriptors[1].revents != 0 { wakeUp.drain() }
    }

    /// Fails everything pending with `error`, closes the socket and ends the thread's work.
    private func finish(_ error: TransportError) {
        if let ssl {
            if error.code == .cancelled { SSL_shutdown(ssl) }
            SSL_free(ssl)
            self.ssl = nil
        }
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        let (reads, operations) = shared.withLock { state -> ([PendingRead], [Operation]) in
            if state.terminalError == nil { state.terminalError = error }
            state.threadRunning = false
            let reads = state.reads
            let operations = state.operations
            state.reads = []
            state.operations = []
            return (reads, operations)
        }
        let readError =
            endOfStream && error.code == .cancelled
            ? TransportError(.connectionClosed, "the server closed the connection") : error
        for read in reads { read.continuation.resume(throwing: readError) }
        for operation in localOperations + operations { operation.continuation.resume(throwing: error) }
        localOperations = []
        handshake?.completion?.resume(throwing: error)
        handshake = nil
    }

    // MARK: - Socket and TLS steps (I/O thread)

    private func readAvailable() throws(TransportError) -> Direction? {
        while inbound.count < readAheadLimit {
            if let ssl {
                let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                if count > 0 {
                    inbound.append(contentsOf: readBuffer[0..<Int(count)])
                    continue
                }
                let code = SSL_get_error(ssl, count)
                switch code {
                case SSL_ERROR_WANT_READ: return .read
                case SSL_ERROR_WANT_WRITE: return .write
                case SSL_ERROR_ZERO_RETURN:
                    endOfStream = true
                    return nil
                case SSL_ERROR_SYSCALL where count == 0 || errno == 0:
                    ERR_clear_error()
                    endOfStream = true
                    return nil
                default:
                    if SSL_get_error(ssl, count) == SSL_ERROR_SSL,
                        mailsearch_ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING
                    {
                        ERR_clear_error()
                        endOfStream = true
                        return nil
                    }
                    throw TransportError(.connectionReset, "the TLS connection broke: \(openSSLErrorText())")
                }
            }
            let count = readBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                inbound.append(contentsOf: readBuffer[0..<count])
                continue
            }
            if count == 0 {
                endOfStream = true
                return nil
            }
            let number = errno
            if number == EINTR { continue }
            if number == EAGAIN || number == EWOULDBLOCK { return .read }
            throw TransportError.system("recv", number)
        }
        return nil
    }

    private func writeSome(_ bytes: [UInt8], from offset: Int) throws(TransportError) -> (Int, Direction?) {
        if let ssl {
            let count = bytes.withUnsafeBytes { raw in
                SSL_write(ssl, raw.baseAddress! + offset, Int32(min(raw.count - offset, Int(Int32.max))))
            }
            if count > 0 { return (Int(count), nil) }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_WRITE: return (0, .write)
            case SSL_ERROR_WANT_READ: return (0, .read)
            default:
                throw TransportError(.connectionReset, "the TLS connection broke while sending: \(openSSLErrorText())")
            }
        }
        while true {
            let count = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count >= 0 { return (count, nil) }
            let number = errno
            if number == EINTR { continue }
            if number == EAGAIN || number == EWOULDBLOCK { return (0, .write) }
            throw TransportError.system("send", number)
        }
    }

    private func beginHandshake(
        _ role: TLSRole, timeout: Duration, completion: CheckedContinuation<Void, any Error>?
    ) throws(TransportError) {
        let context: TLSContext
        switch role {
        case .client(let clientContext, _): context = clientContext
        case .server(let serverContext): context = serverContext
        }
        guard let ssl = SSL_new(context.context) else {
            throw TransportError(.tlsConfiguration, "OpenSSL could not start a TLS session: \(openSSLErrorText())")
        }
        SSL_set_fd(ssl, descriptor)
        switch role {
        case .client(_, let serverName):
            if isIPAddress(serverName) {
                X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
            } else {
                _ = mailsearch_SSL_set_tlsext_host_name(ssl, serverName)
                SSL_set1_host(ssl, serverName)
            }
            SSL_set_connect_state(ssl)
        case .server:
            SSL_set_accept_state(ssl)
        }
        self.ssl = ssl
        handshake = Handshake(role: role, deadline: .now + timeout, completion: completion)
    }

    /// One handshake step: nil when it finished, else what it waits for.
    private func stepHandshake() throws(TransportError) -> Direction? {
        guard let ssl, let current = handshake else { return nil }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshake = nil
            isTLS.store(true, ordering: .relaxed)
            current.completion?.resume()
            return nil
        }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ { return .read }
        if code == SSL_ERROR_WANT_WRITE { return .write }
        let error = classifyHandshakeFailure(ssl: ssl, role: current.role, code: code)
        throw error
    }

    private func classifyHandshakeFailure(ssl: OpaquePointer, role: TLSRole, code: Int32) -> TransportError {
        let host: String
        switch role {
        case .client(_, let serverName): host = serverName
        case .server: host = "the client"
        }
        let verification = SSL_get_verify_result(ssl)
        if verification != X509_V_OK {
            let reason = String(cString: X509_verify_cert_error_string(verification))
            ERR_clear_error()
            switch Int32(verification) {
            case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
                return TransportError(
                    .certificateExpired,
                    "the certificate of \(host) is not valid now (\(reason)); check the server's certificate and this machine's clock"
                )
            case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
                return TransportError(
                    .hostNameMismatch,
                    "the certificate of the server is not for \(host) (\(reason)); check the host name you connect to")
            default:
                return TransportError(
                    .certificateUntrusted,
                    "the certificate of \(host) is not trusted (\(reason)); pass --ca-file with its CA, or check the host name"
                )
            }
        }
        let queued = ERR_peek_error()
        let reason = mailsearch_ERR_GET_REASON(queued)
        if queued != 0
            && [
                SSL_R_WRONG_VERSION_NUMBER, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_HTTP_REQUEST,
                SSL_R_RECORD_LENGTH_MISMATCH,
            ]
            .contains(reason)
        {
            ERR_clear_error()
            return TransportError(
                .notTLS,
                "\(host) does not speak TLS on this port; use the TLS port (993) or STARTTLS on port 143")
        }
        if code == SSL_ERROR_SYSCALL || code == SSL_ERROR_ZERO_RETURN || queued == 0 {
            ERR_clear_error()
            return TransportError(
                .handshakeFailed,
                "\(host) closed the connection during the TLS handshake; check the port and TLS settings")
        }
        return TransportError(.handshakeFailed, "the TLS handshake with \(host) failed: \(openSSLErrorText())")
    }

    // MARK: - Connecting (I/O thread)

    private func connectSocket(_ plan: ConnectPlan) throws(TransportError) {
        let deadline = ContinuousClock.now + plan.timeouts.connect
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(plan.host, String(plan.port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw TransportError(.hostNotFound, "cannot find the host \(plan.host) (\(reason)); check the host name")
        }
        defer { freeaddrinfo(list) }
        var refused = 0
        var attempts = 0
        var lastError: Int32 = 0
        var timedOut = false
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            attempts += 1
            let socketDescriptor = socket(
                address.pointee.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                    | Int32(SOCK_CLOEXEC.rawValue), address.pointee.ai_protocol)
            guard socketDescriptor >= 0 else {
                lastError = errno
                continue
            }
            var result = Glibc.connect(socketDescriptor, address.pointee.ai_addr, address.pointee.ai_addrlen)
            if result != 0 && errno == EINPROGRESS {
                result = try waitForConnect(socketDescriptor, deadline: deadline)
                if result == -2 {
                    timedOut = true
                    close(socketDescriptor)
                    break
                }
            } else if result != 0 {
                result = errno
            }
            if result == 0 {
                var one: Int32 = 1
                setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                descriptor = socketDescriptor
                notePeerAddress()
                return
            }
            close(socketDescriptor)
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
            if shared.withLock({ $0.closeRequested }) {
                close(socketDescriptor)
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
            let ready = poll(&descriptors, 2, milliseconds)
            if descriptors[1].revents != 0 { wakeUp.drain() }
            if ready > 0 && descriptors[0].revents != 0 {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(socketDescriptor, SOL_SOCKET, SO_ERROR, &error, &length)
                return error
            }
        }
    }

    private func notePeerAddress() {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let loopback = withUnsafeMutablePointer(to: &storage) { pointer -> Bool in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                guard getpeername(descriptor, address, &length) == 0 else { return false }
                return isLoopback(address)
            }
        }
        peerIsLoopback.store(loopback, ordering: .relaxed)
    }
}

/// OpenSSL writes to sockets with write(2), which raises SIGPIPE when the peer has gone; the
/// default action would kill the process. A connection reports a broken pipe as an error instead.
private let brokenPipeSignalIgnored: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// "30 seconds", "0.5 seconds": a timeout for a message.
func describe(_ duration: Duration?) -> String {
    guard let duration else { return "a while" }
    return duration.spokenSeconds
}

extension Duration {
    /// "30 seconds", "0.5 seconds": for messages people read.
    package var spokenSeconds: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        if seconds == seconds.rounded() { return "\(Int(seconds)) seconds" }
        return "\((seconds * 10).rounded() / 10) seconds"
    }
}

/// Whether a socket address is in 127.0.0.0/8 or is ::1 (or IPv4-mapped loopback).
func isLoopback(_ address: UnsafePointer<sockaddr>) -> Bool {
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
            UInt32(bigEndian: ipv4.pointee.sin_addr.s_addr) >> 24 == 127
        }
    case AF_INET6:
        return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
            let bytes = withUnsafeBytes(of: ipv6.pointee.sin6_addr) { Array($0) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            return mapped && bytes[12] == 127
        }
    default:
        return false
    }
}
