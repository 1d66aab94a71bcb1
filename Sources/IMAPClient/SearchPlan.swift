public import IMAPCore

/// How one search runs on a server: the command(s) the session sends, in order, and what it does
/// when the server refuses the charset (docs/query-language.md, "On the wire: what depends on the
/// server"). ``IMAPSession/search(_:in:ordered:)`` runs it and `mailsearch explain` prints it, so
/// what explain shows is what the session sends, by construction.
///
/// Newest first: `UID SORT (REVERSE ARRIVAL) UTF-8 keys` with SORT, `UID SEARCH RETURN (COUNT
/// ALL) keys` with ESEARCH, else `UID SEARCH keys` (the UIDs sorted descending here). `CHARSET
/// UTF-8` only when a string is not ASCII and the server takes no UTF-8 in quoted strings
/// (IMAP4rev2, `ENABLE UTF8=ACCEPT`). A UID set too long for one line is searched in parts.
///
/// ```
/// C: A4 UID SORT (REVERSE ARRIVAL) UTF-8 FROM "bob" UNDELETED
/// S: A4 NO [BADCHARSET (US-ASCII)] unknown charset
/// C: A5 UID SORT (REVERSE ARRIVAL) US-ASCII FROM "bob" UNDELETED
/// ```
public struct SearchPlan: Hashable, Sendable {
    /// One command of the plan, and what happens when the server refuses its charset.
    public struct Step: Hashable, Sendable {
        /// The command sent.
        public var command: Command
        /// What a refused charset (`NO [BADCHARSET]`, or a `BAD` that names the charset) leads
        /// to; nil when the command names no charset, where such an answer is an error like any other.
        public var whenCharsetRefused: CharsetRefusal?

        /// A step.
        public init(command: Command, whenCharsetRefused: CharsetRefusal?) {
            self.command = command
            self.whenCharsetRefused = whenCharsetRefused
        }
    }

    /// What the session does when the server refuses the charset of a step.
    public enum CharsetRefusal: Hashable, Sendable {
        /// Sends this command instead: the same search in US-ASCII (the keys are ASCII).
        case retry(Command)
        /// Fails with an error that says the server cannot search non-ASCII text.
        case fails
    }

    /// The commands, in order: one, or one per part of a UID set too long for one line (the parts
    /// are disjoint, so their UIDs and counts add up).
    public let steps: [Step]
    /// How the commands are written (quoted strings or literals, which literal).
    public let encodingOptions: EncodingOptions
    /// Whether the server sorts the answer (SORT): otherwise the UIDs are sorted here.
    public let sortsOnServer: Bool

    /// The plan for `keys` (none: every message) on a server with `capabilities` that has turned
    /// on `enabled` (ENABLE). With `ordered` false a plain UID SEARCH (ESEARCH when offered) runs
    /// even where SORT is there: the UIDs come highest first, which is all a caller that wants a
    /// set needs, and a server sorts 100,000 messages in a tenth of a second or more.
    public init(
        keys: [SearchKey], ordered: Bool = true, capabilities: Set<Capability>, enabled: Set<Capability>,
        maximumCommandLength: Int = IMAPConfiguration.defaultMaximumCommandLength
    ) {
        let keys = keys.isEmpty ? [SearchKey.all] : keys
        encodingOptions = .client(capabilities: capabilities, utf8Enabled: enabled.contains(.utf8Accept))
        sortsOnServer = ordered && capabilities.contains(.sort)
        let isASCII = keys.allSatisfy(\.isASCII)
        // UTF-8 goes in quoted strings exactly where it needs no CHARSET (IMAP4rev2, UTF8=ACCEPT).
        let acceptsUTF8 = encodingOptions.utf8Quoted
        let esearch = capabilities.contains(.esearch)
        let sortsOnServer = sortsOnServer
        func step(_ keys: [SearchKey]) -> Step {
            if sortsOnServer {
                let newestFirst = [SortCriterion(.arrival, reversed: true)]
                return Step(
                    command: .uidSort(criteria: newestFirst, charset: "UTF-8", keys: keys),
                    whenCharsetRefused: isASCII
                        ? .retry(.uidSort(criteria: newestFirst, charset: "US-ASCII", keys: keys)) : .fails)
            }
            let charset = isASCII || acceptsUTF8 ? nil : "UTF-8"
            return Step(
                command: .uidSearch(charset: charset, returnOptions: esearch ? [.count, .all] : nil, keys: keys),
                whenCharsetRefused: charset == nil ? nil : .fails)
        }
        steps = Self.parts(of: keys, maximumCommandLength: maximumCommandLength).map(step)
    }

    /// `keys`, or, when a UID set among them would make an over-long line (real servers refuse
    /// them), one copy per part of the set.
    private static func parts(of keys: [SearchKey], maximumCommandLength: Int) -> [[SearchKey]] {
        guard let index = keys.firstIndex(where: { if case .uid = $0 { true } else { false } }),
            case .uid(let set) = keys[index]
        else { return [keys] }
        let others = keys.enumerated().filter { $0.offset != index }.map(\.element)
        var probe = EncodeBuffer(options: EncodingOptions(literalMode: .literalPlus))
        for key in others { probe.write(key) }
        let budget = maximumCommandLength - 80 - probe.takeBytes().count
        let parts = set.split(maximumEncodedLength: max(budget, 64))
        guard parts.count > 1 else { return [keys] }
        return parts.map { [.uid($0)] + others }
    }

    /// The bytes of `command` with `tag`, as the session writes them, cut where a synchronizing
    /// literal waits for the server's `+`.
    public func encode(_ command: Command, tag: String) -> [EncodedChunk] {
        CommandEncoder.encode(TaggedCommand(tag: tag, command: command), options: encodingOptions)
    }
}

extension SearchKey {
    /// Whether every string in the key is 7-bit.
    var isASCII: Bool {
        switch self {
        case .bcc(let text), .body(let text), .cc(let text), .from(let text), .subject(let text), .text(let text),
            .to(let text):
            return text.isASCII
        case .header(let field, let value): return field.isASCII && value.isASCII
        case .not(let key): return key.isASCII
        case .or(let left, let right): return left.isASCII && right.isASCII
        case .and(let keys): return keys.allSatisfy { $0.isASCII }
        case .gmailRaw(let text): return text.bytes.allSatisfy { $0 < 0x80 }
        case .all, .answered, .before, .deleted, .draft, .flagged, .keyword, .larger, .new, .old, .on, .recent, .seen,
            .sentBefore, .sentOn, .sentSince, .since, .smaller, .uid, .unanswered, .undeleted, .undraft, .unflagged,
            .unkeyword, .unseen, .sequenceNumbers, .modificationSequence, .younger, .older, .filter, .savedBefore,
            .savedOn, .savedSince, .savedDateSupported:
            // Atoms, numbers and dates: never a charset's business.
            return true
        }
    }
}
