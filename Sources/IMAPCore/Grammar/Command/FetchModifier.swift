/// A modifier after the data items of FETCH (RFC 4466 `fetch-modifier`, RFC 7162 CONDSTORE/QRESYNC).
///
/// `C: c9 UID FETCH 1:10 (FLAGS) (CHANGEDSINCE 1)` has the modifier `.changedSince(1)`.
public enum FetchModifier: Hashable, Sendable {
    /// `CHANGEDSINCE n`: only messages whose mod-sequence is above n (RFC 7162 3.1.4.1).
    case changedSince(UInt64)
    /// `VANISHED`: also report expunged UIDs, with CHANGEDSINCE in UID FETCH (RFC 7162 3.2.6).
    case vanished
}

extension ByteCursor {
    // fetch-modifier = chgsince-fetch-mod / rexpunges-fetch-mod
    // chgsince-fetch-mod = "CHANGEDSINCE" SP mod-sequence-value
    // rexpunges-fetch-mod = "VANISHED"
    /// One FETCH modifier.
    public mutating func parseFetchModifier() throws(IMAPParseError) -> FetchModifier {
        if consumeCaseInsensitive("CHANGEDSINCE") {
            try expectSpace()
            return .changedSince(try parseNumber64())
        }
        if consumeCaseInsensitive("VANISHED") { return .vanished }
        throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected a FETCH modifier (CHANGEDSINCE or VANISHED)")
    }

    // fetch-modifiers = SP "(" fetch-modifier *(SP fetch-modifier) ")"
    /// The parenthesized FETCH modifiers (after the SP).
    public mutating func parseFetchModifiers() throws(IMAPParseError) -> [FetchModifier] {
        try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> FetchModifier in
            try cursor.parseFetchModifier()
        }
    }
}

extension EncodeBuffer {
    /// Writes one FETCH modifier.
    public mutating func write(_ modifier: FetchModifier) {
        switch modifier {
        case .changedSince(let modificationSequence):
            writeRaw("CHANGEDSINCE ")
            writeNumber(modificationSequence)
        case .vanished:
            writeRaw("VANISHED")
        }
    }
}
