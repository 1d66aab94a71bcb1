/// An ESEARCH response (RFC 4731, RFC 9051 7.3.4):
/// `* ESEARCH (TAG "b1") UID MIN 45 MAX 19977 COUNT 3 ALL 45:46,53`.
public struct ExtendedSearchResponse: Hashable, Sendable {
    /// The tag of the command this answers.
    public var tag: String?
    /// Whether the numbers are UIDs.
    public var isUID: Bool
    public var min: UInt32?
    public var max: UInt32?
    public var count: UInt32?
    public var all: SequenceSet?
    /// `MODSEQ n` (RFC 7162).
    public var modificationSequence: UInt64?
    /// Return data this parser does not know, as name and raw value.
    public var other: [ExtendedSearchOtherValue]

    public init(
        tag: String? = nil, isUID: Bool = false, min: UInt32? = nil, max: UInt32? = nil, count: UInt32? = nil,
        all: SequenceSet? = nil, modificationSequence: UInt64? = nil, other: [ExtendedSearchOtherValue] = []
    ) {
        self.tag = tag
        self.isUID = isUID
        self.min = min
        self.max = max
        self.count = count
        self.all = all
        self.modificationSequence = modificationSequence
        self.other = other
    }

    /// The matching numbers, highest first, when ALL was returned.
    public var descendingNumbers: [UInt32] { (all?.numbers ?? []).reversed() }
}

/// An ESEARCH return item this parser does not know.
public struct ExtendedSearchOtherValue: Hashable, Sendable {
    public var name: String
    public var raw: ByteString

    public init(name: String, raw: ByteString) {
        self.name = name
        self.raw = raw
    }
}
