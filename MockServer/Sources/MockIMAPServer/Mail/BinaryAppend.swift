import MailMIME

/// What a message appended with a literal8 (RFC 3516 4.4) is stored as: every part whose
/// Content-Transfer-Encoding is `binary` becomes base64 (the field's value replaced where it
/// stands, the body encoded in lines of 76), as Dovecot stores it. BODY then shows base64,
/// BINARY decodes it back to the bytes appended, and BINARY.SIZE counts those bytes.
///
/// ```
/// C: a APPEND INBOX ~{128+}
/// C: ...Content-Transfer-Encoding: binary\r\n\r\nab\0cd\r\n
/// C: f FETCH 1 (BINARY.SIZE[1] BINARY.PEEK[1] BODY.PEEK[1])
/// S: * 1 FETCH (BINARY.SIZE[1] 7 BINARY[1] ~{7}\r\nab\0cd\r\n BODY[1] {12}\r\nYWIAY2QNCg==)
/// ```
///
/// Without the conversion the stored message would need its line ends made CRLF (as every
/// message the mock stores does), which changes binary content: BINARY would no longer give back
/// what was appended (imaptest's `append-binary`).
enum BinaryAppend {
    /// `bytes` with each `binary` part in base64; `bytes` themselves when there is none.
    static func storedForm(of bytes: [UInt8]) -> [UInt8] {
        var edits: [(range: Range<Int>, replacement: [UInt8])] = []
        collectEdits(in: MIMEMessage(bytes: bytes).root, bytes: bytes, into: &edits)
        guard !edits.isEmpty else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 3 + 64)
        var position = 0
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            output.append(contentsOf: bytes[position..<edit.range.lowerBound])
            output.append(contentsOf: edit.replacement)
            position = edit.range.upperBound
        }
        output.append(contentsOf: bytes[position...])
        return output
    }

    private static func collectEdits(
        in part: MIMEPart, bytes: [UInt8], into edits: inout [(range: Range<Int>, replacement: [UInt8])]
    ) {
        switch part.kind {
        case .multipart:
            for child in part.children { collectEdits(in: child, bytes: bytes, into: &edits) }
        case .message:
            if let message = part.encapsulatedMessage { collectEdits(in: message.root, bytes: bytes, into: &edits) }
        case .single:
            guard part.isMIME,
                let field = part.header.fields.last(where: { $0.hasName("content-transfer-encoding") }),
                isBinary(field.rawValue)
            else { return }
            edits.append((field.rawValue.indices, Array(" base64".utf8)))
            edits.append((part.bodyRange, Array(Base64.encode(bytes[part.bodyRange], lineLength: 76).utf8)))
        }
    }

    /// Whether a Content-Transfer-Encoding value says `binary`, any case, after the space that
    /// follows the colon (Dovecot leaves a value with trailing spaces alone, and so does this).
    private static func isBinary(_ value: ArraySlice<UInt8>) -> Bool {
        let trimmed = value.drop(while: { $0 == 0x20 || $0 == 0x09 })
        return trimmed.count == 6 && String(decoding: trimmed, as: UTF8.self).lowercased() == "binary"
    }
}
