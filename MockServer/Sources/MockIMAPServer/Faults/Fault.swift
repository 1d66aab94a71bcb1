/// Something a test makes the server do wrong, on purpose, when a `FaultRule`'s trigger matches
/// a command: answer late, never, with an error, in pieces, or with surprises before the answer.
///
/// ```swift
/// server.faults.add(FaultRule(
///     trigger: .command("UID STORE", occurrence: 2),
///     fault: .respond(.no, code: "UNAVAILABLE", text: "try later")))
/// // C: a7 UID STORE 4 +FLAGS (\Seen)      (the second UID STORE the server receives)
/// // S: a7 NO [UNAVAILABLE] try later
/// ```
public enum Fault: Sendable, Hashable {
    /// Waits this long before writing the command's responses (other sessions are not held up).
    case delay(Duration)
    /// Never answers the command, nor anything after it on that connection, until the client
    /// disconnects or the server stops.
    case stall
    /// Does not run the command; answers `tag NO [code] text`, `tag BAD [code] text`, or
    /// `* BYE [code] text` and closes the connection.
    case respond(Status, code: String? = nil, text: String)
    /// Runs the command, writes the first `bytes` bytes of its responses, then closes the
    /// connection.
    case closeAfter(bytes: Int)
    /// Runs the command and closes the connection halfway through the first literal of its
    /// responses (`* 1 FETCH (BODY[] {2048}` and 1024 of those bytes); a response without a
    /// literal is written whole, then the connection closes.
    case closeInLiteral
    /// Writes the command's responses one byte per write.
    case fragment
    /// Writes these untagged responses just before the command's tagged response (after its
    /// other responses when it has no tagged one yet, like IDLE's `+ idling`).
    case inject([UnsolicitedResponse])
    /// Before the command runs, gives a mailbox a fresh UIDVALIDITY, as if it were deleted and
    /// created again: the mailbox SELECT, EXAMINE or STATUS names, else the selected one.
    /// On LOGOUT this changes the mailbox the session leaves, so the next session that selects
    /// it sees the new UIDVALIDITY.
    case changeUIDValidity

    /// The status of a `respond` fault.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// `tag NO ...`: the command failed.
        case no = "NO"
        /// `tag BAD ...`: the command was not understood.
        case bad = "BAD"
        /// `* BYE ...`, then the connection closes.
        case bye = "BYE"
    }
}

/// An untagged response a `Fault.inject` writes before a tagged one (RFC 3501 7).
public enum UnsolicitedResponse: Sendable, Hashable {
    /// `* n EXISTS`.
    case exists(Int)
    /// `* n EXPUNGE`.
    case expunge(Int)
    /// `* n FETCH (FLAGS (flags))`.
    case fetchFlags(Int, [String])
    /// `* BYE text` (the connection stays open: use `Fault.respond(.bye, ...)` to close it).
    case bye(String)
    /// Any line, as it is, without CRLF (`* 3 RECENT`).
    case line(String)

    /// The line on the wire, without CRLF.
    public var line: String {
        switch self {
        case .exists(let count): return "* \(count) EXISTS"
        case .expunge(let sequence): return "* \(sequence) EXPUNGE"
        case .fetchFlags(let sequence, let flags):
            return "* \(sequence) FETCH (FLAGS (\(flags.joined(separator: " "))))"
        case .bye(let text): return "* BYE \(text)"
        case .line(let line): return line
        }
    }
}
