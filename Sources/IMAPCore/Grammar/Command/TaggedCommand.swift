/// A command with the tag the client chose for it (RFC 3501 2.2.1).
///
/// `C: a8 SELECT INBOX (CONDSTORE)` is `TaggedCommand(tag: "a8", command: .select("INBOX", parameters: [.condStore]))`.
public struct TaggedCommand: Hashable, Sendable {
    /// The tag; the server's completion response carries it.
    public var tag: String
    /// The command.
    public var command: Command

    /// A command with `tag`.
    public init(tag: String, command: Command) {
        self.tag = tag
        self.command = command
    }
}

extension ByteCursor {
    // command = tag SP (command-any / command-auth / command-nonauth / command-select) CRLF
    // tag = 1*<any ASTRING-CHAR except "+">
    /// A whole command line (with its literals) up to and including the CRLF.
    public mutating func parseTaggedCommand() throws(IMAPParseError) -> TaggedCommand {
        try attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> TaggedCommand in
            let tag = try cursor.parseTag()
            try cursor.expectSpace()
            let command = try cursor.parseCommand()
            try cursor.expectCRLF()
            guard cursor.isAtEnd else {
                throw cursor.error(.unexpectedByte, "expected nothing after the end of the command")
            }
            return TaggedCommand(tag: tag, command: command)
        }
    }
}

extension EncodeBuffer {
    /// Writes `tag SP command CRLF`; a synchronizing literal inside ends a chunk.
    public mutating func write(_ command: TaggedCommand) {
        writeRaw(command.tag)
        writeSpace()
        write(command.command)
        writeCRLF()
    }
}
