/// One entry of an address list (RFC 5322 section 3.4): a mailbox, or the start or end of a group,
/// laid out like IMAP's ENVELOPE addresses (RFC 3501 7.4.2).
///
/// ```
/// To: Mary Smith <mary@x.test>, undisclosed-recipients:;
/// // [mailbox "Mary Smith" mary@x.test, groupStart "undisclosed-recipients", groupEnd]
/// ```
public struct MailAddress: Hashable, Sendable {
    /// What an entry is.
    public enum Kind: Hashable, Sendable {
        /// A mailbox: a display name and an address.
        case mailbox
        /// The start of a group; `mailbox` and `name` hold the group's name.
        case groupStart
        /// The end of a group; every field is nil.
        case groupEnd
    }

    /// Mailbox, group start or group end.
    public var kind: Kind
    /// The display name (or group name), RFC 2047 decoded; for an `addr-spec` followed by a
    /// comment, the comment (`bob@x.test (Bob)`).
    public var name: String?
    /// The display name as written: quotes removed, words joined by single spaces, encoded words
    /// kept.
    public var rawName: String?
    /// The obsolete source route (`@a,@b`), when present.
    public var route: String?
    /// The local part; for a group start, the group name as written; nil when missing.
    public var mailbox: String?
    /// The domain; nil when missing.
    public var host: String?
    /// False when the entry had to be repaired (missing `@domain`, unterminated `<`, ...).
    public var isValid: Bool

    /// An address entry.
    public init(
        kind: Kind = .mailbox, name: String? = nil, rawName: String? = nil, route: String? = nil,
        mailbox: String?, host: String?, isValid: Bool = true
    ) {
        self.kind = kind
        self.name = name
        self.rawName = rawName ?? name
        self.route = route
        self.mailbox = mailbox
        self.host = host
        self.isValid = isValid
    }

    /// `mailbox@host`, or nil for a group marker or an address without both.
    public var address: String? {
        guard kind == .mailbox, let mailbox, let host, !host.isEmpty else { return nil }
        return mailbox + "@" + host
    }
}

/// Parses address lists (RFC 5322 section 3.4, with the obsolete forms of section 4.4) leniently:
/// a missing `@domain`, a missing `<` or `>`, stray commas, comments and quoted names all yield a
/// best-effort entry, never a failure.
///
/// ```
/// AddressParser.parse(#""Smith, John" <john@x.test>, bob@y.test (Bob)"#)
/// // [("Smith, John", john@x.test), ("Bob", bob@y.test)]
/// ```
public enum AddressParser {
    /// The entries of an address list header value (From, To, Cc, Bcc, Reply-To, Sender).
    public static func parse(_ value: String) -> [MailAddress] { parse(bytes: Array(value.utf8)) }

    /// The entries of an address list given as raw header bytes (read as UTF-8, else
    /// Windows-1252).
    public static func parse(bytes: some Collection<UInt8>) -> [MailAddress] {
        parseRaw(Array(bytes)[...]).map { raw in
            func text(_ bytes: [UInt8]?) -> String? {
                bytes.map { Charset.decode($0, charset: "unknown-8bit") ?? String(decoding: $0, as: UTF8.self) }
            }
            let rawName = text(raw.kind == .groupStart ? raw.mailbox : raw.name)
            return MailAddress(
                kind: raw.kind, name: rawName.map(EncodedWords.decode), rawName: rawName, route: text(raw.route),
                mailbox: text(raw.mailbox), host: raw.domain.flatMap { $0.isEmpty ? nil : text($0) },
                isValid: !raw.hasInvalidSyntax)
        }
    }

    /// One entry as written, byte for byte: what an IMAP ENVELOPE shows.
    package struct RawAddress: Hashable, Sendable {
        /// Mailbox, group start or group end.
        package var kind: MailAddress.Kind
        /// The display name as written (phrase words joined by single spaces, unquoted).
        package var name: [UInt8]?
        /// The source route (`@a,@b`).
        package var route: [UInt8]?
        /// The local part; for a group start, the group's name.
        package var mailbox: [UInt8]?
        /// Nil or empty when missing.
        package var domain: [UInt8]?
        /// The `<@route:` part could not be read.
        package var hasInvalidRoute = false
        /// The `<...>` part could not be read (Dovecot then reports the domain `SYNTAX_ERROR`).
        package var hasBrokenAngleAddress = false
        /// The entry was repaired.
        package var hasInvalidSyntax = false

        init(kind: MailAddress.Kind = .mailbox) { self.kind = kind }
    }

    /// The entries of an address list, byte for byte.
    package static func parseRaw(_ value: ArraySlice<UInt8>) -> [RawAddress] {
        var parser = Parser(value)
        return parser.parseAll()
    }

    /// The recursive-descent parser over one header value.
    private struct Parser {
        var lexer: HeaderLexer
        var current = RawAddress()
        var result: [RawAddress] = []
        /// The text being collected (a local part, a phrase).
        var text: [UInt8] = []
        static let maximumEntries = 10_000

        init(_ value: ArraySlice<UInt8>) {
            lexer = HeaderLexer(value)
            lexer.lastComment = []
        }

        private var atEnd: Bool { lexer.isAtEnd }

        private func at(_ byte: UInt8) -> Bool { lexer.peek(is: byte) }

        private mutating func add() {
            result.append(current)
            current = RawAddress()
        }

        /// Fills nothing in (the caller decides what a missing part shows as) but marks the
        /// entry invalid when its local part or domain is missing.
        private mutating func addMailbox() {
            if current.mailbox == nil { current.hasInvalidSyntax = true }
            if current.domain?.isEmpty ?? true { current.hasInvalidSyntax = true }
            add()
        }

        // address-list = (address *("," address)) / obs-addr-list
        mutating func parseAll() -> [RawAddress] {
            guard lexer.skipWhitespaceAndComments() == .more else { return [] }
            var count = 0
            while count < Self.maximumEntries {
                count += 1
                if parseAddress() == .end { break }
                guard at(UInt8(ascii: ",")) else { break }
                lexer.index += 1
                let outcome = lexer.skipWhitespaceAndComments()
                if outcome != .more {
                    if outcome == .failed { addMailbox() }
                    break
                }
            }
            return result
        }

        // address = mailbox / group
        private mutating func parseAddress() -> HeaderLexer.Outcome {
            let start = lexer.index
            let group = parseGroup()
            if group != .failed { return group }
            lexer.index = start
            return parseMailbox()
        }

        // group = display-name ":" [group-list] ";" [CFWS]
        // group-list = mailbox-list / CFWS / obs-group-list
        private mutating func parseGroup() -> HeaderLexer.Outcome {
            text = []
            guard lexer.readPhrase(into: &text) == .more, at(UInt8(ascii: ":")) else { return .failed }
            lexer.index += 1
            var outcome = lexer.skipWhitespaceAndComments()
            if outcome != .more { current.hasInvalidSyntax = true }
            current.kind = .groupStart
            current.mailbox = text
            add()
            if outcome == .more, !at(UInt8(ascii: ";")) {
                while true {
                    _ = parseMailbox()
                    guard at(UInt8(ascii: ",")) else { break }
                    lexer.index += 1
                    if lexer.skipWhitespaceAndComments() != .more {
                        outcome = .failed
                        break
                    }
                }
            }
            if outcome != .failed {
                if at(UInt8(ascii: ";")) {
                    lexer.index += 1
                    outcome = lexer.skipWhitespaceAndComments()
                } else {
                    outcome = .failed
                }
            }
            current.kind = .groupEnd
            if outcome == .failed { current.hasInvalidSyntax = true }
            add()
            return outcome == .end ? .end : .more
        }

        // mailbox = name-addr / addr-spec
        private mutating func parseMailbox() -> HeaderLexer.Outcome {
            let start = lexer.index
            var outcome = parseNameAddress()
            if outcome == .failed {
                lexer.index = start
                outcome = parseAddressSpecification()
                if current.hasInvalidSyntax, current.name == nil, current.mailbox != nil, current.domain == nil {
                    current.name = current.mailbox
                    current.mailbox = nil
                }
            }
            if outcome == .failed { current.hasInvalidSyntax = true }
            addMailbox()
            return outcome
        }

        // name-addr = [display-name] angle-addr
        // display-name = phrase
        private mutating func parseNameAddress() -> HeaderLexer.Outcome {
            text = []
            guard lexer.readPhrase(into: &text) == .more, at(UInt8(ascii: "<")) else { return .failed }
            current.name = text.isEmpty ? nil : text
            if parseAngleAddress() == .failed {
                current.hasBrokenAngleAddress = true
                current.hasInvalidSyntax = true
            }
            return atEnd ? .end : .more
        }

        // angle-addr = [CFWS] "<" addr-spec ">" [CFWS] / obs-angle-addr
        // obs-angle-addr = [CFWS] "<" obs-route addr-spec ">" [CFWS]
        // obs-route = obs-domain-list ":"
        private mutating func parseAngleAddress() -> HeaderLexer.Outcome {
            lexer.index += 1
            guard lexer.skipWhitespaceAndComments() == .more else { return .failed }
            if at(UInt8(ascii: "@")) {
                if parseRoute() == .more, at(UInt8(ascii: ":")) {
                    lexer.index += 1
                } else {
                    current.hasInvalidRoute = true
                    if atEnd { return .failed }
                }
                guard lexer.skipWhitespaceAndComments() == .more else { return .failed }
            }
            if !at(UInt8(ascii: ">")) {
                guard parseLocalPart() == .more else { return .failed }
                if at(UInt8(ascii: "@")) {
                    guard parseDomain() == .more else { return .failed }
                }
            }
            guard at(UInt8(ascii: ">")) else { return .failed }
            lexer.index += 1
            return lexer.skipWhitespaceAndComments()
        }

        // obs-domain-list = *(CFWS / ",") "@" domain *("," [CFWS] ["@" domain])
        private mutating func parseRoute() -> HeaderLexer.Outcome {
            var route: [UInt8] = []
            while true {
                guard !atEnd else { return .end }
                guard at(UInt8(ascii: "@")) else { break }
                if !route.isEmpty { route.append(UInt8(ascii: ",")) }
                route.append(UInt8(ascii: "@"))
                let outcome = lexer.readDomain(into: &route)
                guard outcome == .more else { return outcome }
                while lexer.skipWhitespaceAndComments() == .more, at(UInt8(ascii: ",")) { lexer.index += 1 }
            }
            current.route = route
            return .more
        }

        // addr-spec = local-part "@" domain
        private mutating func parseAddressSpecification() -> HeaderLexer.Outcome {
            lexer.lastComment = []
            let isQuoted = at(UInt8(ascii: "\""))
            var outcome = parseLocalPart()
            if outcome == .failed || outcome == .end { current.hasInvalidSyntax = true }
            var domainOutcome: HeaderLexer.Outcome?
            if outcome != .end, at(UInt8(ascii: "@")) {
                let parsed = parseDomain()
                domainOutcome = parsed
                if parsed != .more { outcome = parsed }
            }
            if let comment = lexer.lastComment, !comment.isEmpty {
                current.name = comment
            } else if domainOutcome == nil {
                // A word without @domain: the mailbox when alone, else the start of a display
                // name without an address ("Alice Example").
                text.append(0x20)
                let length = text.count
                _ = lexer.readPhrase(into: &text)
                if text.count != length {
                    current.mailbox = nil
                    current.name = text
                } else if !isQuoted {
                    current.domain = []
                }
                current.hasInvalidSyntax = true
                outcome = .failed
            }
            return outcome
        }

        // local-part = dot-atom / quoted-string / obs-local-part
        private mutating func parseLocalPart() -> HeaderLexer.Outcome {
            text = []
            let outcome =
                at(UInt8(ascii: "\"")) ? lexer.readQuotedString(into: &text) : lexer.readLenientLocalPart(into: &text)
            guard outcome != .failed else { return .failed }
            current.mailbox = text
            return outcome
        }

        // domain = dot-atom / domain-literal / obs-domain
        private mutating func parseDomain() -> HeaderLexer.Outcome {
            var domain: [UInt8] = []
            let outcome = lexer.readDomain(into: &domain)
            guard outcome != .failed else { return .failed }
            current.domain = domain
            return outcome
        }
    }
}
