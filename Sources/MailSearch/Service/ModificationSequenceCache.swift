/// The MODSEQ of the messages seen most recently, in two generations of at most ``limit``
/// each: what a flag change needs (a message one can act on was fetched lately: it is on
/// screen), without a map of every message ever fetched, which scrolling 100,000 messages
/// would make. A message forgotten is stored without UNCHANGEDSINCE.
struct ModificationSequenceCache: Sendable {
    /// How many a generation holds before it becomes the older one.
    static let limit = 4096
    private var current: [UInt32: UInt64] = [:]
    private var previous: [UInt32: UInt64] = [:]

    /// The MODSEQ last seen for `uid`, if remembered.
    subscript(uid: UInt32) -> UInt64? {
        get { current[uid] ?? previous[uid] }
        set {
            guard let newValue else {
                current[uid] = nil
                previous[uid] = nil
                return
            }
            current[uid] = newValue
            if current.count >= Self.limit {
                previous = current
                current = [:]
            }
        }
    }
}
