/// One search criterion of SEARCH and SORT (RFC 3501 6.4.4, RFC 9051 6.4.4), with the keys of
/// CONDSTORE (RFC 7162), WITHIN (RFC 5032), FILTERS (RFC 5466), SAVEDATE (RFC 8514) and Gmail's
/// X-GM-RAW.
///
/// Several keys side by side mean all of them (`and`); `C: a UID SEARCH NOT OR SEEN FLAGGED LARGER 4000`
/// is `[.not(.or(.seen, .flagged)), .larger(4000)]`. String arguments are bytes: the command's
/// CHARSET (or UTF-8 under IMAP4rev2) says how to read them.
public indirect enum SearchKey: Hashable, Sendable {
    /// `ALL`: every message.
    case all
    /// `ANSWERED`: messages with `\Answered`.
    case answered
    /// `BCC string`: the Bcc header contains the string.
    case bcc(ByteString)
    /// `BEFORE date`: received (INTERNALDATE) before the day.
    case before(IMAPDate)
    /// `BODY string`: the body contains the string.
    case body(ByteString)
    /// `CC string`: the Cc header contains the string.
    case cc(ByteString)
    /// `DELETED`: messages with `\Deleted`.
    case deleted
    /// `DRAFT`: messages with `\Draft`.
    case draft
    /// `FLAGGED`: messages with `\Flagged`.
    case flagged
    /// `FROM string`: the From header contains the string.
    case from(ByteString)
    /// `HEADER field-name string`: the named header contains the string (an empty string matches
    /// every message that has the header).
    case header(field: ByteString, value: ByteString)
    /// `KEYWORD flag`: messages with the keyword.
    case keyword(Flag)
    /// `LARGER n`: RFC822.SIZE larger than n octets (a 63-bit number under RFC 9051).
    case larger(UInt64)
    /// `NEW`: recent and unseen (IMAP4rev1).
    case new
    /// `NOT key`: messages that do not match.
    case not(SearchKey)
    /// `OLD`: not recent (IMAP4rev1).
    case old
    /// `ON date`: received on the day.
    case on(IMAPDate)
    /// `OR key key`: messages that match either.
    case or(SearchKey, SearchKey)
    /// `RECENT`: messages with `\Recent` (IMAP4rev1).
    case recent
    /// `SEEN`: messages with `\Seen`.
    case seen
    /// `SENTBEFORE date`: the Date header is before the day.
    case sentBefore(IMAPDate)
    /// `SENTON date`: the Date header is on the day.
    case sentOn(IMAPDate)
    /// `SENTSINCE date`: the Date header is on or after the day.
    case sentSince(IMAPDate)
    /// `SINCE date`: received on or after the day.
    case since(IMAPDate)
    /// `SMALLER n`: RFC822.SIZE smaller than n octets.
    case smaller(UInt64)
    /// `SUBJECT string`: the Subject header contains the string.
    case subject(ByteString)
    /// `TEXT string`: the header or body contains the string.
    case text(ByteString)
    /// `TO string`: the To header contains the string.
    case to(ByteString)
    /// `UID set`: messages with these UIDs.
    case uid(SequenceSet)
    /// `UNANSWERED`: messages without `\Answered`.
    case unanswered
    /// `UNDELETED`: messages without `\Deleted`.
    case undeleted
    /// `UNDRAFT`: messages without `\Draft`.
    case undraft
    /// `UNFLAGGED`: messages without `\Flagged`.
    case unflagged
    /// `UNKEYWORD flag`: messages without the keyword.
    case unkeyword(Flag)
    /// `UNSEEN`: messages without `\Seen`.
    case unseen
    /// A bare sequence set: messages with these sequence numbers.
    case sequenceNumbers(SequenceSet)
    /// `(key key ...)`: messages that match every key. An empty list is written as `ALL`.
    case and([SearchKey])
    /// `MODSEQ [entry type] n`: mod-sequence at least n (RFC 7162).
    case modificationSequence(SearchModificationSequence)
    /// `YOUNGER n`: received at most n seconds ago (RFC 5032).
    case younger(seconds: UInt32)
    /// `OLDER n`: received more than n seconds ago (RFC 5032).
    case older(seconds: UInt32)
    /// `X-GM-RAW string`: a Gmail search expression (Gmail's X-GM-EXT-1).
    case gmailRaw(ByteString)
    /// `FILTER name`: a saved filter on the server (RFC 5466).
    case filter(String)
    /// `SAVEDBEFORE date`: saved into the mailbox before the day (RFC 8514).
    case savedBefore(IMAPDate)
    /// `SAVEDON date`: saved into the mailbox on the day (RFC 8514).
    case savedOn(IMAPDate)
    /// `SAVEDSINCE date`: saved into the mailbox on or after the day (RFC 8514).
    case savedSince(IMAPDate)
    /// `SAVEDATESUPPORTED`: every message when the mailbox records save dates (RFC 8514).
    case savedDateSupported
}

extension SearchKey {
    /// The names of the keys that take arguments.
    static let namesWithArguments: Set<String> = [
        "BCC", "BODY", "CC", "FROM", "SUBJECT", "TEXT", "TO", "X-GM-RAW", "HEADER", "BEFORE", "ON", "SINCE",
        "SENTBEFORE", "SENTON", "SENTSINCE", "SAVEDBEFORE", "SAVEDON", "SAVEDSINCE", "KEYWORD", "UNKEYWORD", "LARGER",
        "SMALLER", "YOUNGER", "OLDER", "UID", "MODSEQ", "FILTER", "NOT", "OR",
    ]
}

extension ByteCursor {
    // search-key = "ALL" / "ANSWERED" / "BCC" SP astring / "BEFORE" SP date / "BODY" SP astring /
    //              "CC" SP astring / "DELETED" / "FLAGGED" / "FROM" SP astring / "KEYWORD" SP flag-keyword /
    //              "NEW" / "OLD" / "ON" SP date / "RECENT" / "SEEN" / "SINCE" SP date / "SUBJECT" SP astring /
    //              "TEXT" SP astring / "TO" SP astring / "UNANSWERED" / "UNDELETED" / "UNFLAGGED" /
    //              "UNKEYWORD" SP flag-keyword / "UNSEEN" / "DRAFT" / "HEADER" SP header-fld-name SP astring /
    //              "LARGER" SP number64 / "NOT" SP search-key / "OR" SP search-key SP search-key /
    //              "SENTBEFORE" SP date / "SENTON" SP date / "SENTSINCE" SP date / "SMALLER" SP number64 /
    //              "UID" SP sequence-set / "UNDRAFT" / sequence-set / "(" search-key *(SP search-key) ")"
    // search-key =/ search-modsequence                                         ; RFC 7162
    // search-key =/ "OLDER" SP nz-number / "YOUNGER" SP nz-number              ; RFC 5032
    // search-key =/ "FILTER" SP filter-name                                    ; RFC 5466
    // search-key =/ "SAVEDBEFORE" SP date / "SAVEDON" SP date / "SAVEDSINCE" SP date /
    //               "SAVEDATESUPPORTED"                                        ; RFC 8514
    // search-key =/ "X-GM-RAW" SP astring                                      ; Gmail X-GM-EXT-1
    /// One search key.
    public mutating func parseSearchKey() throws(IMAPParseError) -> SearchKey {
        try attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> SearchKey in
            guard let first = cursor.peek else { throw cursor.error(.unexpectedEnd, "expected a search key") }
            if first == UInt8(ascii: "(") {
                return try cursor.parseSearchKeyList()
            }
            if isDigit(first) || first == UInt8(ascii: "*") || first == UInt8(ascii: "$") {
                return .sequenceNumbers(try cursor.parseSequenceSet())
            }
            let nameStart = cursor.index
            let name = String(decoding: try cursor.parseAtom(), as: UTF8.self).uppercased()
            switch name {
            case "ALL": return .all
            case "ANSWERED": return .answered
            case "DELETED": return .deleted
            case "DRAFT": return .draft
            case "FLAGGED": return .flagged
            case "NEW": return .new
            case "OLD": return .old
            case "RECENT": return .recent
            case "SEEN": return .seen
            case "UNANSWERED": return .unanswered
            case "UNDELETED": return .undeleted
            case "UNDRAFT": return .undraft
            case "UNFLAGGED": return .unflagged
            case "UNSEEN": return .unseen
            case "SAVEDATESUPPORTED": return .savedDateSupported
            default: break
            }
            guard SearchKey.namesWithArguments.contains(name) else {
                cursor.index = nameStart
                throw cursor.error(.unexpectedByte, "unknown search key \(name)")
            }
            try cursor.expectSpace()
            switch name {
            case "BCC": return .bcc(try cursor.parseAString())
            case "BODY": return .body(try cursor.parseAString())
            case "CC": return .cc(try cursor.parseAString())
            case "FROM": return .from(try cursor.parseAString())
            case "SUBJECT": return .subject(try cursor.parseAString())
            case "TEXT": return .text(try cursor.parseAString())
            case "TO": return .to(try cursor.parseAString())
            case "X-GM-RAW": return .gmailRaw(try cursor.parseAString())
            case "HEADER":
                let field = try cursor.parseAString()
                try cursor.expectSpace()
                return .header(field: field, value: try cursor.parseAString())
            case "BEFORE": return .before(try cursor.parseDate())
            case "ON": return .on(try cursor.parseDate())
            case "SINCE": return .since(try cursor.parseDate())
            case "SENTBEFORE": return .sentBefore(try cursor.parseDate())
            case "SENTON": return .sentOn(try cursor.parseDate())
            case "SENTSINCE": return .sentSince(try cursor.parseDate())
            case "SAVEDBEFORE": return .savedBefore(try cursor.parseDate())
            case "SAVEDON": return .savedOn(try cursor.parseDate())
            case "SAVEDSINCE": return .savedSince(try cursor.parseDate())
            case "KEYWORD": return .keyword(try cursor.parseFlag())
            case "UNKEYWORD": return .unkeyword(try cursor.parseFlag())
            case "LARGER": return .larger(try cursor.parseNumber64())
            case "SMALLER": return .smaller(try cursor.parseNumber64())
            case "YOUNGER": return .younger(seconds: try cursor.parseNonZeroNumber())
            case "OLDER": return .older(seconds: try cursor.parseNonZeroNumber())
            case "UID": return .uid(try cursor.parseSequenceSet())
            case "MODSEQ": return .modificationSequence(try cursor.parseSearchModificationSequence())
            case "FILTER": return .filter(try cursor.parseAtomString())
            case "NOT":
                return try cursor.nested { (cursor: inout ByteCursor) throws(IMAPParseError) -> SearchKey in
                    .not(try cursor.parseSearchKey())
                }
            case "OR":
                return try cursor.nested { (cursor: inout ByteCursor) throws(IMAPParseError) -> SearchKey in
                    let left = try cursor.parseSearchKey()
                    try cursor.expectSpace()
                    return .or(left, try cursor.parseSearchKey())
                }
            default:
                cursor.index = nameStart
                throw cursor.error(.unexpectedByte, "unknown search key \(name)")
            }
        }
    }

    // "(" search-key *(SP search-key) ")"
    private mutating func parseSearchKeyList() throws(IMAPParseError) -> SearchKey {
        let keys = try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> SearchKey in
            try cursor.parseSearchKey()
        }
        guard !keys.isEmpty else {
            index -= 1
            throw error(.unexpectedByte, "a parenthesized search needs at least one key")
        }
        return .and(keys)
    }

    // search-program = ["CHARSET" SP charset SP] search-key *(SP search-key)   ; RFC 9051
    // search-key *(SP search-key)
    /// Search keys separated by spaces, up to the end of the line.
    public mutating func parseSearchKeys() throws(IMAPParseError) -> [SearchKey] {
        var keys = [try parseSearchKey()]
        while true {
            let saved = index
            guard skipSpaces(), let next = peek, next != UInt8(ascii: "\r"), next != UInt8(ascii: "\n") else {
                index = saved
                return keys
            }
            keys.append(try parseSearchKey())
        }
    }
}

extension EncodeBuffer {
    /// Writes a search key; strings go quoted or as literals (never as atoms), dates as `d-Mon-yyyy`.
    public mutating func write(_ key: SearchKey) {
        switch key {
        case .all: writeRaw("ALL")
        case .answered: writeRaw("ANSWERED")
        case .deleted: writeRaw("DELETED")
        case .draft: writeRaw("DRAFT")
        case .flagged: writeRaw("FLAGGED")
        case .new: writeRaw("NEW")
        case .old: writeRaw("OLD")
        case .recent: writeRaw("RECENT")
        case .seen: writeRaw("SEEN")
        case .unanswered: writeRaw("UNANSWERED")
        case .undeleted: writeRaw("UNDELETED")
        case .undraft: writeRaw("UNDRAFT")
        case .unflagged: writeRaw("UNFLAGGED")
        case .unseen: writeRaw("UNSEEN")
        case .savedDateSupported: writeRaw("SAVEDATESUPPORTED")
        case .bcc(let value): writeSearchString("BCC ", value)
        case .body(let value): writeSearchString("BODY ", value)
        case .cc(let value): writeSearchString("CC ", value)
        case .from(let value): writeSearchString("FROM ", value)
        case .subject(let value): writeSearchString("SUBJECT ", value)
        case .text(let value): writeSearchString("TEXT ", value)
        case .to(let value): writeSearchString("TO ", value)
        case .gmailRaw(let value): writeSearchString("X-GM-RAW ", value)
        case .header(let field, let value):
            writeRaw("HEADER ")
            writeAString(field)
            writeSpace()
            writeString(value)
        case .before(let date): writeSearchDate("BEFORE ", date)
        case .on(let date): writeSearchDate("ON ", date)
        case .since(let date): writeSearchDate("SINCE ", date)
        case .sentBefore(let date): writeSearchDate("SENTBEFORE ", date)
        case .sentOn(let date): writeSearchDate("SENTON ", date)
        case .sentSince(let date): writeSearchDate("SENTSINCE ", date)
        case .savedBefore(let date): writeSearchDate("SAVEDBEFORE ", date)
        case .savedOn(let date): writeSearchDate("SAVEDON ", date)
        case .savedSince(let date): writeSearchDate("SAVEDSINCE ", date)
        case .keyword(let flag):
            writeRaw("KEYWORD ")
            write(flag)
        case .unkeyword(let flag):
            writeRaw("UNKEYWORD ")
            write(flag)
        case .larger(let size):
            writeRaw("LARGER ")
            writeNumber(size)
        case .smaller(let size):
            writeRaw("SMALLER ")
            writeNumber(size)
        case .younger(let seconds):
            writeRaw("YOUNGER ")
            writeNumber(seconds)
        case .older(let seconds):
            writeRaw("OLDER ")
            writeNumber(seconds)
        case .uid(let set):
            writeRaw("UID ")
            write(set)
        case .sequenceNumbers(let set): write(set)
        case .modificationSequence(let modificationSequence):
            writeRaw("MODSEQ ")
            write(modificationSequence)
        case .filter(let name):
            writeRaw("FILTER ")
            writeRaw(name)
        case .not(let inner):
            writeRaw("NOT ")
            write(inner)
        case .or(let left, let right):
            writeRaw("OR ")
            write(left)
            writeSpace()
            write(right)
        case .and(let keys):
            if keys.isEmpty {
                writeRaw("ALL")
            } else {
                writeList(keys) { buffer, key in buffer.write(key) }
            }
        }
    }

    /// Writes keys separated by spaces (a search program without its CHARSET).
    public mutating func write(_ keys: [SearchKey]) {
        for (position, key) in keys.enumerated() {
            if position > 0 { writeSpace() }
            write(key)
        }
    }

    private mutating func writeSearchString(_ name: StaticString, _ value: ByteString) {
        writeRaw(name)
        writeString(value)
    }

    private mutating func writeSearchDate(_ name: StaticString, _ date: IMAPDate) {
        writeRaw(name)
        write(date)
    }
}
