extension ByteCursor {
    // msg-att = "(" (msg-att-dynamic / msg-att-static) *(SP (msg-att-dynamic / msg-att-static)) ")"
    /// The parenthesized attribute list of a FETCH response. An attribute this parser does not
    /// know is kept as `.unknown` with its raw bytes, never fatal.
    public mutating func parseMessageAttributes() throws(IMAPParseError) -> [MessageAttribute] {
        try expect(UInt8(ascii: "("))
        var attributes: [MessageAttribute] = []
        // A list's summary asks for eight (UID FLAGS INTERNALDATE RFC822.SIZE PREVIEW MODSEQ
        // ENVELOPE BODYSTRUCTURE): room for them at once, not six and then twelve.
        attributes.reserveCapacity(8)
        skipSpaces()
        while !consume(UInt8(ascii: ")")) {
            attributes.append(try parseMessageAttribute())
            skipSpaces()
        }
        return attributes
    }

    // msg-att-dynamic = "FLAGS" SP "(" [flag-fetch *(SP flag-fetch)] ")" / "MODSEQ" SP "(" mod-sequence-value ")"
    // msg-att-static = "ENVELOPE" SP envelope / "INTERNALDATE" SP date-time / "RFC822.SIZE" SP number64 /
    //     "BODY" ["STRUCTURE"] SP body / "BODY" section ["<" number ">"] SP nstring /
    //     "BINARY" section-binary SP (nstring / literal8) / "BINARY.SIZE" section-binary SP number /
    //     "UID" SP uniqueid / "RFC822" SP nstring / "RFC822.HEADER" SP nstring / "RFC822.TEXT" SP nstring /
    //     "PREVIEW" SP nstring
    mutating func parseMessageAttribute() throws(IMAPParseError) -> MessageAttribute {
        let nameStart = index
        // Attribute names: letters, digits, '.', '-' (stop at '[', SP, '(' ).
        while index < endIndex && isFetchAttributeNameByte(storage[index]) { index += 1 }
        guard index > nameStart else {
            throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected a FETCH item")
        }
        let nameEnd = index
        switch attributeKey(nameStart..<nameEnd) {
        case .uid:
            try expectSpace()
            return .uid(try parseNumber())
        case .flags:
            try expectSpace()
            return .flags(try parseFlagList())
        case .rfc822Size:
            try expectSpace()
            return .rfc822Size(try parseNumber64())
        case .internalDate:
            try expectSpace()
            return .internalDate(try parseDateTime())
        case .envelope:
            try expectSpace()
            return .envelope(try parseEnvelope())
        case .bodyStructure:
            try expectSpace()
            return .bodyStructure(try parseBodyStructureTolerantly(extensible: true))
        case .body:
            if peek == UInt8(ascii: "[") {
                let section = try parseSection()
                let origin = try parseOrigin()
                try expectSpace()
                return .bodySection(section, origin: origin, try parseNString())
            }
            try expectSpace()
            return .body(try parseBodyStructureTolerantly(extensible: false))
        case .binary:
            let part = try parseBinarySection()
            let origin = try parseOrigin()
            try expectSpace()
            return .binary(part: part, origin: origin, try parseNString())
        case .binarySize:
            let part = try parseBinarySection()
            try expectSpace()
            return .binarySize(part: part, try parseNumber())
        case .rfc822:
            try expectSpace()
            return .rfc822(try parseNString())
        case .rfc822Header:
            try expectSpace()
            return .rfc822Header(try parseNString())
        case .rfc822Text:
            try expectSpace()
            return .rfc822Text(try parseNString())
        case .preview:
            try expectSpace()
            return .preview(try parseNString())
        case .modificationSequence:
            try expectSpace()
            try expect(UInt8(ascii: "("))
            let value = try parseNumber64()
            try expect(UInt8(ascii: ")"))
            return .modificationSequence(value)
        case .gmailMessageID:
            try expectSpace()
            return .gmailMessageID(try parseNumber64())
        case .gmailThreadID:
            try expectSpace()
            return .gmailThreadID(try parseNumber64())
        case .gmailLabels:
            try expectSpace()
            return .gmailLabels(
                try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> ByteString in
                    if cursor.peek == UInt8(ascii: "\"") || cursor.peek == UInt8(ascii: "{") {
                        return try cursor.parseString()
                    }
                    return ByteString(try cursor.parseLooseAtom())
                })
        case .unknown:
            // Keep the whole item (any [section]<origin> and its value) as raw bytes.
            let fullName = String(decoding: storage[nameStart..<nameEnd], as: UTF8.self)
            var valueStart = index
            let hasSection = peek == UInt8(ascii: "[") || peek == UInt8(ascii: "<")
            if peek == UInt8(ascii: "[") { try skipGenericValue() }
            if peek == UInt8(ascii: "<") {
                while let byte = peek, byte != UInt8(ascii: ">") { index += 1 }
                try expect(UInt8(ascii: ">"))
            }
            if skipSpaces(), let byte = peek, byte != UInt8(ascii: ")") {
                if !hasSection { valueStart = index }
                try skipGenericValue()
            }
            return .unknown(name: fullName, raw: ByteString(storage[valueStart..<index]))
        }
    }

    // "<" number ">"
    mutating func parseOrigin() throws(IMAPParseError) -> UInt32? {
        guard consume(UInt8(ascii: "<")) else { return nil }
        let origin = try parseNumber()
        try expect(UInt8(ascii: ">"))
        return origin
    }

    /// The attribute named by the bytes at `name`.
    private func attributeKey(_ name: Range<Int>) -> AttributeKey {
        // Dispatch on length first: one comparison for the common names.
        switch name.count {
        case 3 where equalsFolded(name, "UID"): return .uid
        case 4 where equalsFolded(name, "BODY"): return .body
        case 5 where equalsFolded(name, "FLAGS"): return .flags
        case 6 where equalsFolded(name, "MODSEQ"): return .modificationSequence
        case 6 where equalsFolded(name, "RFC822"): return .rfc822
        case 6 where equalsFolded(name, "BINARY"): return .binary
        case 7 where equalsFolded(name, "PREVIEW"): return .preview
        case 8 where equalsFolded(name, "ENVELOPE"): return .envelope
        case 10 where equalsFolded(name, "X-GM-MSGID"): return .gmailMessageID
        case 10 where equalsFolded(name, "X-GM-THRID"): return .gmailThreadID
        case 11 where equalsFolded(name, "RFC822.SIZE"): return .rfc822Size
        case 11 where equalsFolded(name, "RFC822.TEXT"): return .rfc822Text
        case 11 where equalsFolded(name, "BINARY.SIZE"): return .binarySize
        case 11 where equalsFolded(name, "X-GM-LABELS"): return .gmailLabels
        case 12 where equalsFolded(name, "INTERNALDATE"):
            return .internalDate
        case 13 where equalsFolded(name, "BODYSTRUCTURE"): return .bodyStructure
        case 13 where equalsFolded(name, "RFC822.HEADER"): return .rfc822Header
        default: return .unknown
        }
    }

    /// Whether the bytes at `name` spell `upper` (upper case ASCII), ignoring case.
    @inline(__always) private func equalsFolded(_ name: Range<Int>, _ upper: StaticString) -> Bool {
        // The StaticString's bytes read through its pointer (`withUTF8Buffer` took a closure call
        // per name): `offset` stays under its length because the lengths are equal.
        guard name.count == upper.utf8CodeUnitCount else { return false }
        let expected = upper.utf8Start
        var position = name.lowerBound
        var offset = 0
        while position < name.upperBound {
            let actual = storage[position]
            let folded = actual >= 0x61 && actual <= 0x7A ? actual - 0x20 : actual
            guard folded == expected[offset] else { return false }
            position += 1
            offset += 1
        }
        return true
    }

    // envelope = "(" env-date SP env-subject SP env-from SP env-sender SP env-reply-to SP env-to SP
    //            env-cc SP env-bcc SP env-in-reply-to SP env-message-id ")"
    /// An ENVELOPE. Tolerates `()` for an empty address list and NIL wherever a string goes.
    public mutating func parseEnvelope() throws(IMAPParseError) -> Envelope {
        try expect(UInt8(ascii: "("))
        return try nested { (cursor: inout ByteCursor) throws(IMAPParseError) -> Envelope in
            cursor.skipSpaces()
            let date = try cursor.parseNString()
            try cursor.expectSpace()
            let subject = try cursor.parseNString()
            try cursor.expectSpace()
            let fromStart = cursor.index
            let from = try cursor.parseAddressList()
            let fromText = fromStart..<cursor.index
            try cursor.expectSpace()
            // Servers fill sender and reply-to from From when the message has none (RFC 3501
            // 7.4.2), so they usually repeat From's text: the same text is the same list.
            let sender = cursor.consumeRepeat(of: fromText) ? from : try cursor.parseAddressList()
            try cursor.expectSpace()
            let replyTo = cursor.consumeRepeat(of: fromText) ? from : try cursor.parseAddressList()
            try cursor.expectSpace()
            let to = try cursor.parseAddressList()
            try cursor.expectSpace()
            let cc = try cursor.parseAddressList()
            try cursor.expectSpace()
            let bcc = try cursor.parseAddressList()
            try cursor.expectSpace()
            let inReplyTo = try cursor.parseNString()
            try cursor.expectSpace()
            let messageID = try cursor.parseNString()
            cursor.skipSpaces()
            try cursor.expect(UInt8(ascii: ")"))
            return Envelope(
                date: date, subject: subject, from: from, sender: sender, replyTo: replyTo, to: to, cc: cc, bcc: bcc,
                inReplyTo: inReplyTo, messageID: messageID)
        }
    }

    // env-from = "(" 1*address ")" / nil   (and likewise for the other address lists)
    mutating func parseAddressList() throws(IMAPParseError) -> [Address] {
        if consumeNIL() { return [] }
        try expect(UInt8(ascii: "("))
        return try nested { (cursor: inout ByteCursor) throws(IMAPParseError) -> [Address] in
            var addresses: [Address] = []
            cursor.skipSpaces()
            while !cursor.consume(UInt8(ascii: ")")) {
                if cursor.consumeNIL() {
                    // A NIL where an address belongs carries nothing; skip it.
                } else {
                    addresses.append(try cursor.parseAddress())
                }
                cursor.skipSpaces()
            }
            return addresses
        }
    }

    /// Consumes the bytes at the cursor when they repeat `earlier` exactly and a space follows:
    /// the caller reuses what it parsed from `earlier` (the grammar reads the same bytes the same
    /// way), instead of parsing them again.
    mutating func consumeRepeat(of earlier: Range<Int>) -> Bool {
        let count = earlier.count
        guard count > 0, index + count < endIndex, storage[index + count] == UInt8(ascii: " ") else { return false }
        // Eight bytes at a time: comparing the two slices element by element cost more than
        // parsing the list.
        let start = index
        let equal = storage.withUnsafeBytes { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            var offset = 0
            while offset + 8 <= count {
                let left = (base + earlier.lowerBound + offset).loadUnaligned(as: UInt64.self)
                let right = (base + start + offset).loadUnaligned(as: UInt64.self)
                guard left == right else { return false }
                offset += 8
            }
            while offset < count {
                guard bytes[earlier.lowerBound + offset] == bytes[start + offset] else { return false }
                offset += 1
            }
            return true
        }
        guard equal else { return false }
        index += count
        return true
    }

    // address = "(" addr-name SP addr-adl SP addr-mailbox SP addr-host ")"
    mutating func parseAddress() throws(IMAPParseError) -> Address {
        try expect(UInt8(ascii: "("))
        let name = try parseNString()
        try expectSpace()
        let adl = try parseNString()
        try expectSpace()
        let mailbox = try parseNString()
        try expectSpace()
        let host = try parseNString()
        skipSpaces()
        try expect(UInt8(ascii: ")"))
        return Address(name: name, adl: adl, mailbox: mailbox, host: host)
    }
}

/// A letter, a digit, `.` or `-`: a byte of a FETCH attribute's name (`RFC822.SIZE`, `X-GM-MSGID`).
/// Two 64-bit masks over ASCII: the global `CharacterClass.table` cost a `swift_once` per byte here.
@inline(__always) private func isFetchAttributeNameByte(_ byte: UInt8) -> Bool {
    // Bytes 0-63: '-' (45), '.' (46), '0'-'9' (48-57). Bytes 64-127: 'A'-'Z' (65-90), 'a'-'z' (97-122).
    let low: UInt64 = 0x03FF_6000_0000_0000
    let high: UInt64 = 0x07FF_FFFE_07FF_FFFE
    guard byte < 128 else { return false }
    return (byte < 64 ? low : high) >> UInt64(byte & 63) & 1 != 0
}

private enum AttributeKey {
    case uid, flags, rfc822Size, internalDate, envelope, body, bodyStructure, binary, binarySize
    case rfc822, rfc822Header, rfc822Text, preview, modificationSequence
    case gmailMessageID, gmailThreadID, gmailLabels, unknown
}
