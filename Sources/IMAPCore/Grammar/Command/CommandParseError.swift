/// A command the server cannot accept: the grammar was broken, a limit was exceeded, or the
/// command is unknown. It carries the tag when the line had one, so the server can answer
/// `tag BAD <message>`; the bad command has been consumed and the next one parses normally.
///
/// `C: c5 BOGUS` gives `tag == "c5"`, code `unknownCommand`; `S: c5 BAD unknown command BOGUS`.
public struct CommandParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The tag of the refused command, or nil when the line had none (or was not a command).
    public let tag: String?
    /// The protocol error, with its offset and excerpt.
    public let underlying: IMAPParseError

    /// An error for the command tagged `tag`.
    public init(tag: String?, underlying: IMAPParseError) {
        self.tag = tag
        self.underlying = underlying
    }

    /// The kind of error.
    public var code: IMAPParseError.Code { underlying.code }

    /// What was wrong, in words fit for a BAD response.
    public var message: String { underlying.message }

    /// The tag (or `*`) and the underlying description.
    public var description: String { "\(tag ?? "*"): \(underlying.description)" }
}
