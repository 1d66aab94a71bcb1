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
        // The length and one or two words (see `foldedWords`): the constants are each name's
        // words, written out because the compiler did not fold them from the names' text.
        let words = foldedWords(at: name)
        switch (name.count, words.head, words.tail) {
        case (3, 0x0000_0000_0044_4955, 0): return .uid  // UID
        case (4, 0x0000_0000_5944_4F42, 0): return .body  // BODY
        case (5, 0x0000_0053_4741_4C46, 0): return .flags  // FLAGS
        case (6, 0x0000_5145_5344_4F4D, 0): return .modificationSequence  // MODSEQ
        case (6, 0x0000_1212_1843_4652, 0): return .rfc822  // RFC822
        case (6, 0x0000_5952_414E_4942, 0): return .binary  // BINARY
        case (7, 0x0057_4549_5645_5250, 0): return .preview  // PREVIEW
        case (8, 0x4550_4F4C_4556_4E45, 0x4550_4F4C_4556_4E45): return .envelope  // ENVELOPE
        case (10, 0x4753_4D0D_4D47_0D58, 0x4449_4753_4D0D_4D47): return .gmailMessageID  // X-GM-MSGID
        case (10, 0x5248_540D_4D47_0D58, 0x4449_5248_540D_4D47): return .gmailThreadID  // X-GM-THRID
        case (11, 0x530E_1212_1843_4652, 0x455A_4953_0E12_1218): return .rfc822Size  // RFC822.SIZE
        case (11, 0x540E_1212_1843_4652, 0x5458_4554_0E12_1218): return .rfc822Text  // RFC822.TEXT
        case (11, 0x530E_5952_414E_4942, 0x455A_4953_0E59_5241): return .binarySize  // BINARY.SIZE
        case (11, 0x4241_4C0D_4D47_0D58, 0x534C_4542_414C_0D4D): return .gmailLabels  // X-GM-LABELS
        case (12, 0x4C41_4E52_4554_4E49, 0x4554_4144_4C41_4E52): return .internalDate  // INTERNALDATE
        case (13, 0x5552_5453_5944_4F42, 0x4552_5554_4355_5254): return .bodyStructure  // BODYSTRUCTURE
        case (13, 0x480E_1212_1843_4652, 0x5245_4441_4548_0E12): return .rfc822Header  // RFC822.HEADER
        default: return .unknown
        }
    }

    /// A name of letters, digits, `.` and `-` as two little-endian words with bit 5 of every byte
    /// cleared: that folds case, and over this alphabet it maps no two other bytes together
    /// (digits go to 0x10-0x19, `.` and `-` to 0x0E and 0x0D). A name under eight bytes fills the
    /// first word; a longer one gives its first and its last eight bytes (they may overlap), which
    /// with its length tell every name apart. Comparing bytes one by one took a tenth of the
    /// attribute list's time.
    private func foldedWords(at name: Range<Int>) -> FoldedWords {
        storage.withUnsafeBytes { bytes -> FoldedWords in
            // `name` lies inside `storage`: the caller scanned it there.
            if name.count >= 8 {
                let head = bytes.loadUnaligned(fromByteOffset: name.lowerBound, as: UInt64.self)
                let tail = bytes.loadUnaligned(fromByteOffset: name.upperBound - 8, as: UInt64.self)
                return FoldedWords(
                    head: UInt64(littleEndian: head) & foldMask, tail: UInt64(littleEndian: tail) & foldMask)
            }
            var head: UInt64 = 0
            for offset in 0..<name.count { head |= UInt64(bytes[name.lowerBound + offset]) << (8 * offset) }
            return FoldedWords(head: head & foldMask, tail: 0)
        }
    }

    // envelope = "(" env-date SP env-subject SP env-from SP env-sender SP env-reply-to SP env-to SP
    //            env-cc SP env-bcc SP env-in-reply-to SP env-message-id ")"
    /// An ENVELOPE. Tolerates `()` for an empty address list and NIL wherever a string goes.
    @inline(__always) public mutating func parseEnvelope() throws(IMAPParseError) -> Envelope {
        try expect(UInt8(ascii: "("))
        try descend()
        defer { depth -= 1 }
        skipSpaces()
        let date = try parseNString()
        try expectSpace()
        let subject = try parseNString()
        try expectSpace()
        let fromStart = index
        let from = try parseAddressList()
        let fromText = fromStart..<index
        try expectSpace()
        // Servers fill sender and reply-to from From when the message has none (RFC 3501
        // 7.4.2), so they usually repeat From's text: the same text is the same list.
        let sender = consumeRepeat(of: fromText) ? from : try parseAddressList()
        try expectSpace()
        let replyTo = consumeRepeat(of: fromText) ? from : try parseAddressList()
        try expectSpace()
        let to = try parseAddressList()
        try expectSpace()
        let cc = try parseAddressList()
        try expectSpace()
        let bcc = try parseAddressList()
        try expectSpace()
        let inReplyTo = try parseNString()
        try expectSpace()
        let messageID = try parseNString()
        skipSpaces()
        try expect(UInt8(ascii: ")"))
        return Envelope(
            date: date, subject: subject, from: from, sender: sender, replyTo: replyTo, to: to, cc: cc, bcc: bcc,
            inReplyTo: inReplyTo, messageID: messageID)
    }

    // env-from = "(" 1*address ")" / nil   (and likewise for the other address lists)
    mutating func parseAddressList() throws(IMAPParseError) -> [Address] {
        // The common case, a parenthesis, is looked at before NIL.
        if peek != UInt8(ascii: "(") && consumeNIL() { return [] }
        try expect(UInt8(ascii: "("))
        try descend()
        defer { depth -= 1 }
        var addresses: [Address] = []
        skipSpaces()
        while !consume(UInt8(ascii: ")")) {
            if peek != UInt8(ascii: "(") && consumeNIL() {
                // A NIL where an address belongs carries nothing; skip it.
            } else if addresses.isEmpty {
                // The first address makes the array as a literal would, sized for one: most lists
                // hold one address, and the first append grew an empty array the generic way.
                addresses = [try parseAddress()]
            } else {
                addresses.append(try parseAddress())
            }
            skipSpaces()
        }
        return addresses
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
    // Inlined: returned from a call, a typed-throws function's result was copied (a retain per
    // string) into the caller's slot and the original destroyed.
    @inline(__always) mutating func parseAddress() throws(IMAPParseError) -> Address {
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

/// Bit 5 cleared in every byte of a word.
private let foldMask: UInt64 = 0xDFDF_DFDF_DFDF_DFDF

/// The words `foldedWords(at:)` compares.
private struct FoldedWords: Equatable {
    var head: UInt64
    var tail: UInt64
}

private enum AttributeKey {
    case uid, flags, rfc822Size, internalDate, envelope, body, bodyStructure, binary, binarySize
    case rfc822, rfc822Header, rfc822Text, preview, modificationSequence
    case gmailMessageID, gmailThreadID, gmailLabels, unknown
}
