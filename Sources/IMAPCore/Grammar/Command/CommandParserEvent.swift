/// What `CommandParser.next()` found in the client's bytes.
public enum CommandParserEvent: Hashable, Sendable {
    /// A complete command.
    case command(TaggedCommand)
    /// The client announced a synchronizing literal `{n}` and waits: the server must send a
    /// continuation request (`+ Ready`) or refuse the command with `tag BAD`.
    case continuationNeeded(literalSize: Int)
    /// A line of a SASL exchange (mode `.authentication`), without its CRLF: base64 text, or `*`
    /// when the client cancels (RFC 3501 6.2.2).
    case authenticationResponse(ByteString)
    /// The `DONE` that ends IDLE (mode `.idle`); the parser is back in `.command` mode.
    case idleDone
}
