/// A parameter of SELECT or EXAMINE (RFC 4466 `select-param`), such as RFC 7162's CONDSTORE.
///
/// `C: a8 SELECT INBOX (CONDSTORE)` has the parameters `[.condStore]`. Parameters the parser does
/// not know (QRESYNC and others) are kept with their value as raw bytes.
public enum SelectParameter: Hashable, Sendable {
    /// `CONDSTORE`: enable CONDSTORE and report mod-sequences (RFC 7162 3.1.8).
    case condStore
    /// Any other parameter: its name and the raw bytes of its value, if it has one
    /// (`QRESYNC (67890007 90060115194045000)` has the value `(67890007 90060115194045000)`).
    case other(name: String, value: ByteString?)
}

extension ByteCursor {
    // select-param = select-param-name [SP select-param-value]
    // select-param-name = tagged-ext-label
    // select-param-value = tagged-ext-val
    // tagged-ext-label = tagged-label-fchar *tagged-label-char
    // tagged-label-fchar = ALPHA / "-" / "_" / "."
    // tagged-label-char = tagged-label-fchar / DIGIT / ":"
    /// One SELECT parameter.
    public mutating func parseSelectParameter() throws(IMAPParseError) -> SelectParameter {
        let start = index
        guard let first = peek,
            isASCIILetter(first) || first == UInt8(ascii: "-") || first == UInt8(ascii: "_")
                || first == UInt8(ascii: ".")
        else { throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected a SELECT parameter name") }
        while let byte = peek,
            isASCIILetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
        {
            index += 1
        }
        let name = String(decoding: storage[start..<index], as: UTF8.self)
        let value = try? attempt { (cursor: inout ByteCursor) throws(IMAPParseError) -> ByteString in
            try cursor.expectSpace()
            return try cursor.parseTaggedExtensionValue()
        }
        if value == nil && name.uppercased() == "CONDSTORE" { return .condStore }
        return .other(name: name, value: value)
    }

    // select-params = SP "(" select-param *(SP select-param) ")"
    /// The parenthesized SELECT parameters (after the SP).
    public mutating func parseSelectParameters() throws(IMAPParseError) -> [SelectParameter] {
        try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> SelectParameter in
            try cursor.parseSelectParameter()
        }
    }

    // tagged-ext-val = tagged-ext-simple / "(" [tagged-ext-comp] ")"
    // tagged-ext-simple = sequence-set / number / number64
    // tagged-ext-comp = astring / tagged-ext-comp *(SP tagged-ext-comp) / "(" tagged-ext-comp ")"
    /// An extension value, checked against the grammar and returned as its raw bytes.
    mutating func parseTaggedExtensionValue() throws(IMAPParseError) -> ByteString {
        let start = index
        if peek == UInt8(ascii: "(") {
            try skipTaggedExtensionList()
        } else {
            while let byte = peek,
                isDigit(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "*")
                    || byte == UInt8(ascii: "$")
            {
                index += 1
            }
            guard index > start else {
                throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected a number, a set or a list")
            }
        }
        return ByteString(storage[start..<index])
    }

    // "(" [tagged-ext-comp] ")"
    // tagged-ext-comp = astring / tagged-ext-comp *(SP tagged-ext-comp) / "(" tagged-ext-comp ")"
    private mutating func skipTaggedExtensionList() throws(IMAPParseError) {
        _ = try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> Bool in
            if cursor.peek == UInt8(ascii: "(") {
                try cursor.skipTaggedExtensionList()
            } else {
                _ = try cursor.parseAString()
            }
            return true
        }
    }
}

extension EncodeBuffer {
    /// Writes one SELECT parameter.
    public mutating func write(_ parameter: SelectParameter) {
        switch parameter {
        case .condStore:
            writeRaw("CONDSTORE")
        case .other(let name, let value):
            writeRaw(name)
            if let value {
                writeSpace()
                writeBytes(value.bytes)
            }
        }
    }
}
