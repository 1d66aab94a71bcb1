internal import COpenSSL
internal import COpenSSLLoader
import SystemLayer

// libc: sockets: poll on the socket for reading and writing, recv, send.
#if canImport(Glibc)
import Glibc
#endif

/// The I/O thread: it connects, then goes round one loop (take new requests, do what can be done
/// without blocking, fail reads that timed out, poll until the socket or the wake-up pipe is ready)
/// until the connection ends.
extension ConnectionCore {
    func threadMain(plan: ConnectPlan, connected: CheckedContinuation<Void, any Error>) {
        handshakeTimeout = plan.timeouts.tlsHandshake
        do {
            descriptor = try Connector(
                plan: plan, wakeUp: wakeUp, isCancelled: { self.shared.withLock { $0.closeRequested } }
            )
            .connect()
            notePeerAddress()
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

    func loop() {
        while true {
            let (closeRequested, newOperations) = shared.withLock { state -> (Bool, [Operation]) in
                state.watch = nil
                let operations = state.operations
                state.operations = []
                return (state.closeRequested, operations)
            }
            // Taken out of `shared`, they are this thread's to answer: `finish` answers
            // `localOperations`, so they go there before a close can end the loop.
            localOperations.append(contentsOf: newOperations)
            if closeRequested {
                finish(TransportError(.cancelled, "the connection was closed"))
                return
            }
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
            do {
                try waitForEvents(interest: interest, now: now)
            } catch {
                finish(error)
                return
            }
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
                shared.withLock { $0.received.removeAll() }
                do {
                    try beginHandshake(role, timeout: handshakeTimeout, completion: continuation)
                } catch {
                    // Out of `localOperations` and not yet the handshake's: answered here.
                    continuation.resume(throwing: error)
                    throw error
                }
                continue
            }
            break
        }
        let (readWaits, received) = shared.withLock { (!$0.reads.isEmpty, $0.received.count) }
        let room = readAheadLimit - received
        if (readWaits || room > 0) && !endOfStream {
            if let blocked = try readAvailable(limit: max(room, 1)) {
                if blocked == .read { interest.read = true } else { interest.write = true }
            }
        }
        deliver()
        return interest
    }

    /// Hands what was read to the first waiting read, or leaves it in `shared.received` for the
    /// next one; after the end of the stream, fails the reads that wait for more.
    private func deliver() {
        if !inbound.isEmpty {
            let data = inbound
            inbound = []
            let (read, waiters) = shared.withLock { state -> (PendingRead?, [UnreadWaiter]) in
                if let read = state.reads.first {
                    state.reads.removeFirst()
                    return (read, [])
                }
                if state.received.isEmpty { state.received = data } else { state.received += data }
                unreadByteCount.store(state.received.count, ordering: .relaxed)
                return (nil, Self.takeWaiters(&state, answeredBy: state.received.count))
            }
            read?.continuation.resume(returning: data)
            for waiter in waiters { waiter.continuation.resume() }
        }
        if endOfStream {
            let (reads, waiters) = shared.withLock { state -> ([PendingRead], [UnreadWaiter]) in
                state.peerClosed = true
                let reads = state.reads
                state.reads = []
                return (reads, Self.takeWaiters(&state, answeredBy: .max))
            }
            for waiter in waiters { waiter.continuation.resume() }
            for read in reads {
                read.continuation.resume(
                    throwing: TransportError(.connectionClosed, "the server closed the connection"))
            }
        }
    }

    /// Removes and returns the unread-byte waiters that `available` bytes answer (`.max`: the
    /// connection ended, all of them).
    private static func takeWaiters(_ state: inout SharedState, answeredBy available: Int) -> [UnreadWaiter] {
        guard !state.unreadWaiters.isEmpty else { return [] }
        let done = state.unreadWaiters.filter { $0.count <= available }
        state.unreadWaiters.removeAll { $0.count <= available }
        return done
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

    private func waitForEvents(
        interest: (read: Bool, write: Bool), now: ContinuousClock.Instant
    ) throws(TransportError) {
        // The poll's time limit and what it watches are published under the same lock that a
        // new read takes, so the read knows whether this sleep already covers it.
        let (nearest, sleepWatchers) = shared.withLock {
            state -> (ContinuousClock.Instant?, [CheckedContinuation<Void, Never>]) in
            var nearest = state.reads.lazy.compactMap(\.deadline).min()
            if let handshake { nearest = min(nearest ?? handshake.deadline, handshake.deadline) }
            // No read waits: wake when the next one (which usually has the last one's timeout)
            // would be due, so that read finds this sleep covering it.
            if state.reads.isEmpty, let anticipated = state.lastReadTimeout {
                nearest = min(nearest ?? now + anticipated, now + anticipated)
            }
            state.watch = Watch(readable: interest.read, until: nearest)
            defer { state.sleepWatchers = [] }
            return (nearest, state.sleepWatchers)
        }
        for watcher in sleepWatchers { watcher.resume() }
        var timeoutMilliseconds: Int32 = -1
        if let nearest {
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
        // EINTR goes back to the loop, which works the timeout out again.
        let polled = try transportCall("poll", handingBack: isInterrupted) {
            poll(&descriptors, 2, timeoutMilliseconds)
        }
        guard case .success = polled else { return }
        if descriptors[1].revents != 0 { try transporting { () throws(SystemCallError) in try wakeUp.drain() } }
    }

    /// Fails everything pending with `error`, closes the socket and ends the thread's work.
    func finish(_ error: TransportError) {
        if let ssl {
            if error.code == .cancelled { _ = openssl.pointee.SSL_shutdown(ssl) }
            openssl.pointee.SSL_free(ssl)
            self.ssl = nil
        }
        if descriptor >= 0 {
            closeDescriptor(descriptor)
            descriptor = -1
        }
        let (reads, operations, waiters, sleepWatchers) = shared.withLock {
            state -> ([PendingRead], [Operation], [UnreadWaiter], [CheckedContinuation<Void, Never>]) in
            if state.terminalError == nil { state.terminalError = error }
            state.threadRunning = false
            state.watch = nil
            state.received = []
            unreadByteCount.store(0, ordering: .relaxed)
            let reads = state.reads
            let operations = state.operations
            state.reads = []
            state.operations = []
            let sleepWatchers = state.sleepWatchers
            state.sleepWatchers = []
            return (reads, operations, Self.takeWaiters(&state, answeredBy: .max), sleepWatchers)
        }
        for watcher in sleepWatchers { watcher.resume() }
        for waiter in waiters { waiter.continuation.resume() }
        let readError =
            endOfStream && error.code == .cancelled
            ? TransportError(.connectionClosed, "the server closed the connection") : error
        for read in reads { read.continuation.resume(throwing: readError) }
        for operation in localOperations + operations { operation.continuation.resume(throwing: error) }
        localOperations = []
        handshake?.completion?.resume(throwing: error)
        handshake = nil
    }

    // MARK: - Socket and TLS steps

    /// Reads until the socket has nothing more or `limit` bytes are in `inbound`.
    private func readAvailable(limit: Int) throws(TransportError) -> IODirection? {
        while inbound.count < limit {
            if let ssl {
                switch try TLSSteps.read(ssl, into: &readBuffer) {
                case .bytes(let count):
                    inbound.append(contentsOf: readBuffer[0..<count])
                    continue
                case .blocked(let direction):
                    return direction
                case .endOfStream:
                    endOfStream = true
                    return nil
                }
            }
            let received = try transportCall("recv", handingBack: isWouldBlock) {
                readBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            }
            guard case .success(let count) = received else { return .read }
            if count == 0 {
                endOfStream = true
                return nil
            }
            inbound.append(contentsOf: readBuffer[0..<count])
        }
        return nil
    }

    private func writeSome(_ bytes: [UInt8], from offset: Int) throws(TransportError) -> (Int, IODirection?) {
        if let ssl { return try TLSSteps.write(ssl, bytes, from: offset) }
        let sent = try transportCall("send", handingBack: isWouldBlock) {
            bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
        }
        switch sent {
        case .success(let count): return (count, nil)
        case .failure: return (0, .write)
        }
    }

    func beginHandshake(
        _ role: TLSRole, timeout: Duration, completion: CheckedContinuation<Void, any Error>?
    ) throws(TransportError) {
        ssl = try TLSSteps.makeSession(role, descriptor: descriptor)
        handshake = Handshake(role: role, deadline: .now + timeout, completion: completion)
    }

    /// One handshake step: nil when it finished, else what it waits for.
    private func stepHandshake() throws(TransportError) -> IODirection? {
        guard let ssl, let current = handshake else { return nil }
        if let direction = try TLSSteps.stepHandshake(ssl, role: current.role) { return direction }
        handshake = nil
        isTLS.store(true, ordering: .relaxed)
        current.completion?.resume()
        return nil
    }

    func notePeerAddress() {
        peerIsLoopback.store(isPeerLoopback(descriptor), ordering: .relaxed)
    }
}
