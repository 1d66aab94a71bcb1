/// The server side of the command grammar: turns the bytes a client sends, in any chunking, into
/// commands (RFC 3501 6, RFC 9051 6).
///
/// ```
/// var parser = CommandParser()
/// parser.append(bytesFromSocket)
/// while let event = try parser.next() { ... }
/// ```
/// A synchronizing literal `{n}` gives `.continuationNeeded` before the command is complete: the
/// server sends `+` and the client goes on. During a SASL exchange and during IDLE the lines are
/// not commands; the server sets `mode` so they come out as `.authenticationResponse` and
/// `.idleDone`. A bad command throws `CommandParseError` with its tag; it has been consumed, so
/// the next `next()` continues with the following command.
public struct CommandParser: Sendable {
    /// How the parser reads the next line.
    public enum Mode: Hashable, Sendable {
        /// Lines are tagged commands.
        case command
        /// Lines are SASL responses (after an AUTHENTICATE that the server continued with `+`);
        /// the server sets `.command` again when the exchange ends.
        case authentication
        /// The only valid line is `DONE` (after IDLE was accepted with `+ idling`); it switches the
        /// parser back to `.command`.
        case idle
    }

    /// How the next line is read. Set by the server as the session moves between states.
    public var mode: Mode = .command
    /// Limits in force. A server may change them between commands: a tighter literal limit
    /// before login keeps a client that has not authenticated from making it buffer megabytes.
    public var options: ParserOptions {
        didSet { decoder.options = options }
    }
    private var decoder: FrameDecoder

    /// A parser with `options`.
    public init(options: ParserOptions = .init()) {
        self.options = options
        self.decoder = FrameDecoder(options: options)
    }

    /// Adds bytes that arrived from the client.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        decoder.append(bytes)
    }

    /// Bytes that have arrived but are not part of a complete command yet.
    public var bufferedByteCount: Int { decoder.bufferedByteCount }

    /// Whether the command just refused announced a non-synchronizing literal over the limit,
    /// whose bytes the client sends anyway (they are thrown away as they come). A server may
    /// rather close the connection than read them.
    public var isDiscardingRefusedLiteral: Bool { decoder.isDiscardingRefusedLiteral }

    /// Takes the bytes not yet parsed (after STARTTLS, bytes sent before the handshake must be
    /// thrown away).
    public mutating func takeUnframedBytes() -> [UInt8] { decoder.takeUnframedBytes() }

    /// The next event, or nil when more bytes are needed (the parser keeps its place).
    public mutating func next() throws(CommandParseError) -> CommandParserEvent? {
        let event: FrameDecoder.Event?
        do {
            event = try decoder.next()
        } catch {
            let tag = mode == .command ? Self.tag(in: decoder.refusedFramePrefix[...]) : nil
            throw CommandParseError(tag: tag, underlying: error)
        }
        guard let event else { return nil }
        switch event {
        case .synchronizingLiteral(let size):
            return .continuationNeeded(literalSize: size)
        case .frame(let frame):
            return try handle(frame)
        }
    }

    private mutating func handle(_ frame: Frame) throws(CommandParseError) -> CommandParserEvent {
        switch mode {
        case .command:
            var cursor = ByteCursor(frame.bytes, options: options, streamOffset: frame.streamOffset)
            do {
                return .command(try cursor.parseTaggedCommand())
            } catch {
                throw CommandParseError(tag: Self.tag(in: frame.bytes[...]), underlying: error)
            }
        case .authentication:
            return .authenticationResponse(ByteString(Self.withoutLineEnd(frame.bytes)))
        case .idle:
            // idle-done = "DONE" CRLF   (RFC 2177 / RFC 9051 idle)
            let line = ByteString(Self.withoutLineEnd(frame.bytes))
            guard line.equalsCaseInsensitive("DONE") else {
                throw CommandParseError(
                    tag: nil,
                    underlying: IMAPParseError(
                        code: .unexpectedByte, message: "expected DONE to end IDLE", frame: frame.bytes,
                        offsetInFrame: 0, streamOffset: frame.streamOffset))
            }
            mode = .command
            return .idleDone
        }
    }

    /// The line without its CRLF (or bare LF).
    private static func withoutLineEnd(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var end = bytes.endIndex
        if end > 0 && bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > 0 && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return bytes[..<end]
    }

    /// The tag at the start of a command line: tag characters followed by a space.
    static func tag(in bytes: ArraySlice<UInt8>) -> String? {
        var position = bytes.startIndex
        while position < bytes.endIndex && CharacterClass.table[Int(bytes[position])].contains(.tag) {
            position += 1
        }
        guard position > bytes.startIndex, position < bytes.endIndex, bytes[position] == UInt8(ascii: " ") else {
            return nil
        }
        return String(decoding: bytes[bytes.startIndex..<position], as: UTF8.self)
    }
}
