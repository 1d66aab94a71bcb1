public import IMAPCore

extension CompiledSearch {
    /// The command that runs this search on a server like `context`, newest first:
    /// `UID SORT (REVERSE ARRIVAL) UTF-8 keys` with SORT, `UID SEARCH RETURN (COUNT ALL) keys` with
    /// ESEARCH, else `UID SEARCH keys` (the caller sorts the UIDs descending).
    ///
    /// `CHARSET UTF-8` is sent only when a string is not ASCII and the server does not accept UTF-8
    /// in quoted strings (IMAP4rev2, `ENABLE UTF8=ACCEPT`).
    public func command(for context: SearchContext) -> Command {
        let keys = programKeys
        if context.capabilities.contains(.sort) {
            return .uidSort(criteria: [SortCriterion(.arrival, reversed: true)], charset: "UTF-8", keys: keys)
        }
        let charset = Self.isASCII(keys) || context.acceptsUTF8 ? nil : "UTF-8"
        if context.capabilities.contains(.esearch) {
            return .uidSearch(charset: charset, returnOptions: [.count, .all], keys: keys)
        }
        return .uidSearch(charset: charset, keys: keys)
    }

    /// The bytes of the command with `tag`, cut where a synchronizing literal waits for `+`.
    public func encode(tag: String, for context: SearchContext) -> [EncodedChunk] {
        CommandEncoder.encode(TaggedCommand(tag: tag, command: command(for: context)), options: context.encodingOptions)
    }

    /// The command as lines a person reads, without the tag: each CRLF ends a line, and the bytes
    /// of a literal start the next line (`UID SEARCH CHARSET UTF-8 FROM {7}`, then `Müller UNDELETED`).
    public func explanation(for context: SearchContext) -> [String] {
        let tag = "A"
        let bytes = encode(tag: tag, for: context).flatMap(\.bytes).dropFirst(tag.utf8.count + 1)
        return Self.lines(Array(bytes))
    }

    /// Whether every string in `keys` is ASCII, judged on the encoded bytes.
    static func isASCII(_ keys: [SearchKey]) -> Bool {
        var buffer = EncodeBuffer(options: EncodingOptions(literalMode: .literalPlus, utf8Quoted: true))
        buffer.write(keys)
        return buffer.bytesForDisplay.allSatisfy { $0 < 0x80 }
    }

    /// Cuts command bytes at each CRLF; after `{n}` or `{n+}` CRLF the next n bytes are literal
    /// content and belong to the next line whatever they contain.
    static func lines(_ bytes: [UInt8]) -> [String] {
        var lines: [String] = []
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n")
            else {
                index += 1
                continue
            }
            let line = Array(bytes[lineStart..<index])
            lines.append(String(decoding: line, as: UTF8.self))
            index += 2
            lineStart = index
            if let count = literalLength(endingAt: line) { index = min(bytes.count, index + count) }
        }
        if lineStart < bytes.count { lines.append(String(decoding: bytes[lineStart...], as: UTF8.self)) }
        return lines
    }

    /// n when `line` ends with `{n}` or `{n+}`.
    private static func literalLength(endingAt line: [UInt8]) -> Int? {
        guard line.last == UInt8(ascii: "}"), let open = line.lastIndex(of: UInt8(ascii: "{")) else { return nil }
        var digits = line[(open + 1)..<(line.count - 1)]
        if digits.last == UInt8(ascii: "+") { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(String(decoding: digits, as: UTF8.self))
    }
}

/// The exact command line(s) `query` becomes on a server like `context` (`mailsearch explain`),
/// without the tag.
///
/// `explain("from:alice is:unread", context: rev1)` is `["UID SEARCH FROM \"alice\" UNSEEN UNDELETED"]`.
public func explain(_ query: String, context: SearchContext) throws(QueryError) -> [String] {
    try QueryCompiler.compile(query, context: context).explanation(for: context)
}
