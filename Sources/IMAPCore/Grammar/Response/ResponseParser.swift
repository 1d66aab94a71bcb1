/// The client side's streaming response parser.
///
/// Feed it bytes as they arrive, in any chunking, and take responses out:
/// ```swift
/// var parser = ResponseParser()
/// parser.append(bytesFromSocket)
/// while let response = try parser.next() { handle(response) }
/// ```
/// `next()` returns nil when it needs more bytes and keeps its place. A response that does not
/// follow the grammar throws an `IMAPParseError` naming its stream offset; that response is
/// consumed, so the following ones still parse. Memory is proportional to one response.
public struct ResponseParser: Sendable {
    private var decoder: FrameDecoder

    /// A parser with `options`.
    public init(options: ParserOptions = .init()) {
        decoder = FrameDecoder(options: options, literalsAlwaysFollow: true)
    }

    /// Adds bytes that arrived from the server.
    public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        decoder.append(bytes)
    }

    /// Bytes received but not yet part of a complete response.
    public var bufferedByteCount: Int { decoder.bufferedByteCount }

    /// Bytes held in memory, parsed or not (a test hook).
    package var storedByteCount: Int { decoder.storedByteCount }

    /// Throws away bytes that have arrived but are not yet a complete response (STARTTLS: what
    /// the server sent before the TLS handshake must never be processed). Returns their count.
    @discardableResult public mutating func discardBufferedBytes() -> Int {
        decoder.takeUnframedBytes().count
    }

    /// The next complete response, or nil when more bytes are needed.
    public mutating func next() throws(IMAPParseError) -> Response? {
        guard let frame = try decoder.nextFrame() else { return nil }
        return try Self.parse(frame: frame, options: decoder.options)
    }

    /// Parses one complete frame (all lines and literals of one response).
    public static func parse(frame: Frame, options: ParserOptions = .init()) throws(IMAPParseError) -> Response {
        var cursor = ByteCursor(frame.bytes, options: options, streamOffset: frame.streamOffset)
        let response = try cursor.parseResponse()
        try cursor.expectCRLF()
        guard cursor.isAtEnd else { throw cursor.error(.unexpectedByte, "expected the end of the response") }
        return response
    }

    /// Parses every response in `bytes` (which must end with a complete response).
    public static func parseAll(_ bytes: [UInt8], options: ParserOptions = .init()) throws(IMAPParseError) -> [Response]
    {
        var parser = ResponseParser(options: options)
        parser.append(bytes)
        var responses: [Response] = []
        while let response = try parser.next() { responses.append(response) }
        guard parser.bufferedByteCount == 0 else {
            throw IMAPParseError(
                code: .unexpectedEnd, message: "the input ends inside a response", offset: bytes.count, excerpt: "")
        }
        return responses
    }
}

extension ByteCursor {
    // response = *(continue-req / response-data) response-done
    // continue-req = "+" SP (resp-text / base64) CRLF
    // response-tagged = tag SP resp-cond-state CRLF
    /// One response without its final CRLF.
    @inline(__always) public mutating func parseResponse() throws(IMAPParseError) -> Response {
        switch peek {
        case UInt8(ascii: "*"):
            index += 1
            try expectSpace()
            return .untagged(try parseUntaggedResponse())
        case UInt8(ascii: "+"):
            index += 1
            _ = consume(UInt8(ascii: " "))
            return .continuation(ContinuationRequest(text: parseTextToEndOfLine()))
        case nil:
            throw error(.unexpectedEnd, "expected a response")
        default:
            let tag = try parseTag()
            try expectSpace()
            let status: ResponseStatus
            if consumeCaseInsensitive("OK") {
                status = .ok
            } else if consumeCaseInsensitive("NO") {
                status = .no
            } else if consumeCaseInsensitive("BAD") {
                status = .bad
            } else {
                throw error(.unexpectedByte, "expected OK, NO or BAD after the tag")
            }
            return .tagged(TaggedResponse(tag: tag, status: status, text: try parseResponseTextAfterStatus()))
        }
    }

    /// `[SP resp-text]`: tolerates a missing text (`a1 OK`) and a missing space.
    mutating func parseResponseTextAfterStatus() throws(IMAPParseError) -> ResponseText {
        skipSpaces()
        return try parseResponseText()
    }

    // resp-text = ["[" resp-text-code "]" SP] [text]
    /// The text of a status response with its optional code.
    public mutating func parseResponseText() throws(IMAPParseError) -> ResponseText {
        var code: ResponseCode?
        if peek == UInt8(ascii: "[") {
            code = try parseResponseCode()
            skipSpaces()
        }
        return ResponseText(code: code, text: parseTextToEndOfLine())
    }

    // response-data = "*" SP (resp-cond-state / resp-cond-bye / mailbox-data / message-data /
    //                 capability-data / enable-data / id-response / namespace-response) CRLF
    // message-data = nz-number SP ("EXPUNGE" / ("FETCH" SP msg-att))
    // mailbox-data = "FLAGS" SP flag-list / "LIST" SP mailbox-list / "LSUB" SP mailbox-list /
    //                "SEARCH" *(SP nz-number) / "ESEARCH" esearch-response / "STATUS" SP mailbox SP
    //                "(" [status-att-list] ")" / number SP "EXISTS" / number SP "RECENT"
    @inline(__always) mutating func parseUntaggedResponse() throws(IMAPParseError) -> UntaggedResponse {
        if let byte = peek, isDigit(byte) {
            let number = try parseNumber()
            try expectSpace()
            if consumeCaseInsensitive("FETCH") {
                try expectSpace()
                return .fetch(FetchResponse(sequenceNumber: number, attributes: try parseMessageAttributes()))
            }
            if consumeCaseInsensitive("EXISTS") { return .exists(number) }
            if consumeCaseInsensitive("RECENT") { return .recent(number) }
            if consumeCaseInsensitive("EXPUNGE") { return .expunge(number) }
            let nameStart = index
            let name = (try? parseAtomString()) ?? ""
            index = nameStart
            return .unknown(name: "\(number) \(name)", raw: parseTextToEndOfLine())
        }
        let nameStart = index
        let name = try parseAtom()
        let keyword = String(decoding: name, as: UTF8.self).uppercased()
        switch keyword {
        case "OK": return .condition(.ok, try parseResponseTextAfterStatus())
        case "NO": return .condition(.no, try parseResponseTextAfterStatus())
        case "BAD": return .condition(.bad, try parseResponseTextAfterStatus())
        case "BYE": return .condition(.bye, try parseResponseTextAfterStatus())
        case "PREAUTH": return .condition(.preauth, try parseResponseTextAfterStatus())
        case "CAPABILITY": return .capability(try parseCapabilityList())
        case "ENABLED": return .enabled(try parseCapabilityList())
        case "FLAGS":
            try expectSpace()
            return .flags(try parseFlagList())
        case "LIST":
            try expectSpace()
            return .list(try parseMailboxListItem())
        case "LSUB":
            try expectSpace()
            return .lsub(try parseMailboxListItem())
        case "STATUS":
            try expectSpace()
            let mailbox = try parseMailbox()
            try expectSpace()
            return .mailboxStatus(mailbox, try parseMailboxStatus())
        case "SEARCH":
            let (numbers, modificationSequence) = try parseNumberListWithModificationSequence()
            return .search(numbers, modificationSequence: modificationSequence)
        case "SORT":
            let (numbers, modificationSequence) = try parseNumberListWithModificationSequence()
            return .sort(numbers, modificationSequence: modificationSequence)
        case "ESEARCH": return .extendedSearch(try parseExtendedSearch())
        case "VANISHED":
            try expectSpace()
            var earlier = false
            if consume(UInt8(ascii: "(")) {
                try expectCaseInsensitive("EARLIER")
                try expect(UInt8(ascii: ")"))
                try expectSpace()
                earlier = true
            }
            return .vanished(earlier: earlier, try parseSequenceSet())
        case "NAMESPACE":
            try expectSpace()
            return .namespace(try parseNamespaceResponse())
        case "ID":
            try expectSpace()
            return .id(try parseIDParameters())
        default:
            index = nameStart
            let name = String(decoding: name, as: UTF8.self)
            index += name.utf8.count
            skipSpaces()
            return .unknown(name: name, raw: parseTextToEndOfLine())
        }
    }

    // search-response = "SEARCH" *(SP nz-number) [SP search-sort-mod-seq]
    // search-sort-mod-seq = "(" "MODSEQ" SP mod-sequence-value ")"
    mutating func parseNumberListWithModificationSequence() throws(IMAPParseError) -> ([UInt32], UInt64?) {
        var numbers: [UInt32] = []
        var modificationSequence: UInt64?
        while skipSpaces() || peek == UInt8(ascii: "(") {
            if consume(UInt8(ascii: "(")) {
                try expectCaseInsensitive("MODSEQ")
                try expectSpace()
                modificationSequence = try parseNumber64()
                try expect(UInt8(ascii: ")"))
                continue
            }
            guard let byte = peek, isDigit(byte) else { break }
            numbers.append(try parseNumber())
        }
        return (numbers, modificationSequence)
    }

    // mailbox-list = "(" [mbx-list-flags] ")" SP (DQUOTE QUOTED-CHAR DQUOTE / nil) SP mailbox
    //                [SP mbox-list-extended]
    mutating func parseMailboxListItem() throws(IMAPParseError) -> MailboxListItem {
        let attributes = try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> String in
            String(decoding: try cursor.parseLooseAtom(), as: UTF8.self)
        }
        try expectSpace()
        let delimiter = try parseDelimiter()
        try expectSpace()
        let name = try parseMailbox()
        var extended: ByteString?
        if skipSpaces(), let byte = peek, byte == UInt8(ascii: "(") {
            let start = index
            try skipGenericValue()
            extended = ByteString(storage[start..<index])
        }
        return MailboxListItem(attributes: attributes, delimiter: delimiter, name: name, extendedData: extended)
    }

    /// `DQUOTE QUOTED-CHAR DQUOTE / nil`.
    mutating func parseDelimiter() throws(IMAPParseError) -> UInt8? {
        if consumeNIL() { return nil }
        let quoted = try parseQuoted()
        guard quoted.count == 1, let byte = quoted.bytes.first else {
            throw error(.unexpectedByte, "expected a one-character hierarchy delimiter")
        }
        return byte
    }

    // status-att-list = status-att-val *(SP status-att-val)
    // status-att-val = ("MESSAGES" SP number) / ("UIDNEXT" SP nz-number) / ("UIDVALIDITY" SP nz-number) /
    //                  ("UNSEEN" SP number) / ("DELETED" SP number) / ("SIZE" SP number64) /
    //                  ("RECENT" SP number) / ("HIGHESTMODSEQ" SP mod-sequence-valzer) / ("APPENDLIMIT" SP number)
    mutating func parseMailboxStatus() throws(IMAPParseError) -> MailboxStatus {
        var status = MailboxStatus()
        try expect(UInt8(ascii: "("))
        skipSpaces()
        while !consume(UInt8(ascii: ")")) {
            let name = try parseAtomString().uppercased()
            try expectSpace()
            let value = try parseNumber64()
            func narrow() throws(IMAPParseError) -> UInt32 {
                guard value <= UInt64(UInt32.max) else { throw error(.numberOutOfRange, "\(name) above 4294967295") }
                return UInt32(value)
            }
            switch name {
            case "MESSAGES": status.messageCount = try narrow()
            case "RECENT": status.recentCount = try narrow()
            case "UIDNEXT": status.uidNext = try narrow()
            case "UIDVALIDITY": status.uidValidity = try narrow()
            case "UNSEEN": status.unseenCount = try narrow()
            case "DELETED": status.deletedCount = try narrow()
            case "SIZE": status.size = value
            case "HIGHESTMODSEQ": status.highestModificationSequence = value
            case "APPENDLIMIT": status.appendLimit = value
            default: status.other[name] = value
            }
            skipSpaces()
        }
        return status
    }

    // esearch-response = "ESEARCH" [search-correlator] [SP "UID"] *(SP search-return-data)
    // search-correlator = SP "(" "TAG" SP tag-string ")"
    // search-return-data = "MIN" SP nz-number / "MAX" SP nz-number / "ALL" SP sequence-set /
    //                      "COUNT" SP number / "MODSEQ" SP mod-sequence-value / search-ret-data-ext
    mutating func parseExtendedSearch() throws(IMAPParseError) -> ExtendedSearchResponse {
        var result = ExtendedSearchResponse()
        let start = index
        if skipSpaces(), consume(UInt8(ascii: "(")) {
            try expectCaseInsensitive("TAG")
            try expectSpace()
            result.tag = try parseAString().string
            try expect(UInt8(ascii: ")"))
        } else {
            // No correlator: the space belongs to what follows (`* ESEARCH UID ALL 4,9`).
            index = start
        }
        while skipSpaces() {
            guard let byte = peek, byte != UInt8(ascii: "\r"), byte != UInt8(ascii: "\n") else { break }
            let name = try parseAtomString().uppercased()
            if name == "UID" {
                result.isUID = true
                continue
            }
            try expectSpace()
            switch name {
            case "MIN": result.min = try parseNumber()
            case "MAX": result.max = try parseNumber()
            case "COUNT": result.count = try parseNumber()
            case "ALL": result.all = try parseSequenceSet()
            case "MODSEQ": result.modificationSequence = try parseNumber64()
            default:
                let start = index
                try skipGenericValue()
                result.other.append(ExtendedSearchOtherValue(name: name, raw: ByteString(storage[start..<index])))
            }
        }
        return result
    }

    // namespace-response = "NAMESPACE" SP namespace SP namespace SP namespace
    // namespace = nil / "(" 1*namespace-descr ")"
    // namespace-descr = "(" string SP (DQUOTE QUOTED-CHAR DQUOTE / nil) [namespace-response-extensions] ")"
    mutating func parseNamespaceResponse() throws(IMAPParseError) -> NamespaceResponse {
        let personal = try parseNamespace()
        try expectSpace()
        let other = try parseNamespace()
        try expectSpace()
        let shared = try parseNamespace()
        return NamespaceResponse(personal: personal, otherUsers: other, shared: shared)
    }

    mutating func parseNamespace() throws(IMAPParseError) -> [NamespaceDescription] {
        if consumeNIL() { return [] }
        return try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> NamespaceDescription in
            try cursor.expect(UInt8(ascii: "("))
            let prefix = try cursor.parseString()
            try cursor.expectSpace()
            let delimiter = try cursor.parseDelimiter()
            var extensions: ByteString?
            let start = cursor.index
            while cursor.peek != UInt8(ascii: ")") {
                guard cursor.skipSpaces() else { break }
                try cursor.skipGenericValue()
            }
            if cursor.index > start { extensions = ByteString(cursor.storage[start..<cursor.index]) }
            try cursor.expect(UInt8(ascii: ")"))
            return NamespaceDescription(prefix: prefix, delimiter: delimiter, extensions: extensions)
        }
    }

    // id-response = "ID" SP id-params-list
    // id-params-list = "(" *(string SP nstring) ")" / nil
    mutating func parseIDParameters() throws(IMAPParseError) -> [IDParameter]? {
        if consumeNIL() { return nil }
        try expect(UInt8(ascii: "("))
        var parameters: [IDParameter] = []
        skipSpaces()
        while !consume(UInt8(ascii: ")")) {
            let key = try parseString()
            try expectSpace()
            parameters.append(IDParameter(key: key, value: try parseNString()))
            skipSpaces()
        }
        return parameters
    }

    /// Skips one value of any shape (atom, number, string, NIL, or a parenthesized list of
    /// those, nested): used to keep unknown data as raw bytes.
    public mutating func skipGenericValue() throws(IMAPParseError) {
        switch peek {
        case UInt8(ascii: "("):
            index += 1
            try nested { (cursor: inout ByteCursor) throws(IMAPParseError) in
                cursor.skipSpaces()
                while !cursor.consume(UInt8(ascii: ")")) {
                    try cursor.skipGenericValue()
                    cursor.skipSpaces()
                }
            }
        case UInt8(ascii: "\""), UInt8(ascii: "{"):
            _ = try parseString()
        case UInt8(ascii: "~") where peek(offset: 1) == UInt8(ascii: "{"):
            _ = try parseString()
        case UInt8(ascii: "["):
            // section-like: [ ... ] possibly containing a list
            index += 1
            while let byte = peek, byte != UInt8(ascii: "]") {
                if byte == UInt8(ascii: "(") {
                    try skipGenericValue()
                } else if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                    throw error(.unexpectedByte, "expected \"]\"")
                } else {
                    index += 1
                }
            }
            try expect(UInt8(ascii: "]"))
        case nil:
            throw error(.unexpectedEnd, "expected a value")
        default:
            let start = index
            while let byte = peek, byte > 0x20, byte != UInt8(ascii: "("), byte != UInt8(ascii: ")"), byte != 0x7F {
                if byte == UInt8(ascii: "[") {
                    try skipGenericValue()
                    continue
                }
                index += 1
            }
            guard index > start else { throw error(.unexpectedByte, "expected a value") }
        }
    }
}
