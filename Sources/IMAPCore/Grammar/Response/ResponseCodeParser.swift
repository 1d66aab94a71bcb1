extension ByteCursor {
    // resp-text-code = "ALERT" / "BADCHARSET" [SP "(" charset *(SP charset) ")"] / capability-data /
    //     "PARSE" / "PERMANENTFLAGS" SP "(" [flag-perm *(SP flag-perm)] ")" / "READ-ONLY" /
    //     "READ-WRITE" / "TRYCREATE" / "UIDNEXT" SP nz-number / "UIDVALIDITY" SP nz-number /
    //     "UNSEEN" SP nz-number / "HIGHESTMODSEQ" SP mod-sequence-value / "NOMODSEQ" /
    //     "MODIFIED" SP sequence-set / "APPENDUID" SP nz-number SP append-uid /
    //     "COPYUID" SP nz-number SP uid-set SP uid-set / "CLOSED" / "UIDNOTSTICKY" /
    //     atom [SP 1*<any TEXT-CHAR except "]">]
    /// A bracketed response code. A known code whose arguments do not parse is kept as `.other`
    /// with its raw bytes rather than failing the response.
    public mutating func parseResponseCode() throws(IMAPParseError) -> ResponseCode {
        try expect(UInt8(ascii: "["))
        let nameStart = index
        let nameBytes = try run(of: .atom, what: "a response code")
        let name = String(decoding: nameBytes, as: UTF8.self)
        let afterName = index
        do {
            let code = try parseKnownResponseCode(name.uppercased())
            skipSpaces()
            try expect(UInt8(ascii: "]"))
            return code
        } catch {
            index = afterName
            _ = nameStart
            skipSpaces()
            let valueStart = index
            while let byte = peek, byte != UInt8(ascii: "]"), byte != UInt8(ascii: "\r"), byte != UInt8(ascii: "\n") {
                index += 1
            }
            let value = index > valueStart ? ByteString(storage[valueStart..<index]) : nil
            try expect(UInt8(ascii: "]"))
            return .other(name: name, value: value)
        }
    }

    private mutating func parseKnownResponseCode(_ name: String) throws(IMAPParseError) -> ResponseCode {
        switch name {
        case "ALERT": return .alert
        case "AUTHENTICATIONFAILED": return .authenticationFailed
        case "PARSE": return .parse
        case "READ-ONLY": return .readOnly
        case "READ-WRITE": return .readWrite
        case "TRYCREATE": return .tryCreate
        case "NOMODSEQ": return .noModificationSequence
        case "CLOSED": return .closed
        case "UIDNOTSTICKY": return .uidNotSticky
        case "BADCHARSET":
            guard skipSpaces(), peek == UInt8(ascii: "(") else { return .badCharset([]) }
            return .badCharset(
                try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> ByteString in
                    try cursor.parseAString()
                })
        case "CAPABILITY": return .capability(try parseCapabilityList())
        case "PERMANENTFLAGS":
            try expectSpace()
            return .permanentFlags(try parseFlagList())
        case "UIDNEXT":
            try expectSpace()
            return .uidNext(try parseNumber())
        case "UIDVALIDITY":
            try expectSpace()
            return .uidValidity(try parseNumber())
        case "UNSEEN":
            try expectSpace()
            return .unseen(try parseNumber())
        case "HIGHESTMODSEQ":
            try expectSpace()
            return .highestModificationSequence(try parseNumber64())
        case "MODIFIED":
            try expectSpace()
            return .modified(try parseSequenceSet())
        case "APPENDUID":
            try expectSpace()
            let validity = try parseNumber()
            try expectSpace()
            return .appendUID(uidValidity: validity, uids: try parseSequenceSet())
        case "COPYUID":
            try expectSpace()
            let validity = try parseNumber()
            try expectSpace()
            let source = try parseSequenceSet()
            try expectSpace()
            return .copyUID(uidValidity: validity, source: source, destination: try parseSequenceSet())
        default:
            throw error(.unexpectedByte, "not a known response code")
        }
    }
}
