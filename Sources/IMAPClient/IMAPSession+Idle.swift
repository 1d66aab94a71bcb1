import IMAPCore

/// The IDLE loop's state, kept by the session actor.
struct IdleState {
    var isIdling = false
    var interruptRequested = false
    var stopRequested = false
    var running = false
    var generation = 0
    var wake: CheckedContinuation<Void, Never>?
    var bufferedEvents: [MailboxEvent] = []
}

extension IMAPSession {
    /// Mailbox events as they happen (RFC 2177 IDLE), until the consumer stops (breaks out of its
    /// loop or is cancelled): then IDLE is ended with DONE.
    ///
    /// The session renews IDLE before `idleRenewal` (29 minutes at most), ends it with DONE when
    /// the consumer stops or when another command is issued (and resumes it afterwards), and polls
    /// with NOOP every `pollInterval` when the server has no IDLE.
    public func events() -> MessageStream<MailboxEvent> {
        let stream = MessageStream<MailboxEvent>(capacity: 10_000, wakeThreshold: 1) {
            Task { await self.stopIdle() }
        }
        idle.stopRequested = false
        idle.running = true
        Task { await self.idleLoop(stream) }
        return stream
    }

    private func idleLoop(_ stream: MessageStream<MailboxEvent>) async {
        await setEventSink(stream)
        while !idle.stopRequested && !stream.isConsumerGone {
            if let failure {
                stream.finish(throwing: failure)
                break
            }
            do {
                if capabilities.contains(.idle) {
                    try await idleOnce()
                } else {
                    try await run(.noop)
                    await waitForIdleWake(timeout: configuration.timeouts.pollInterval)
                    idle.interruptRequested = false
                }
            } catch {
                stream.finish(throwing: error)
                break
            }
        }
        stream.finish()
        await setEventSink(nil)
        idle.running = false
    }

    private func idleOnce() async throws(IMAPError) {
        let tag = try await send(.idle, claims: { _ in false })
        do {
            _ = try await awaitIdleAccepted(tag: tag)
        } catch {
            leaveGate(.idle)
            throw error
        }
        idle.isIdling = true
        logger.debug("idling")
        await waitForIdleWake(timeout: configuration.timeouts.idleRenewal)
        idle.isIdling = false
        idle.interruptRequested = false
        defer { leaveGate(.idle) }
        logger.trace("C: DONE")
        try await write(CommandEncoder.encodeIdleDone())
        let tagged = try await completion(of: tag)
        try Self.check(tagged, command: .idle)
    }

    private func awaitIdleAccepted(tag: String) async throws(IMAPError) -> ContinuationRequest {
        try await continuationRequest(for: tag)
    }

    /// Sleeps until the renewal timer fires, a command wants the connection, or the consumer stops.
    func waitForIdleWake(timeout: Duration) async {
        idle.generation += 1
        let generation = idle.generation
        Task {
            try? await Task.sleep(for: timeout)
            self.wakeIdleLoop(generation: generation)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if idle.stopRequested || idle.interruptRequested || failure != nil {
                continuation.resume()
            } else {
                idle.wake = continuation
            }
        }
    }

    func wakeIdleLoop(generation: Int? = nil) {
        if let generation, generation != idle.generation { return }
        idle.wake?.resume()
        idle.wake = nil
    }

    func requestIdleInterruption() {
        idle.interruptRequested = true
        wakeIdleLoop()
    }

    func stopIdle() {
        idle.stopRequested = true
        wakeIdleLoop()
    }
}
