public import IMAPCore

/// Identifies one command the driver asked the state machine to run.
typealias CommandID = UInt64

/// The answer to a command: its tagged response and the untagged responses it claimed.
public struct CommandOutcome: Hashable, Sendable {
    public var tagged: TaggedResponse
    public var untagged: [UntaggedResponse]
    /// For EXPUNGE, UID EXPUNGE and MOVE: the UIDs the server reported removed while the command
    /// ran (VANISHED, or `* n EXPUNGE` mapped through the sequence-to-UID map), in the order
    /// reported, and how many EXPUNGEs named a sequence number whose UID the map did not know.
    var expungedUIDs: [UInt32] = []
    var unidentifiedExpunges = 0
}

/// A mailbox a command must act on: if another task selected something else in between, the
/// command fails with `.mailboxChanged` instead of running against the wrong mailbox.
public struct MailboxExpectation: Hashable, Sendable {
    public var name: MailboxName
    /// The UIDVALIDITY the caller's UIDs belong to, when it knows one.
    public var uidValidity: UInt32?

    public init(name: MailboxName, uidValidity: UInt32?) {
        self.name = name
        self.uidValidity = uidValidity
    }
}

/// What the driver asks the state machine to run.
struct CommandRequest: Sendable {
    var command: Command
    var claim: CommandClaim = .nothing
    /// Claimed FETCH responses are handed over one by one (`.yield`) instead of collected.
    var streams = false
    /// Commands of one stream (the windows of one fetch): they may be in flight together, their
    /// UID sets being disjoint and their answers going to the same place.
    var streamGroup: UInt64?
    var expectedMailbox: MailboxExpectation?
    /// Every `+` after the command's own literals goes to the driver as `.challenge` (SASL).
    var answersChallenges = false
    /// A search of every message of the selected mailbox: when it ends with OK, its UIDs become
    /// the sequence-to-UID map there and then, before any later response is applied, unless an
    /// EXISTS, EXPUNGE or VANISHED came between its answer and its end (the answer is then out
    /// of date, and the map is left as it was).
    var mapsAllUIDs = false
}
