import IMAPCore

extension ClientStateMachine {
    /// Where the connection is (RFC 3501 3): each case carries only what can be true in it, so a
    /// selected mailbox or IDLE before authentication, or a command accepted after the end, cannot
    /// be written down.
    enum Phase: Sendable {
        /// No LOGIN or AUTHENTICATE has succeeded yet. `selecting` is the mailbox a SELECT sent
        /// anyway is opening (after PREAUTH or a login this machine did not see: its OK proves
        /// the session authenticated).
        case notAuthenticated(selecting: MailboxTracker?)
        /// Authenticated, perhaps with a mailbox selected, perhaps idling.
        case authenticated(Authenticated)
        /// Failed, or closed after BYE: nothing is queued or in flight and nothing is accepted.
        case ended(Ended)
    }

    /// Where IDLE is (RFC 2177).
    enum IdlePhase: Hashable, Sendable {
        case off
        /// `tag IDLE` sent, waiting for `+`.
        case starting(tag: String)
        /// Idling; DONE ends it.
        case idling(tag: String)
        /// DONE sent, waiting for the tagged response.
        case ending(tag: String)
    }

    /// What is true of an authenticated connection (RFC 3501 3.2 and 3.3).
    struct Authenticated: Sendable {
        /// The selected mailbox, kept true from every response.
        var tracker: MailboxTracker?
        /// The mailbox a SELECT or EXAMINE in flight is opening; it becomes `tracker` on OK.
        var selecting: MailboxTracker?
        /// Where IDLE is (RFC 2177: a command of the authenticated and selected states).
        var idle: IdlePhase = .off
        /// When the last `IDLE` was written: its `+` is waited for from then.
        var idleSentAt: Moment?
    }

    /// What an ended connection still tells: why it ended, and what it had learned.
    struct Ended: Sendable {
        let failure: IMAPError
        let wasAuthenticated: Bool
        /// The mailbox selected when it ended: a reconnect takes its UID map and MODSEQ.
        let lastSelected: MailboxTracker?
    }

    /// Whether the session has ended: the phase's case alone, no payload read (this runs for
    /// every response; reading `failure` copied the whole phase, trackers and all).
    var hasEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    /// Whether the session is idling (IDLE accepted with `+`).
    var isIdling: Bool {
        if case .idling = idle { return true }
        return false
    }

    var isAuthenticated: Bool {
        switch phase {
        case .notAuthenticated: return false
        case .authenticated: return true
        case .ended(let ended): return ended.wasAuthenticated
        }
    }

    /// The selected mailbox, kept true from every response.
    var tracker: MailboxTracker? {
        switch phase {
        case .notAuthenticated: return nil
        case .authenticated(let state): return state.tracker
        case .ended(let ended): return ended.lastSelected
        }
    }

    /// The error that ended the session, once it ended.
    var failure: IMAPError? {
        if case .ended(let ended) = phase { return ended.failure }
        return nil
    }

    var idle: IdlePhase {
        if case .authenticated(let state) = phase { return state.idle }
        return .off
    }

    /// The mailbox a SELECT in flight is opening, in either live phase.
    var selecting: MailboxTracker? {
        switch phase {
        case .notAuthenticated(let selecting): return selecting
        case .authenticated(let state): return state.selecting
        case .ended: return nil
        }
    }
}

extension ClientStateMachine.Phase {
    /// Runs `body` on the authenticated case's fields in place; nil in the other cases. The
    /// phase is consumed and rebuilt, so its payload is moved, never copied: a copy retained every
    /// reference of both trackers, and this runs for each FETCH response of a listing.
    @inline(__always) mutating func updateAuthenticated<Result>(
        _ body: (inout ClientStateMachine.Authenticated) -> Result
    ) -> Result? {
        switch consume self {
        case .authenticated(var state):
            let result = body(&state)
            self = .authenticated(state)
            return result
        case let other:
            self = other
            return nil
        }
    }
}
