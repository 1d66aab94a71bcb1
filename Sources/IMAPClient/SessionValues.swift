public import IMAPCore

/// The state of the selected mailbox, kept up to date from the server's responses.
public struct SelectedMailbox: Hashable, Sendable {
    public var name: MailboxName
    public var isReadOnly: Bool
    public var uidValidity: UInt32?
    public var uidNext: UInt32?
    public var messageCount: UInt32
    public var recentCount: UInt32
    public var firstUnseen: UInt32?
    /// FLAGS: the flags and keywords in use.
    public var flags: [Flag]
    /// PERMANENTFLAGS: what may be stored (`\*` = new keywords allowed).
    public var permanentFlags: [Flag]
    /// HIGHESTMODSEQ (CONDSTORE), nil with NOMODSEQ or without CONDSTORE.
    public var highestModificationSequence: UInt64?

    public init(name: MailboxName, isReadOnly: Bool) {
        self.name = name
        self.isReadOnly = isReadOnly
        self.messageCount = 0
        self.recentCount = 0
        self.flags = []
        self.permanentFlags = []
    }
}

/// Something that happened in the selected mailbox, reported while idling or polling.
public enum MailboxEvent: Hashable, Sendable {
    /// `* n EXISTS`: the mailbox now holds `n` messages.
    case messageCount(UInt32)
    /// New messages arrived, with these UIDs (fetched by the session after EXISTS grew).
    case arrived(SequenceSet)
    /// These UIDs were removed (`* n EXPUNGE` mapped to its UID, or `* VANISHED` under QRESYNC).
    case expunged(SequenceSet)
    /// A message's flags changed (`* n FETCH (FLAGS (...))`), by UID.
    case flagsChanged(uid: UInt32, flags: [Flag], modificationSequence: UInt64?)
    /// The mailbox was re-created on the server: every cached UID of it is void.
    case uidValidityChanged(mailbox: MailboxName, old: UInt32, new: UInt32)
    /// Events were missed (the listener fell too far behind, or the server named a message the
    /// session could not map to a UID): resynchronise the mailbox.
    case resyncNeeded
    /// `* OK [ALERT] text` or `* NO text`: a message from the server for the user.
    case alert(String)
}

/// The answer to a search: the matching UIDs, newest first, and how many there are.
public struct SearchResult: Hashable, Sendable {
    /// The matching UIDs, newest first.
    public var uids: [UInt32]
    /// How many messages match (ESEARCH COUNT when the server reports it, else `uids.count`).
    public var count: Int

    public init(uids: [UInt32], count: Int) {
        self.uids = uids
        self.count = count
    }
}

/// What a STORE changed.
public struct StoreResult: Hashable, Sendable {
    /// UIDs the server refused because they changed since UNCHANGEDSINCE (`[MODIFIED ...]`).
    public var refused: SequenceSet?
    /// The new flags per UID, as the server reported them (empty with `.SILENT`).
    public var flags: [UInt32: [Flag]]
    /// The new MODSEQ per UID, when the server reported it (CONDSTORE).
    public var modificationSequences: [UInt32: UInt64]

    public init(refused: SequenceSet?, flags: [UInt32: [Flag]], modificationSequences: [UInt32: UInt64] = [:]) {
        self.refused = refused
        self.flags = flags
        self.modificationSequences = modificationSequences
    }
}

/// What a client remembers of a mailbox between connections, to resynchronise it (RFC 7162).
public struct KnownMailboxState: Hashable, Sendable {
    /// The UIDVALIDITY the cached UIDs belong to.
    public var uidValidity: UInt32
    /// The HIGHESTMODSEQ when the cache was last in step (CONDSTORE/QRESYNC), if known.
    public var highestModificationSequence: UInt64?
    /// The UIDs the cache holds (QRESYNC sends VANISHED only for these), if any.
    public var uids: SequenceSet?

    public init(uidValidity: UInt32, highestModificationSequence: UInt64?, uids: SequenceSet? = nil) {
        self.uidValidity = uidValidity
        self.highestModificationSequence = highestModificationSequence
        self.uids = uids
    }
}
