/// What a mail list shows of one message, decoded once: subject, people, date, preview,
/// attachment, size and flags.
///
/// A client builds it from what the server sent (an ENVELOPE, BODYSTRUCTURE, PREVIEW or the
/// first text part) and a server or test builds it from the message itself
/// (``init(message:flags:)``); both go through the same decoders, so they agree.
///
/// ```
/// let summary = MailSummary(message: MIMEMessage(bytes: raw), flags: ["\\Seen"])
/// summary.subject                  // "Réunion de lundi"
/// summary.from.first?.initials     // "AD"
/// summary.secondsSince1970         // 1701418403
/// ```
public struct MailSummary: Hashable, Sendable {
    /// The Subject, RFC 2047 decoded, unfolded, white space collapsed; "" without one.
    public var subject: String
    /// The From mailboxes (group markers left out).
    public var from: [Person]
    /// The To mailboxes (group members kept, group markers left out).
    public var to: [Person]
    /// The Cc mailboxes.
    public var cc: [Person]
    /// The Date header; nil when absent or unreadable.
    public var date: ParsedDate?
    /// The start of the text (``PreviewText``); "" when there is none.
    public var preview: String
    /// Whether a part is an attachment (``AttachmentRule``).
    public var hasAttachment: Bool
    /// The size of the message in bytes (RFC822.SIZE).
    public var size: Int
    /// The flags (`\Seen`, `$Pinned`), sorted, without `\Recent`.
    public var flags: [String]

    /// A summary from decoded values; `flags` are sorted and `\Recent` dropped.
    public init(
        subject: String, from: [Person] = [], to: [Person] = [], cc: [Person] = [], date: ParsedDate? = nil,
        preview: String = "", hasAttachment: Bool = false, size: Int = 0, flags: [String] = []
    ) {
        self.subject = subject
        self.from = from
        self.to = to
        self.cc = cc
        self.date = date
        self.preview = preview
        self.hasAttachment = hasAttachment
        self.size = size
        self.flags = Self.normalizedFlags(flags)
    }

    /// A summary from the raw envelope fields (as an IMAP ENVELOPE carries them) and the rest.
    public init(
        envelope: MailEnvelope, preview: String, hasAttachment: Bool, size: Int, flags: [String]
    ) {
        self.init(
            subject: envelope.subject.map(Self.decodedText) ?? "", from: Self.people(envelope.from),
            to: Self.people(envelope.to), cc: Self.people(envelope.cc), date: envelope.date.flatMap(Self.decodedDate),
            preview: preview, hasAttachment: hasAttachment, size: size, flags: flags)
    }

    /// The summary of a whole message: its envelope fields, the preview of its first text part,
    /// the attachment rule over its parts, its size in bytes.
    public init(message: MIMEMessage, flags: [String] = []) {
        self.init(
            envelope: MailEnvelope(header: message.header), preview: PreviewText.make(for: message),
            hasAttachment: AttachmentRule.hasAttachment(message), size: message.byteRange.count, flags: flags)
    }

    /// ``date`` as seconds since 1970-01-01T00:00:00Z.
    public var secondsSince1970: Int? { date?.timestamp }

    // MARK: Decoders

    /// Header text for people: raw bytes (UTF-8, or Windows-1252 when not valid UTF-8) with RFC
    /// 2047 encoded words decoded, white space (also decoded line breaks) collapsed to single
    /// spaces and trimmed.
    ///
    /// ```
    /// MailSummary.decodedText(Array("=?iso-8859-1?q?R=E9union?=  lundi".utf8))   // "Réunion lundi"
    /// ```
    public static func decodedText(_ raw: some Collection<UInt8>) -> String { text(raw) }

    /// ``decodedText(_:)`` of a slice (of a parsed response), compiled here for slices: the
    /// generic form called from another module is not specialized, and runs several times slower.
    public static func decodedText(_ raw: ArraySlice<UInt8>) -> String { text(raw) }

    private static func text(_ raw: some Collection<UInt8>) -> String {
        if let plain = collapsedASCII(raw) { return plain }
        let text = Charset.decode(raw, charset: "unknown-8bit") ?? String(decoding: raw, as: UTF8.self)
        let decoded = EncodedWords.decode(text)
        if let simple = collapsedSimpleScalars(decoded) { return simple }
        var result = ""
        result.reserveCapacity(decoded.utf8.count)
        var pendingSpace = false
        for character in decoded {
            if character.isWhitespace || character.isNewline {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace {
                    result.append(" ")
                    pendingSpace = false
                }
                result.append(character)
            }
        }
        return result
    }

    /// ``decodedText(_:)`` of ASCII text without an encoded word (most names, addresses and
    /// subjects), byte by byte instead of Character by Character: an ASCII byte is a Character of
    /// its own (CR LF, one Character, is white space either way), and the ASCII white space
    /// Characters are exactly HT, LF, VT, FF, CR and space. Nil for anything else.
    private static func collapsedASCII(_ raw: some Collection<UInt8>) -> String? {
        if isCollapsedASCII(raw) { return String(decoding: raw, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var pendingSpace = false
        var previous: UInt8 = 0
        for byte in raw {
            guard byte < 0x80, !(byte == UInt8(ascii: "?") && previous == UInt8(ascii: "=")) else { return nil }
            previous = byte
            switch byte {
            case 0x09...0x0D, 0x20:
                pendingSpace = !bytes.isEmpty
            default:
                if pendingSpace {
                    bytes.append(0x20)
                    pendingSpace = false
                }
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `raw` is ASCII without an encoded word whose white space is already collapsed:
    /// single spaces between words, none at either end (most addresses, names and subjects).
    /// Such text is its own ``decodedText(_:)``, made without a copy in between.
    private static func isCollapsedASCII(_ raw: some Collection<UInt8>) -> Bool {
        var previous: UInt8 = 0x20
        for byte in raw {
            switch byte {
            case 0x20:
                if previous == 0x20 { return false }
            case 0x09...0x0D, 0x80...:
                return false
            case UInt8(ascii: "?") where previous == UInt8(ascii: "="):
                return false
            default: break
            }
            previous = byte
        }
        return previous != 0x20 || raw.isEmpty
    }

    /// The Character walk of ``decodedText(_:)`` done scalar by scalar, for text whose every
    /// scalar is a Character of its own: Latin-1 and Latin Extended (below U+0300, where the
    /// combining marks start), Greek and Coptic, Cyrillic without its combining marks, kana and
    /// CJK ideographs. None of these joins a neighbour into one Character (none is a mark, a
    /// joiner or a prepended sign; CR LF is white space either way), so a scalar is white space
    /// exactly when its Character is. Nil for any other text (emoji, marks, Hangul jamo ...).
    private static func collapsedSimpleScalars(_ text: String) -> String? {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0..<0x300, 0x370..<0x400, 0x400..<0x483, 0x48A..<0x530, 0x3041..<0x3097, 0x30A1..<0x30FB,
                0x4E00..<0xA000:
                break
            default:
                return nil
            }
            // Below U+0080 the White_Space scalars are HT, LF, VT, FF, CR and space; the
            // property lookup is only needed above.
            let isWhitespace =
                scalar.value < 0x80
                ? (0x09...0x0D).contains(scalar.value) || scalar.value == 0x20
                : scalar.properties.isWhitespace
            if isWhitespace {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace {
                    result.append(" ")
                    pendingSpace = false
                }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The moment of a raw Date header value; nil when unreadable.
    public static func decodedDate(_ raw: some Collection<UInt8>) -> ParsedDate? {
        DateHeader.parse(bytes: raw)
    }

    /// ``decodedDate(_:)`` of a slice, compiled here for slices (as the slice form of `decodedText`).
    public static func decodedDate(_ raw: ArraySlice<UInt8>) -> ParsedDate? { DateHeader.parse(bytes: raw) }

    /// The people of an envelope address list: mailboxes only, group markers left out.
    public static func people(_ addresses: [MailEnvelope.Address]) -> [Person] {
        addresses.compactMap(Person.init(envelopeAddress:))
    }

    private static func normalizedFlags(_ flags: [String]) -> [String] {
        // Only a seven-character flag can be \Recent; most messages have one or two flags.
        let kept = flags.filter { $0.utf8.count != 7 || $0.lowercased() != "\\recent" }
        guard kept.count > 1 else { return kept }
        return Set(kept).sorted()
    }
}
