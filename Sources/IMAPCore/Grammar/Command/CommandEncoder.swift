/// The client side of the command grammar: commands to bytes, cut where a synchronizing literal
/// must wait for the server's `+`.
///
/// ```
/// let chunks = CommandEncoder.encode(command, options: .client(capabilities: serverCapabilities))
/// // send chunks[0]; if it waitsForContinuation, wait for "+" before sending chunks[1]; ...
/// ```
/// `C: a SEARCH CHARSET UTF-8 FROM {7}` is one chunk that waits; `Müller` and the CRLF follow.
public enum CommandEncoder {
    /// The bytes of `command`, ending with CRLF, cut into chunks at synchronizing literals.
    public static func encode(_ command: TaggedCommand, options: EncodingOptions) -> [EncodedChunk] {
        var buffer = EncodeBuffer(options: options)
        buffer.write(command)
        return buffer.takeChunks()
    }

    /// `DONE` CRLF: what the client sends to end IDLE (RFC 2177).
    public static func encodeIdleDone() -> [UInt8] { Array("DONE\r\n".utf8) }

    /// One line of a SASL exchange: the base64 `response` (empty for an empty response) and CRLF.
    public static func encodeAuthenticationResponse(_ response: ByteString) -> [UInt8] {
        Array(response.bytes) + [UInt8(ascii: "\r"), UInt8(ascii: "\n")]
    }

    /// `*` CRLF: the client cancels a SASL exchange (RFC 3501 6.2.2).
    public static func encodeAuthenticationCancel() -> [UInt8] { Array("*\r\n".utf8) }
}
