/// A cursor over the bytes of one header field value, reading the lexical tokens of RFC 5322
/// section 3.2 and RFC 2045 section 5.1 the lenient way real mail needs.
///
/// The functions follow one convention, so a parser built from them reads like the grammar:
/// each returns `.more` when bytes are left after the token (and the comments and white space
/// after it), `.end` when the value is used up, and `.failed` when the token is malformed. Line
/// breaks of a folded value are white space; a comment's text can be captured, since an
/// `addr-spec` followed by `(Name)` uses it as the display name.
struct HeaderLexer {
    /// What a lexing step left behind.
    enum Outcome: Equatable {
        case failed
        case end
        case more
    }

    /// The value; indices are those of the slice (of the message's bytes), nothing is copied.
    let bytes: ArraySlice<UInt8>
    var index: Int
    let endIndex: Int
    /// The text of the last comment skipped, kept only when not nil.
    var lastComment: [UInt8]?

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
        self.endIndex = bytes.endIndex
    }

    var isAtEnd: Bool { index >= endIndex }
    var peek: UInt8? { index < endIndex ? bytes[index] : nil }

    func peek(is byte: UInt8) -> Bool { index < endIndex && bytes[index] == byte }

    // MARK: Character classes

    /// Bit 1: `atext` (RFC 5322 3.2.3; every byte from 0x80 up counts, for UTF-8 and raw 8-bit
    /// text). Bit 2: also a MIME `token` character (RFC 2045: `atext` without `/`, `=`, `?`).
    private static let classes: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = 3 }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = 3 }
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = 3 }
        for byte in 0x80...0xFF { table[byte] = 3 }
        for byte in "!#$%&'*+-^_`{|}~".utf8 { table[Int(byte)] = 3 }
        for byte in "/=?".utf8 { table[Int(byte)] = 1 }
        return table
    }()

    /// `atext = ALPHA / DIGIT / "!" / "#" / ... / "~"` (and 8-bit bytes).
    static func isAtext(_ byte: UInt8) -> Bool { classes[Int(byte)] != 0 }

    /// A MIME `token` character, or `.` (which mailers leave unquoted in parameter values).
    static func isTokenCharacter(_ byte: UInt8) -> Bool { classes[Int(byte)] & 2 != 0 || byte == UInt8(ascii: ".") }

    // MARK: White space and comments

    // CFWS = (1*([FWS] comment) [FWS]) / FWS
    // FWS = ([*WSP CRLF] 1*WSP) / obs-FWS
    /// Skips white space, line breaks and comments; `.failed` for a comment without its `)`.
    @discardableResult
    mutating func skipWhitespaceAndComments() -> Outcome {
        while index < endIndex {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D, 0x0A:
                index += 1
            case UInt8(ascii: "("):
                if skipComment() == .failed { return .failed }
            default:
                return .more
            }
        }
        return .end
    }

    // comment = "(" *([FWS] ccontent) [FWS] ")"
    // ccontent = ctext / quoted-pair / comment
    /// Skips the comment at the cursor (nested comments included), keeping its text without the
    /// outer parentheses and the backslashes of quoted pairs in `lastComment` when that is kept.
    private mutating func skipComment() -> Outcome {
        var depth = 1
        index += 1
        var text: [UInt8] = []
        let keepsText = lastComment != nil
        if keepsText { lastComment = [] }
        while index < endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "("):
                depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 {
                    index += 1
                    if keepsText { lastComment = text }
                    return index < endIndex ? .more : .end
                }
            case UInt8(ascii: "\\"):
                index += 1
                guard index < endIndex else { return .failed }
                if keepsText { text.append(bytes[index]) }
                index += 1
                continue
            default:
                break
            }
            if keepsText { text.append(byte) }
            index += 1
        }
        return .failed
    }

    // MARK: Tokens

    // atom = [CFWS] 1*atext [CFWS]
    /// Appends an atom to `output`; `.failed` when the cursor is not at `atext`.
    mutating func readAtom(into output: inout [UInt8]) -> Outcome {
        guard index < endIndex, Self.isAtext(bytes[index]) else { return .failed }
        let start = index
        while index < endIndex, Self.isAtext(bytes[index]) { index += 1 }
        output.append(contentsOf: bytes[start..<index])
        return skipWhitespaceAndComments()
    }

    // dot-atom = [CFWS] dot-atom-text [CFWS]
    // dot-atom-text = 1*atext *("." 1*atext)
    /// Appends a dot-atom to `output`, allowing white space and comments around the dots as
    /// RFC 822 did. Strict about the dots, as a domain must be: `.x.org`, `x..org` and
    /// `x.org.` fail (what was read stays in `output`).
    mutating func readDotAtom(into output: inout [UInt8]) -> Outcome {
        guard index < endIndex, Self.isAtext(bytes[index]) else { return .failed }
        while true {
            let start = index
            while index < endIndex, Self.isAtext(bytes[index]) { index += 1 }
            guard index > start else { return .failed }
            output.append(contentsOf: bytes[start..<index])
            let outcome = skipWhitespaceAndComments()
            guard outcome == .more else { return outcome }
            guard bytes[index] == UInt8(ascii: ".") else { return .more }
            index += 1
            output.append(UInt8(ascii: "."))
            guard skipWhitespaceAndComments() == .more else { return .failed }
        }
    }

    // local-part = dot-atom / quoted-string / obs-local-part
    // obs-local-part = word *("." word)
    /// Appends an unquoted local part to `output`, with dots anywhere: at the start, at the
    /// end, two in a row (`.user`, `user.`, `us..er`), which RFC 5322 forbids but real mail
    /// (commonly in Japan) has, and which Dovecot reads. White space and comments may follow an
    /// atom, not a dot. `.failed` when something else than an atom follows a dot.
    mutating func readLenientLocalPart(into output: inout [UInt8]) -> Outcome {
        guard index < endIndex else { return .failed }
        var outcome = Outcome.failed
        repeat {
            while index < endIndex, bytes[index] == UInt8(ascii: ".") {
                output.append(UInt8(ascii: "."))
                index += 1
                // A local part that ends the value: its @domain is missing.
                guard index < endIndex else { return .end }
                outcome = .more
            }
            if bytes[index] == UInt8(ascii: "@") { break }
            outcome = readAtom(into: &output)
        } while outcome == .more && bytes[index] == UInt8(ascii: ".")
        return outcome
    }

    // token = 1*<any (US-ASCII) CHAR except SPACE, CTLs, or tspecials>     ; RFC 2045 5.1
    /// Appends a MIME token (possibly empty; dots allowed) to `output`.
    mutating func readToken(into output: inout [UInt8]) -> Outcome {
        let start = index
        while index < endIndex, Self.isTokenCharacter(bytes[index]) { index += 1 }
        output.append(contentsOf: bytes[start..<index])
        return index < endIndex ? skipWhitespaceAndComments() : .end
    }

    // quoted-string = [CFWS] DQUOTE *([FWS] qcontent) [FWS] DQUOTE [CFWS]
    // qcontent = qtext / quoted-pair ; quoted-pair = ("\" (VCHAR / WSP)) / obs-qp
    /// Appends the content of the quoted string at the cursor (at its `"`) to `output`: quoted
    /// pairs lose their backslash, line breaks of folding are removed (the white space after them
    /// stays). `.failed` without the closing quote.
    mutating func readQuotedString(into output: inout [UInt8]) -> Outcome {
        index += 1
        var start = index
        while index < endIndex {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                output.append(contentsOf: bytes[start..<index])
                index += 1
                return skipWhitespaceAndComments()
            case 0x0A:
                var contentEnd = index
                if contentEnd > start, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                output.append(contentsOf: bytes[start..<contentEnd])
                start = index + 1
            case UInt8(ascii: "\\"):
                index += 1
                guard index < endIndex else { return .failed }
                output.append(contentsOf: bytes[start..<(index - 1)])
                start = index
            default:
                break
            }
            index += 1
        }
        return .failed
    }

    /// Appends a run of `atext` and dots to `output` (one word of an obsolete phrase).
    private mutating func readAtomOrDots(into output: inout [UInt8]) -> Outcome {
        let start = index
        while index < endIndex, Self.isAtext(bytes[index]) || bytes[index] == UInt8(ascii: ".") { index += 1 }
        output.append(contentsOf: bytes[start..<index])
        return index < endIndex ? skipWhitespaceAndComments() : .end
    }

    // phrase = 1*word / obs-phrase
    // word = atom / quoted-string
    // obs-phrase = word *(word / "." / CFWS)
    /// Appends a phrase to `output`, its words joined by single spaces; quoted strings are
    /// unquoted and RFC 2047 encoded words are kept as they are. `.end` for nothing to read;
    /// `.failed` when it starts with a dot.
    mutating func readPhrase(into output: inout [UInt8]) -> Outcome {
        guard index < endIndex else { return .end }
        guard bytes[index] != UInt8(ascii: ".") else { return .failed }
        while true {
            let outcome =
                bytes[index] == UInt8(ascii: "\"")
                ? readQuotedString(into: &output) : readAtomOrDots(into: &output)
            guard outcome == .more else { return outcome }
            let next = bytes[index]
            guard Self.isAtext(next) || next == UInt8(ascii: "\"") || next == UInt8(ascii: ".") else { break }
            output.append(0x20)
        }
        return skipWhitespaceAndComments()
    }

    // domain-literal = [CFWS] "[" *([FWS] dtext) [FWS] "]" [CFWS]
    /// Appends the domain literal at the cursor (at its `[`), brackets included.
    private mutating func readDomainLiteral(into output: inout [UInt8]) -> Outcome {
        let start = index
        while index < endIndex {
            if bytes[index] == UInt8(ascii: "\\") {
                index += 1
                if index >= endIndex { break }
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                output.append(contentsOf: bytes[start..<index])
                return skipWhitespaceAndComments()
            }
            index += 1
        }
        return .failed
    }

    // domain = dot-atom / domain-literal / obs-domain
    /// Appends the domain after the `@` at the cursor to `output`.
    mutating func readDomain(into output: inout [UInt8]) -> Outcome {
        index += 1
        guard skipWhitespaceAndComments() == .more else { return .failed }
        if bytes[index] == UInt8(ascii: "[") { return readDomainLiteral(into: &output) }
        return readDotAtom(into: &output)
    }

    // content := "Content-Type" ":" type "/" subtype *(";" parameter)     ; RFC 2045 5.1
    /// Reads `type "/" subtype` into `output` as `type/subtype` (as far as it goes when it is
    /// malformed); `.failed` when either is missing.
    mutating func readMediaType(into output: inout [UInt8]) -> Outcome {
        guard skipWhitespaceAndComments() == .more else { return .failed }
        guard readToken(into: &output) == .more else { return .failed }
        guard bytes[index] == UInt8(ascii: "/") else { return .failed }
        index += 1
        guard skipWhitespaceAndComments() == .more else { return .failed }
        output.append(UInt8(ascii: "/"))
        return readToken(into: &output)
    }

    // parameter := attribute "=" value ; attribute := token ; value := token / quoted-string
    /// Reads `; attribute = value` at the cursor. `nil` with `.end` at the end of the value;
    /// `nil` with `.failed` when no parameter starts here (the caller may skip a byte and
    /// retry). A missing value is empty; a value that starts with `=` (an unquoted RFC 2047
    /// word, as some mailers write) runs to the next `;` or white space.
    mutating func readParameter() -> (MIMESyntax.WrittenParameter?, Outcome) {
        guard index < endIndex else { return (nil, .end) }
        guard bytes[index] == UInt8(ascii: ";") else { return (nil, .failed) }
        index += 1
        guard skipWhitespaceAndComments() == .more else { return (nil, .failed) }
        var attribute: [UInt8] = []
        guard readToken(into: &attribute) == .more else { return (nil, .failed) }
        guard bytes[index] == UInt8(ascii: "=") else { return (nil, .failed) }
        index += 1
        var value: [UInt8] = []
        let outcome: Outcome
        let afterEquals = skipWhitespaceAndComments()
        if afterEquals != .more {
            outcome = afterEquals
        } else if bytes[index] == UInt8(ascii: "\"") {
            outcome = readQuotedString(into: &value)
        } else if bytes[index] == UInt8(ascii: "=") {
            let start = index
            while index < endIndex, ![UInt8(ascii: ";"), 0x20, 0x09, 0x0D, 0x0A].contains(bytes[index]) { index += 1 }
            value.append(contentsOf: bytes[start..<index])
            outcome = .more
        } else {
            outcome = readToken(into: &value)
        }
        guard outcome != .failed else { return (nil, .failed) }
        return (MIMESyntax.WrittenParameter(name: attribute, value: value), .more)
    }

    /// Every parameter from the cursor on, and whether a malformed one was skipped.
    ///
    /// By default a malformed parameter is skipped a byte at a time until the next one parses,
    /// as Dovecot does, which loses the parameter right after it (`; junk; charset=x` loses
    /// `charset`). `resynchronizing` skips to the next `;` instead, so only the malformed one is
    /// lost.
    mutating func readParameters(
        resynchronizing: Bool = false
    ) -> (parameters: [MIMESyntax.WrittenParameter], hadErrors: Bool) {
        var parameters: [MIMESyntax.WrittenParameter] = []
        var hadErrors = false
        while true {
            let (parameter, outcome) = readParameter()
            if let parameter {
                parameters.append(parameter)
                continue
            }
            if outcome == .end || index >= endIndex { break }
            hadErrors = true
            if !resynchronizing || bytes[index] != UInt8(ascii: ";") { index += 1 }
        }
        return (parameters, hadErrors)
    }
}
