public import IMAPCore
import MailMIME

/// A message as SEARCH sees it: flags, dates, size, mod-sequence and its ``SearchableText``.
public protocol SearchableMessage {
    var uid: UInt32 { get }
    var internalDate: IMAPDateTime { get }
    /// RFC822.SIZE.
    var size: Int { get }
    var modificationSequence: UInt64 { get }
    func has(_ flag: Flag) -> Bool
    /// The decoded text; read only for keys that look at text.
    var searchText: SearchableText { get }
}

/// Decides which messages match SEARCH keys, with the meaning RFC 3501 / RFC 9051 6.4.4 gives
/// each key, as Dovecot 2.3 does where the RFCs leave room. One place for both answers MailSearch
/// gives for a server: the mock server's SEARCH and the local index's.
///
/// Text keys compare case-insensitively (Unicode simple case folding) against the decoded text:
/// FROM, TO, CC and BCC anywhere in the field's ENVELOPE addresses written out; SUBJECT and
/// HEADER in the decoded field value (HEADER with an empty string tests presence); BODY in the
/// body text; TEXT in the headers, the body and the parts' MIME headers. Dates compare by day:
/// BEFORE/ON/SINCE on the received date (in its own zone), SENTBEFORE/SENTON/SENTSINCE on the
/// Date header (without a readable one, as ``UndatedSentDate`` says: servers differ).
public struct SearchMatcher: Sendable {
    /// Where the message stands in the session that asks.
    public struct Position: Sendable {
        public var sequenceNumber: UInt32
        public var isRecent: Bool

        public init(sequenceNumber: UInt32, isRecent: Bool) {
            self.sequenceNumber = sequenceNumber
            self.isRecent = isRecent
        }
    }

    /// The keys, ANDed.
    public let keys: [SearchKey]
    /// The largest sequence number and UID, for `*`.
    public let largestSequenceNumber: UInt32
    public let largestUID: UInt32
    /// Gmail-like matching: a text key matches whole words only.
    public let wholeWords: Bool
    /// Seconds since 1970, for YOUNGER and OLDER.
    public let now: Int
    /// BODY also looks in the headers of attached messages (RFC 5322 2.1: they are in the body;
    /// the mock server), or not (Dovecot 2.3).
    public let attachedHeadersInBody: Bool
    /// The sent date of a message without a readable Date header.
    public let undatedSentDate: UndatedSentDate
    /// The text keys' strings, case folded once.
    private let patterns: [ByteString: [UInt32]]

    public init(
        keys: [SearchKey], largestSequenceNumber: UInt32, largestUID: UInt32, wholeWords: Bool, now: Int,
        attachedHeadersInBody: Bool = true, undatedSentDate: UndatedSentDate = .receivedDate
    ) {
        self.keys = keys
        self.undatedSentDate = undatedSentDate
        self.attachedHeadersInBody = attachedHeadersInBody
        self.largestSequenceNumber = largestSequenceNumber
        self.largestUID = largestUID
        self.wholeWords = wholeWords
        self.now = now
        var patterns: [ByteString: [UInt32]] = [:]
        for text in Self.texts(in: keys) where patterns[text] == nil {
            patterns[text] = CaseFolding.pattern(text.string)
        }
        self.patterns = patterns
    }

    /// Whether `message` at `position` matches every key.
    public func matches<Message: SearchableMessage>(_ message: Message, at position: Position) -> Bool {
        keys.allSatisfy { matches($0, message, position) }
    }

    /// The strings of every text key in `keys` (FROM, SUBJECT, BODY, HEADER ...), nested ones too.
    public static func texts(in keys: [SearchKey]) -> [ByteString] {
        var found: [ByteString] = []
        func visit(_ key: SearchKey) {
            switch key {
            case .from(let text), .to(let text), .cc(let text), .bcc(let text), .subject(let text), .body(let text),
                .text(let text), .header(_, let text):
                found.append(text)
            case .not(let inner): visit(inner)
            case .or(let left, let right):
                visit(left)
                visit(right)
            case .and(let keys): keys.forEach(visit)
            default: break
            }
        }
        keys.forEach(visit)
        return found
    }

    private func matches<Message: SearchableMessage>(
        _ key: SearchKey, _ message: Message, _ position: Position
    )
        -> Bool
    {
        switch key {
        case .all: return true
        case .answered: return message.has(.answered)
        case .deleted: return message.has(.deleted)
        case .draft: return message.has(.draft)
        case .flagged: return message.has(.flagged)
        case .seen: return message.has(.seen)
        case .unanswered: return !message.has(.answered)
        case .undeleted: return !message.has(.deleted)
        case .undraft: return !message.has(.draft)
        case .unflagged: return !message.has(.flagged)
        case .unseen: return !message.has(.seen)
        case .keyword(let flag): return message.has(flag)
        case .unkeyword(let flag): return !message.has(flag)
        case .recent: return position.isRecent
        case .new: return position.isRecent && !message.has(.seen)
        case .old: return !position.isRecent
        case .from(let text): return address("from", text, message.searchText)
        case .to(let text): return address("to", text, message.searchText)
        case .cc(let text): return address("cc", text, message.searchText)
        case .bcc(let text): return address("bcc", text, message.searchText)
        case .subject(let text):
            let searchText = message.searchText
            if let subject = searchText.soleHeaderValue(lowercasedName: "subject") {
                return contains(text, in: subject)
            }
            guard let subject = searchText.headerText("Subject") else { return false }
            return contains(text, in: subject[...])
        case .header(let field, let value):
            guard let header = message.searchText.headerText(field.string) else { return false }
            return value.isEmpty || contains(value, in: header[...])
        case .body(let text):
            let searchText = message.searchText
            let body =
                attachedHeadersInBody
                ? searchText.bodyText : searchText.bodyTextWithoutAttachedHeaders ?? searchText.bodyText
            return contains(text, in: body[...])
        case .text(let text):
            let searchText = message.searchText
            return contains(text, in: searchText.allHeadersText[...]) || contains(text, in: searchText.bodyText[...])
                || contains(text, in: searchText.partHeadersText[...])
        case .before(let date): return message.internalDate.date < date
        case .on(let date): return message.internalDate.date == date
        case .since(let date): return message.internalDate.date >= date
        case .sentBefore(let date): return sentDate(message) < date
        case .sentOn(let date): return sentDate(message) == date
        case .sentSince(let date): return sentDate(message) >= date
        case .larger(let size): return UInt64(message.size) > size
        case .smaller(let size): return UInt64(message.size) < size
        case .uid(let set): return set.contains(message.uid, largest: largestUID)
        case .sequenceNumbers(let set): return set.contains(position.sequenceNumber, largest: largestSequenceNumber)
        case .not(let inner): return !matches(inner, message, position)
        case .or(let left, let right): return matches(left, message, position) || matches(right, message, position)
        case .and(let keys): return keys.allSatisfy { matches($0, message, position) }
        case .modificationSequence(let value): return message.modificationSequence >= value.value
        case .younger(let seconds): return now - message.internalDate.secondsSinceEpoch <= Int(seconds)
        case .older(let seconds): return now - message.internalDate.secondsSinceEpoch > Int(seconds)
        case .gmailRaw(let query):
            // Plain words, each anywhere in the message as a whole word.
            let words = query.string.split(whereSeparator: { $0 == " " || $0 == "\"" })
            let searchText = message.searchText
            return words.allSatisfy { word in
                let needle = String(word)
                return Self.containsWord(needle, in: searchText.allHeadersText)
                    || Self.containsWord(needle, in: searchText.bodyText)
            }
        case .filter, .savedBefore, .savedOn, .savedSince, .savedDateSupported:
            // Refused before evaluation: no answer is made up for them.
            return false
        }
    }

    private func address(_ field: String, _ text: ByteString, _ searchText: SearchableText) -> Bool {
        guard let value = searchText.addressText[field] else { return false }
        return contains(text, in: value[...])
    }

    /// Whether `haystack` contains `text` ignoring case, with the needle folded once; whole
    /// words only when Gmail-like.
    private func contains(_ text: ByteString, in haystack: Substring) -> Bool {
        if wholeWords { return Self.containsWord(text.string, in: String(haystack)) }
        return CaseFolding.contains(haystack, folded: patterns[text] ?? CaseFolding.pattern(text.string))
    }

    private func sentDate<Message: SearchableMessage>(_ message: Message) -> IMAPDate {
        if let date = message.searchText.sentDate { return date }
        switch undatedSentDate {
        case .receivedDate: return message.internalDate.date
        case .epoch: return IMAPDate(daysSinceEpoch: 0)
        }
    }

    /// Whether `needle` occurs in `haystack`, ignoring case, with no letter or digit right before
    /// or after it (Gmail matches words, not substrings).
    public static func containsWord(_ needle: String, in haystack: String) -> Bool {
        let needle = Array(needle.lowercased().unicodeScalars)
        guard !needle.isEmpty else { return true }
        let text = Array(haystack.lowercased().unicodeScalars)
        guard text.count >= needle.count else { return false }
        func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        }
        var start = 0
        while start + needle.count <= text.count {
            if text[start] == needle[0] && Array(text[start..<start + needle.count]) == needle {
                let before = start == 0 || !isWordCharacter(text[start - 1])
                let end = start + needle.count
                let after = end == text.count || !isWordCharacter(text[end])
                if before && after { return true }
            }
            start += 1
        }
        return false
    }
}

/// What SENTBEFORE, SENTON and SENTSINCE take for the sent date of a message without a readable
/// Date header: RFC 3501 and RFC 9051 do not say, and servers differ.
public enum UndatedSentDate: String, Sendable, CaseIterable {
    /// The received date (INTERNALDATE): the mock server.
    case receivedDate = "received"
    /// 1-Jan-1970, the start of the epoch: Dovecot 2.3 (its date of an undated message is 0).
    case epoch
}
