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
    /// `* n EXISTS`: the mailbox now holds `n` messages (new mail when it grows).
    case messageCount(UInt32)
    /// `* n EXPUNGE`: the message with sequence number `n` was removed.
    case expunged(sequenceNumber: UInt32)
    /// `* VANISHED uids` (QRESYNC): these UIDs were removed.
    case vanished(SequenceSet)
    /// A message's flags changed (`* n FETCH (FLAGS (...))`).
    case flagsChanged(sequenceNumber: UInt32, uid: UInt32?, flags: [Flag], modificationSequence: UInt64?)
    /// `* OK [ALERT] text` or `* NO text`: a message from the server for the user.
    case alert(String)
}

/// What a STORE changed.
public struct StoreResult: Hashable, Sendable {
    /// UIDs the server refused because they changed since UNCHANGEDSINCE (`[MODIFIED ...]`).
    public var refused: SequenceSet?
    /// The new flags per UID, as the server reported them (empty with `.SILENT`).
    public var flags: [UInt32: [Flag]]

    public init(refused: SequenceSet?, flags: [UInt32: [Flag]]) {
        self.refused = refused
        self.flags = flags
    }
}
