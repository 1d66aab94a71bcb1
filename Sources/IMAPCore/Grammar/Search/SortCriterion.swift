/// One sort key of SORT, optionally reversed (RFC 5256 3, RFC 5957 DISPLAY keys).
///
/// `C: b3 UID SORT (REVERSE DATE) UTF-8 SUBJECT "invoice"` sorts by `SortCriterion(.date, reversed: true)`.
public struct SortCriterion: Hashable, Sendable {
    /// What to sort by.
    public enum Key: Hashable, Sendable, CaseIterable {
        /// `ARRIVAL`: INTERNALDATE.
        case arrival
        /// `CC`: the first Cc address's mailbox.
        case cc
        /// `DATE`: the Date header.
        case date
        /// `FROM`: the first From address's mailbox.
        case from
        /// `SIZE`: RFC822.SIZE.
        case size
        /// `SUBJECT`: the base subject.
        case subject
        /// `TO`: the first To address's mailbox.
        case to
        /// `DISPLAYFROM`: the first From address's display name (RFC 5957).
        case displayFrom
        /// `DISPLAYTO`: the first To address's display name (RFC 5957).
        case displayTo

        /// The name as it goes on the wire.
        public var name: String {
            switch self {
            case .arrival: return "ARRIVAL"
            case .cc: return "CC"
            case .date: return "DATE"
            case .from: return "FROM"
            case .size: return "SIZE"
            case .subject: return "SUBJECT"
            case .to: return "TO"
            case .displayFrom: return "DISPLAYFROM"
            case .displayTo: return "DISPLAYTO"
            }
        }
    }

    /// What to sort by.
    public var key: Key
    /// Whether the order is reversed (`REVERSE`).
    public var reversed: Bool

    /// A criterion; `reversed` puts the largest first.
    public init(_ key: Key, reversed: Bool = false) {
        self.key = key
        self.reversed = reversed
    }
}

extension ByteCursor {
    // sort-criterion = ["REVERSE" SP] sort-key
    // sort-key = "ARRIVAL" / "CC" / "DATE" / "FROM" / "SIZE" / "SUBJECT" / "TO"
    // sort-key =/ "DISPLAYFROM" / "DISPLAYTO"   ; RFC 5957
    /// One sort criterion.
    public mutating func parseSortCriterion() throws(IMAPParseError) -> SortCriterion {
        try attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> SortCriterion in
            var reversed = false
            if cursor.consumeCaseInsensitive("REVERSE") {
                try cursor.expectSpace()
                reversed = true
            }
            let start = cursor.index
            let name = String(decoding: try cursor.parseAtom(), as: UTF8.self).uppercased()
            guard let key = SortCriterion.Key.allCases.first(where: { $0.name == name }) else {
                cursor.index = start
                throw cursor.error(.unexpectedByte, "unknown sort key \(name)")
            }
            return SortCriterion(key, reversed: reversed)
        }
    }

    // sort-criteria = "(" sort-criterion *(SP sort-criterion) ")"
    /// The parenthesized sort criteria (at least one).
    public mutating func parseSortCriteria() throws(IMAPParseError) -> [SortCriterion] {
        let start = index
        let criteria = try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> SortCriterion in
            try cursor.parseSortCriterion()
        }
        guard !criteria.isEmpty else {
            index = start
            throw error(.unexpectedByte, "SORT needs at least one sort key")
        }
        return criteria
    }
}

extension EncodeBuffer {
    /// Writes `[REVERSE ]key`.
    public mutating func write(_ criterion: SortCriterion) {
        if criterion.reversed { writeRaw("REVERSE ") }
        writeRaw(criterion.key.name)
    }
}
