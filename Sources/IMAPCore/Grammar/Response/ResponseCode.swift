/// A response code: the bracketed part of a status response (RFC 3501 7.1, RFC 9051 7.1,
/// RFC 4315, RFC 5530, RFC 7162).
///
/// ```
/// S: * OK [UIDVALIDITY 1796004237] UIDs valid
/// S: c3 OK [MODIFIED 5] Conditional store failed
/// ```
public enum ResponseCode: Hashable, Sendable {
    case alert
    case authenticationFailed
    /// `BADCHARSET` with the charsets the server supports, if it lists them.
    case badCharset([ByteString])
    case capability([Capability])
    case parse
    case permanentFlags([Flag])
    case readOnly
    case readWrite
    case tryCreate
    case uidNext(UInt32)
    case uidValidity(UInt32)
    case unseen(UInt32)
    case highestModificationSequence(UInt64)
    case noModificationSequence
    /// `MODIFIED set`: the messages a conditional STORE did not change.
    case modified(SequenceSet)
    /// `APPENDUID uidvalidity uids`.
    case appendUID(uidValidity: UInt32, uids: SequenceSet)
    /// `COPYUID uidvalidity source destination`.
    case copyUID(uidValidity: UInt32, source: SequenceSet, destination: SequenceSet)
    case closed
    /// `UIDNOTSTICKY`.
    case uidNotSticky
    /// Any other code (RFC 5530 codes such as `UNAVAILABLE`, `NONEXISTENT`, `SERVERBUG`, or a
    /// server's own), with the bytes after its name up to `]`.
    case other(name: String, value: ByteString?)
}
