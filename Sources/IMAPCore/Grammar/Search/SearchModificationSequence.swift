/// The argument of the MODSEQ search key (RFC 7162 3.1.5): messages whose mod-sequence is at
/// least `value`, optionally for the metadata of one flag only.
///
/// `C: a UID SEARCH MODSEQ "/flags/\\draft" all 620162338` has entry `(\Draft, .all)` and value
/// 620162338.
public struct SearchModificationSequence: Hashable, Sendable {
    /// Which flag's mod-sequence is compared, and for which users.
    public struct Entry: Hashable, Sendable {
        /// `entry-type-req`: whose metadata counts.
        public enum EntryType: Hashable, Sendable {
            /// `priv`: the user's private flags.
            case `private`
            /// `shared`: flags shared among users.
            case shared
            /// `all`: both.
            case all
        }

        /// The flag whose metadata entry (`/flags/<flag>`) is meant.
        public var flag: Flag
        /// Whose metadata counts.
        public var type: EntryType

        /// An entry for `flag` of `type`.
        public init(flag: Flag, type: EntryType) {
            self.flag = flag
            self.type = type
        }
    }

    /// The flag entry, or nil for the message as a whole.
    public var entry: Entry?
    /// The smallest mod-sequence that matches (0 matches every message).
    public var value: UInt64

    /// A MODSEQ criterion.
    public init(entry: Entry? = nil, value: UInt64) {
        self.entry = entry
        self.value = value
    }
}

extension ByteCursor {
    // search-modsequence = "MODSEQ" [search-modseq-ext] SP mod-sequence-valzer
    // search-modseq-ext = SP entry-name SP entry-type-req
    // entry-name = entry-flag-name
    // entry-flag-name = DQUOTE "/flags/" attr-flag DQUOTE
    // entry-type-req = entry-type-resp / "all"
    // entry-type-resp = "priv" / "shared"
    // mod-sequence-valzer = "0" / mod-sequence-value
    /// The arguments of MODSEQ, after `MODSEQ SP`.
    public mutating func parseSearchModificationSequence() throws(IMAPParseError) -> SearchModificationSequence {
        try attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> SearchModificationSequence in
            var entry: SearchModificationSequence.Entry?
            if cursor.peek == UInt8(ascii: "\"") {
                let nameStart = cursor.index
                let name = try cursor.parseQuoted()
                let prefix = Array("/flags/".utf8)
                guard name.count > prefix.count,
                    name.bytes.prefix(prefix.count).elementsEqual(prefix, by: { $0 | 0x20 == $1 | 0x20 })
                else {
                    cursor.index = nameStart
                    throw cursor.error(.unexpectedByte, "expected a MODSEQ entry name \"/flags/<flag>\"")
                }
                let flag = Flag(String(decoding: name.bytes.dropFirst(prefix.count), as: UTF8.self))
                try cursor.expectSpace()
                let type: SearchModificationSequence.Entry.EntryType
                if cursor.consumeCaseInsensitive("priv") {
                    type = .private
                } else if cursor.consumeCaseInsensitive("shared") {
                    type = .shared
                } else if cursor.consumeCaseInsensitive("all") {
                    type = .all
                } else {
                    throw cursor.error(.unexpectedByte, "expected a MODSEQ entry type (priv, shared or all)")
                }
                try cursor.expectSpace()
                entry = SearchModificationSequence.Entry(flag: flag, type: type)
            }
            return SearchModificationSequence(entry: entry, value: try cursor.parseNumber64())
        }
    }
}

extension EncodeBuffer {
    /// Writes the arguments of MODSEQ (without the `MODSEQ` keyword).
    public mutating func write(_ modificationSequence: SearchModificationSequence) {
        if let entry = modificationSequence.entry {
            writeQuoted(Array("/flags/\(entry.flag.rawValue)".utf8))
            switch entry.type {
            case .private: writeRaw(" priv ")
            case .shared: writeRaw(" shared ")
            case .all: writeRaw(" all ")
            }
        }
        writeNumber(modificationSequence.value)
    }
}
