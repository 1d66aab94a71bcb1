extension MailboxConnection {
    /// How reconnecting behaves.
    public struct ReconnectPolicy: Sendable {
        /// The first wait before reconnecting.
        public var initialDelay: Duration
        /// The longest wait between two attempts.
        public var maximumDelay: Duration
        /// How many attempts in a row before giving up (the error goes to the caller).
        public var maximumAttempts: Int
        /// The longest a reconnect keeps trying, from its first attempt: no attempt starts after
        /// it (the wait before the last one is cut short to end there), so a call against a
        /// server that went away fails within about this long plus one attempt's connect time,
        /// however slowly each attempt fails. nil: only ``maximumAttempts`` bounds it.
        public var maximumTotalWait: Duration?
        /// Seeds the jitter, for tests that replay; nil = a random seed.
        public var jitterSeed: UInt64?

        /// The default: 8 attempts, waiting 0.2 s before the first and twice as long before each
        /// next one up to 30 s, each wait scaled by a random 0.5-1x (26-51 s of waiting in all),
        /// and never trying for longer than 60 s.
        public init(
            initialDelay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(30),
            maximumAttempts: Int = 8, maximumTotalWait: Duration? = .seconds(60), jitterSeed: UInt64? = nil
        ) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.maximumAttempts = maximumAttempts
            self.maximumTotalWait = maximumTotalWait
            self.jitterSeed = jitterSeed
        }

        /// Reconnects for as long as the connection is open (the caller waits meanwhile): for
        /// a long-lived program (a screen, a watcher), waiting at most `interval` between two
        /// attempts once the backoff reaches it.
        public static func untilClosed(retryingEvery interval: Duration = .seconds(30)) -> ReconnectPolicy {
            ReconnectPolicy(
                initialDelay: min(.milliseconds(200), interval), maximumDelay: interval, maximumAttempts: .max,
                maximumTotalWait: nil)
        }

        /// Whether the policy never gives up.
        public var retriesForever: Bool { maximumAttempts == .max }

        /// The first attempt (1-based) whose wait, before jitter, is the longest one: from there
        /// on, retries come about every ``maximumDelay``.
        public var firstAttemptAtMaximumDelay: Int {
            var attempt = 1
            var wait = initialDelay
            while wait < maximumDelay && attempt < 62 {
                wait = wait * 2
                attempt += 1
            }
            return attempt
        }

        /// The wait before attempt `attempt` (0-based): `initialDelay * 2^attempt`, capped, then
        /// scaled by a jitter factor in [0.5, 1).
        func delay(attempt: Int, jitter: Double) -> Duration {
            let exponent = min(attempt, 30)
            let base = initialDelay * (1 << exponent)
            let capped = base > maximumDelay ? maximumDelay : base
            return capped * (0.5 + 0.5 * jitter)
        }
    }
}
