/// What STORE does to the flags (RFC 3501 6.4.6): add, remove or replace, and whether the server
/// reports the new flags.
///
/// `C: c2 UID STORE 4 -FLAGS.SILENT (\Seen)` is `StoreFlags(.remove, silent: true, flags: [.seen])`.
public struct StoreFlags: Hashable, Sendable {
    /// How the flags are changed.
    public enum Operation: Hashable, Sendable {
        /// `+FLAGS`: add the flags.
        case add
        /// `-FLAGS`: remove the flags.
        case remove
        /// `FLAGS`: replace all flags with these.
        case replace
    }

    /// How the flags are changed.
    public var operation: Operation
    /// `.SILENT`: the server does not send the resulting FETCH FLAGS.
    public var silent: Bool
    /// The flags.
    public var flags: [Flag]

    /// A flag change.
    public init(_ operation: Operation, silent: Bool = false, flags: [Flag]) {
        self.operation = operation
        self.silent = silent
        self.flags = flags
    }
}

extension ByteCursor {
    // store-att-flags = (["+" / "-"] "FLAGS" [".SILENT"]) SP (flag-list / (flag *(SP flag)))
    /// The flag part of STORE.
    public mutating func parseStoreFlags() throws(IMAPParseError) -> StoreFlags {
        try attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> StoreFlags in
            let operation: StoreFlags.Operation
            if cursor.consume(UInt8(ascii: "+")) {
                operation = .add
            } else if cursor.consume(UInt8(ascii: "-")) {
                operation = .remove
            } else {
                operation = .replace
            }
            try cursor.expectCaseInsensitive("FLAGS")
            let silent = cursor.consumeCaseInsensitive(".SILENT")
            try cursor.expectSpace()
            if cursor.peek == UInt8(ascii: "(") {
                return StoreFlags(operation, silent: silent, flags: try cursor.parseFlagList())
            }
            var flags = [try cursor.parseFlag()]
            while true {
                let saved = cursor.index
                guard cursor.skipSpaces(), let next = cursor.peek, next != UInt8(ascii: "\r"),
                    next != UInt8(ascii: "\n")
                else {
                    cursor.index = saved
                    break
                }
                flags.append(try cursor.parseFlag())
            }
            return StoreFlags(operation, silent: silent, flags: flags)
        }
    }
}

extension EncodeBuffer {
    /// Writes `[+|-]FLAGS[.SILENT] (flags)`.
    public mutating func write(_ storeFlags: StoreFlags) {
        switch storeFlags.operation {
        case .add: writeRaw("+FLAGS")
        case .remove: writeRaw("-FLAGS")
        case .replace: writeRaw("FLAGS")
        }
        if storeFlags.silent { writeRaw(".SILENT") }
        writeSpace()
        write(storeFlags.flags)
    }
}
