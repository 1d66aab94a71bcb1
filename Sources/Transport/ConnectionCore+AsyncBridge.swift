/// What async callers call: each request goes to the I/O thread through `shared` and the wake-up
/// pipe, and its answer comes back through a continuation.
extension ConnectionCore {
    func requestClose() {
        shared.withLock { $0.closeRequested = true }
        wakeThread()
    }

    /// Starts the I/O thread, which connects (and handshakes for TLS) before the call returns.
    func run(connecting plan: ConnectPlan) async throws(TransportError) {
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    do throws(TransportError) {
                        shared.withLock { $0.threadRunning = true }
                        try startIOThread(name: "imap-io") { self.threadMain(plan: plan, connected: continuation) }
                    } catch {
                        noThread(error)
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
        do {
            try startIOThread(name: "imap-io") { self.acceptedThreadMain(tls: tls, timeouts: timeouts) }
        } catch {
            noThread(error)
            throw error
        }
    }

    /// The thread could not start: every later request fails at once with `error` instead of
    /// waiting for a thread that will never answer it.
    private func noThread(_ error: TransportError) {
        shared.withLock { state in
            state.threadRunning = false
            if state.terminalError == nil { state.terminalError = error }
        }
    }

    private func acceptedThreadMain(tls: TLSContext?, timeouts: ConnectionTimeouts) {
        handshakeTimeout = timeouts.tlsHandshake
        notePeerAddress()
        if let tls {
            do throws(TransportError) {
                try beginHandshake(.server(tls), timeout: timeouts.tlsHandshake, completion: nil)
            } catch {
                finish(error)
                return
            }
        }
        loop()
    }

    func read(timeout: Duration?) async throws(TransportError) -> [UInt8] {
        // What arrived while no read waited is taken at once: no wake-up of the I/O thread, no
        // suspension (a reader slower than the server mostly finds its next bytes here).
        let (received, id) = shared.withLock { state -> ([UInt8]?, UInt64) in
            state.lastReadTimeout = timeout
            if let bytes = takeReceived(&state) { return (bytes, 0) }
            state.nextID += 1
            return (nil, state.nextID)
        }
        if let received { return tookReceived(received) }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
                    let (immediate, readWatchers, wakes) = shared.withLock {
                        state -> (Result<[UInt8], TransportError>?, [CheckedContinuation<Void, Never>], Bool) in
                        if let error = state.terminalError { return (.failure(error), [], false) }
                        if state.cancelledIDs.remove(id) != nil {
                            return (.failure(TransportError(.cancelled, "reading was cancelled")), [], false)
                        }
                        // Arrived since the look above.
                        if let bytes = takeReceived(&state) { return (.success(bytes), [], false) }
                        if state.peerClosed {
                            let closed = TransportError(.connectionClosed, "the server closed the connection")
                            return (.failure(closed), [], false)
                        }
                        let deadline = timeout.map { ContinuousClock.now + $0 }
                        state.reads.append(
                            PendingRead(id: id, deadline: deadline, timeout: timeout, continuation: continuation))
                        defer { state.readWatchers = [] }
                        // The I/O thread sleeping in poll() wakes for the socket and before the
                        // deadline anyway: only a read it would miss writes to the wake-up pipe.
                        return (nil, state.readWatchers, !(state.watch?.covers(deadline) ?? false))
                    }
                    // Woken before the test hooks hear that the read waits.
                    if wakes { wakeThread() }
                    for watcher in readWatchers { watcher.resume() }
                    switch immediate {
                    case .success(let bytes)?: continuation.resume(returning: tookReceived(bytes))
                    case .failure(let error)?: continuation.resume(throwing: error)
                    case nil: break
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

    /// Takes the bytes that wait in `state` for a reader, if any (called under the lock).
    private func takeReceived(_ state: inout SharedState) -> [UInt8]? {
        guard !state.received.isEmpty else { return nil }
        let bytes = state.received
        state.received = []
        unreadByteCount.store(0, ordering: .relaxed)
        return bytes
    }

    /// `bytes`, taken by a reader: reading paused once the limit was held, so the I/O thread
    /// must hear that there is room again.
    private func tookReceived(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.count >= readAheadLimit { wakeThread() }
        return bytes
    }

    /// Returns once a read waits for bytes (a test hook: the event that a read is in flight).
    func waitUntilAReadWaits() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = shared.withLock { state -> Bool in
                if !state.reads.isEmpty { return true }
                state.readWatchers.append(continuation)
                return false
            }
            if waiting { continuation.resume() }
        }
    }

    /// Returns once the I/O thread sleeps in poll() with its `watch` published (a test hook: the
    /// event after which a read it covers needs no wake-up).
    func waitUntilTheThreadSleeps() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let sleeping = shared.withLock { state -> Bool in
                if state.watch != nil || !state.threadRunning { return true }
                state.sleepWatchers.append(continuation)
                return false
            }
            if sleeping { continuation.resume() }
        }
    }

    /// Returns once at least `count` received bytes wait for a reader, or the connection ended,
    /// or the calling task was cancelled (a test hook: the event that bytes have arrived).
    func waitForUnread(_ count: Int) async {
        let id = shared.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = shared.withLock { state -> Bool in
                    if state.received.count >= count || state.terminalError != nil || state.peerClosed
                        || state.cancelledIDs.remove(id) != nil
                    {
                        return true
                    }
                    state.unreadWaiters.append(UnreadWaiter(id: id, count: count, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = shared.withLock { state -> UnreadWaiter? in
                if let index = state.unreadWaiters.firstIndex(where: { $0.id == id }) {
                    return state.unreadWaiters.remove(at: index)
                }
                state.cancelledIDs.insert(id)
                return nil
            }
            waiter?.continuation.resume()
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
                    wakeThread()
                }
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.cancelled, "the operation was cancelled")
        }
    }
}
