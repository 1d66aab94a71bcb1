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
        enum Taken {
            case bytes([UInt8], wakeThread: Bool)
            case none(UInt64)
        }
        let taken = shared.withLock { state -> Taken in
            if state.terminalError == nil, !state.received.isEmpty {
                let bytes = state.received
                state.received = []
                unreadByteCount.store(0, ordering: .relaxed)
                // Reading pauses once the limit is held: it must hear that there is room again.
                return .bytes(bytes, wakeThread: bytes.count >= readAheadLimit)
            }
            state.nextID += 1
            return .none(state.nextID)
        }
        let id: UInt64
        switch taken {
        case .bytes(let bytes, let wakeThread):
            if wakeThread { self.wakeThread() }
            return bytes
        case .none(let next): id = next
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
                    let immediate = shared.withLock { state -> Result<[UInt8], TransportError>? in
                        if let error = state.terminalError { return .failure(error) }
                        if state.cancelledIDs.remove(id) != nil {
                            return .failure(TransportError(.cancelled, "reading was cancelled"))
                        }
                        // Arrived since the look above.
                        if !state.received.isEmpty {
                            let bytes = state.received
                            state.received = []
                            unreadByteCount.store(0, ordering: .relaxed)
                            return .success(bytes)
                        }
                        if state.peerClosed {
                            return .failure(TransportError(.connectionClosed, "the server closed the connection"))
                        }
                        let deadline = timeout.map { ContinuousClock.now + $0 }
                        state.reads.append(
                            PendingRead(id: id, deadline: deadline, timeout: timeout, continuation: continuation))
                        return nil
                    }
                    switch immediate {
                    case .success(let bytes)?:
                        if bytes.count >= readAheadLimit { wakeThread() }
                        continuation.resume(returning: bytes)
                    case .failure(let error)?: continuation.resume(throwing: error)
                    case nil: wakeThread()
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
