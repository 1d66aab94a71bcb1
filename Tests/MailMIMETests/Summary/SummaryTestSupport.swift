extension String {
    /// The text with every LF made CRLF, as stored messages are.
    var withCRLF: String { split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n") }
}
