public import IMAPClient
import IMAPCore

extension CompiledSearch {
    /// What the session sends for this search on a server like `context`, newest first: the
    /// very ``SearchPlan`` that `IMAPSession.search` builds from these keys and runs.
    public func plan(for context: SearchContext) -> SearchPlan {
        SearchPlan(keys: programKeys, capabilities: context.capabilities, enabled: context.enabledCapabilities)
    }
}

extension SearchPlan {
    /// The line `explain` prints before what is sent instead when the server refuses the charset.
    public static let charsetRefusedHeading = "# if the server refuses the charset (BADCHARSET), instead:"

    /// The plan as lines a person reads (`mailsearch explain`): each command as the session
    /// writes it, without the tag; each CRLF ends a line, and the bytes of a literal start the
    /// next line (`UID SEARCH CHARSET UTF-8 FROM {7}`, then `Müller UNDELETED`). A command the
    /// session sends only when the server refuses the charset follows
    /// ``charsetRefusedHeading``.
    public var explanation: [String] {
        var lines: [String] = []
        for step in steps {
            lines += self.lines(of: step.command)
            switch step.whenCharsetRefused {
            case .retry(let command)?:
                lines.append(Self.charsetRefusedHeading)
                lines += self.lines(of: command)
            case .fails?, nil: break
            }
        }
        return lines
    }

    /// The lines of `command` as encoded, without the tag.
    private func lines(of command: Command) -> [String] {
        let tag = "A"
        let bytes = encode(command, tag: tag).flatMap(\.bytes).dropFirst(tag.utf8.count + 1)
        return Self.lines(Array(bytes))
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
    try QueryCompiler.compile(query, context: context).plan(for: context).explanation
}
