import IMAPCore

/// What a `MailboxConnection`'s tasks and calls share: the listener, the classification of
/// failures, and the small values its tasks hold.
extension MailboxConnection {
    /// What the listener waits for next: the session, or the attempt to connect (a reconnect
    /// after `loss`); nil when the connection is gone. The connection is let go on return.
    private static func nextAttempt(
        _ connection: Weak<MailboxConnection>, after loss: IMAPError?
    ) async throws(IMAPError) -> Attempt? {
        guard let owner = connection.value else { return nil }
        if let loss { return try await owner.reconnectAttempt(after: loss) }
        return try await owner.sessionOrAttempt()
    }

    /// Reads the session's events and tells the watchers. The connection is held only to hand
    /// over an event or to start a reconnect, never while waiting.
    static func listen(_ connection: Weak<MailboxConnection>) async {
        var loss: IMAPError?
        while !Task.isCancelled {
            let session: IMAPSession
            do throws(IMAPError) {
                guard let attempt = try await nextAttempt(connection, after: loss) else { return }
                session = try await Self.session(from: attempt)
            } catch {
                return
            }
            // A reconnect made for this task restarted listening (this task is cancelled, the
            // loop ends); if the session was replaced some other way, this task reads the new one.
            if Task.isCancelled { return }
            loss = nil
            do {
                for try await event in session.events() {
                    if Task.isCancelled { return }
                    guard let owner = connection.value else { return }
                    await owner.broadcast(.mailbox(event))
                }
                return
            } catch  where isConnectionLoss(error) {
                loss = error
            } catch {
                await connection.value?.broadcast(.failed(error))
                return
            }
        }
    }

    static func isConnectionLoss(_ error: IMAPError) -> Bool {
        [.connection, .timeout, .bye, .refused, .protocolViolation, .notIMAP].contains(error.code)
    }

    /// A failure that a new connection may not have (a lost connection, or the server saying
    /// it is temporarily unavailable).
    static func isTransient(_ error: IMAPError) -> Bool { isConnectionLoss(error) || error.code == .unavailable }

    static func isApplied(_ operation: StoreFlags.Operation, _ flags: [Flag], to current: [Flag]) -> Bool {
        let have = Set(current.map { $0.description.lowercased() })
        let wanted = flags.map { $0.description.lowercased() }
        switch operation {
        case .add: return wanted.allSatisfy(have.contains)
        case .remove: return wanted.allSatisfy { !have.contains($0) }
        case .replace: return Set(wanted) == have.subtracting(["\\recent"])
        }
    }

    /// The error for a STORE that reached the server (perhaps) without an answer, whose flags
    /// could not be read back.
    static func outcomeUnknown(_ error: IMAPError) -> IMAPError {
        IMAPError(
            .outcomeUnknown,
            "the connection broke before the server confirmed the flag change, and the flags could not be read back (\(error.message)); the change may or may not have been made: read the flags again before retrying",
            serverText: error.serverText, responseCode: error.responseCode, transportCode: error.transportCode)
    }
}

extension IMAPSession {
    /// Whether the session can still run commands (checked without a suspension).
    nonisolated var isUsable: Bool { !connectionEnded.load(ordering: .relaxed) }

    /// The mailbox's UIDs in ascending order, when the session's map is complete.
    func completeUIDMap() -> [UInt32]? {
        guard let tracker = machine.tracker, tracker.isMapComplete else { return nil }
        return tracker.uids
    }
}

/// A weak reference, for the tasks a connection owns: they must not keep it alive.
struct Weak<Object: AnyObject & Sendable>: Sendable {
    weak var value: Object?

    init(_ value: Object?) { self.value = value }
}

/// A small deterministic random generator (SplitMix64) for jitter that tests can replay.
struct SplitMix: Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
