/// What async callers call: each request goes to the I/O thread through `shared` and the wake-up
/// pipe, and its answer comes back through a continuation.
extension ConnectionCore {
    func requestClose() {
        shared.withLock { $0.closeRequested = true }
        wakeUp.signal()
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
}
