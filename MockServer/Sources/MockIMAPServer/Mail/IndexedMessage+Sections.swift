public import IMAPCore
import MailMIME

extension IndexedMessage {
    /// The bytes of `BODY[section]` (RFC 3501 6.4.5), nil when the part does not exist (or HEADER
    /// or TEXT is asked of a part that is not a message/rfc822).
    ///
    /// - `[]`: the whole message; `[HEADER]`, `[TEXT]`: its header (with the empty line) and body;
    ///   `[HEADER.FIELDS (names)]` and `.NOT`: the matching fields in message order, then CRLF.
    /// - `[n.m]`: the body of a part; `[n.MIME]`: its MIME header. A message that is not
    ///   multipart has one part, `[1]`: its body (and `[1.MIME]` is its header, as in Dovecot).
    /// - For a message/rfc822 part, `[n.HEADER]`, `[n.TEXT]`, `[n.HEADER.FIELDS ...]` look into
    ///   the encapsulated message, and `[n.1]` ... continue in its parts.
    public func section(_ section: SectionSpecifier) -> [UInt8]? {
        var target = mime.root
        if !section.part.isEmpty {
            guard let part = Self.part(at: section.part, in: mime.root) else { return nil }
            switch section.kind {
            case .complete: return Array(bytes[part.bodyRange])
            case .mime: return Array(bytes[part.header.byteRange])
            case .header, .headerFields, .headerFieldsNot, .text:
                guard part.kind == .message, Self.isRFC822(part), let root = part.encapsulatedMessage?.root else {
                    return nil
                }
                target = root
            }
        }
        switch section.kind {
        case .complete: return section.part.isEmpty ? bytes : Array(bytes[target.bodyRange])
        case .mime: return nil
        case .header: return Array(bytes[target.header.byteRange])
        case .text: return Array(bytes[target.bodyRange])
        case .headerFields(let names):
            return headerFields(of: target.header, names: names, including: true, isMessage: section.part.isEmpty)
        case .headerFieldsNot(let names):
            return headerFields(of: target.header, names: names, including: false, isMessage: section.part.isEmpty)
        }
    }

    /// Why `BINARY[part]` has no content.
    public enum BinarySectionError: Error, Hashable, Sendable {
        /// There is no such part.
        case noSuchPart
        /// The part's Content-Transfer-Encoding is not one the server can decode: answer
        /// `NO [UNKNOWN-CTE]` (RFC 3516 section 4.3).
        case unknownTransferEncoding
    }

    /// The bytes of `BINARY[part]` (RFC 3516): the part's body with its transfer encoding
    /// undone; nil when the part does not exist or its encoding is unknown (see
    /// ``binarySection(_:)`` to tell them apart).
    ///
    /// A multipart or message/rfc822 part is returned with every part inside converted: bodies
    /// decoded, and in the header of each decoded part the Content-Transfer-Encoding field
    /// replaced by `Content-Transfer-Encoding: binary` (as Dovecot does). An empty path means the
    /// whole message, header included. Base64 is decoded leniently: a truncated final group
    /// yields the bytes it holds, where Dovecot fails the FETCH ("Base64 data ends prematurely").
    public func binary(_ part: [UInt32]) -> [UInt8]? { try? binarySection(part).get() }

    /// `BINARY[part]`, or why there is none.
    public func binarySection(_ path: [UInt32]) -> Result<[UInt8], BinarySectionError> {
        guard let part = path.isEmpty ? mime.root : Self.part(at: path, in: mime.root) else {
            return .failure(.noSuchPart)
        }
        var output: [UInt8] = []
        do {
            try appendBinary(of: part, includingHeader: path.isEmpty, to: &output)
        } catch {
            return .failure(error)
        }
        return .success(output)
    }

    /// The transfer encoding BINARY undoes for `part`, nil when it is unknown. Content-* fields
    /// count only in MIME entities (RFC 2045 section 4); Dovecot decodes base64 even without
    /// MIME-Version.
    private static func binaryTransferEncoding(_ part: MIMEPart) -> String? {
        guard part.isMIME else { return "7bit" }
        let fields = part.header.fields(named: "content-transfer-encoding")
        guard !fields.isEmpty else { return "7bit" }
        guard fields.contains(where: { MIMESyntax.transferEncoding($0.rawValue) != nil }), part.hasKnownTransferEncoding
        else { return nil }
        return part.transferEncoding
    }

    /// Appends the binary form of `part` (its header when `includingHeader`).
    private func appendBinary(
        of part: MIMEPart, includingHeader: Bool, to output: inout [UInt8]
    )
        throws(BinarySectionError)
    {
        guard let encoding = Self.binaryTransferEncoding(part) else { throw .unknownTransferEncoding }
        let isDecoded = encoding == "base64" || encoding == "quoted-printable"
        if includingHeader {
            if isDecoded {
                var end = part.header.byteRange.lowerBound
                for field in part.header.fields {
                    end = field.byteRange.upperBound
                    if !field.hasName("content-transfer-encoding") { output.append(contentsOf: field.bytes) }
                }
                output.append(contentsOf: Array("Content-Transfer-Encoding: binary\r\n".utf8))
                output.append(contentsOf: bytes[end..<max(end, part.header.byteRange.upperBound)])
            } else {
                output.append(contentsOf: bytes[part.header.byteRange])
            }
        }
        var inner: [MIMEPart] = []
        if part.kind == .multipart {
            inner = part.children
        } else if part.kind == .message, Self.isRFC822(part), let root = part.encapsulatedMessage?.root {
            inner = [root]
        }
        guard !inner.isEmpty else {
            output.append(contentsOf: isDecoded ? part.decodedBody(in: mime) : Array(bytes[part.bodyRange]))
            return
        }
        var position = part.bodyRange.lowerBound
        for child in inner {
            output.append(contentsOf: bytes[position..<max(position, child.header.byteRange.lowerBound)])
            try appendBinary(of: child, includingHeader: true, to: &output)
            position = child.bodyRange.upperBound
        }
        output.append(contentsOf: bytes[position..<max(position, part.bodyRange.upperBound)])
    }

    /// The part at an IMAP part path, walking the tree as RFC 3501 6.4.5 and Dovecot do: a part
    /// that is not multipart has one part (1, itself), and only message/rfc822 parts have parts
    /// inside.
    static func part(at path: [UInt32], in root: MIMEPart) -> MIMEPart? {
        var part = root
        for (position, number) in path.enumerated() {
            let isLast = position == path.count - 1
            let isMessage = part.kind == .message && isRFC822(part)
            if part.kind == .multipart {
                guard number >= 1, Int(number) <= part.children.count else { return nil }
                part = part.children[Int(number) - 1]
            } else {
                guard number == 1, isLast || isMessage else { return nil }
            }
            if !isLast, part.kind == .message, isRFC822(part) {
                guard let inner = part.encapsulatedMessage?.root else { return nil }
                part = inner
            }
        }
        return part
    }

    // header-list = "(" header-fld-name *(SP header-fld-name) ")"
    /// The fields of `header` whose names are (or, without `including`, are not) in `names`,
    /// in message order, followed by the blank line that ends the header (RFC 3501 6.4.5).
    ///
    /// Byte for byte as Dovecot answers where a header has no blank line ("except in the case of
    /// a message which has no body and no blank line", RFC 3501 6.4.5):
    /// - HEADER.FIELDS ends with a blank line and complete lines, also for the message's own
    ///   header without one (`isMessage`) and for an attached message's header cut short by the
    ///   next boundary; only an attached message's header that runs to the end of the message
    ///   without a blank line is copied as it is.
    /// - HEADER.FIELDS.NOT, like HEADER, ends with the blank line only when there is one.
    private func headerFields(
        of header: MIMEHeader, names: [ByteString], including: Bool, isMessage: Bool
    ) -> [UInt8] {
        var output: [UInt8] = []
        let wanted = names.map { $0.string }
        var fieldsEnd = header.byteRange.lowerBound
        for field in header.fields { fieldsEnd = max(fieldsEnd, field.byteRange.upperBound) }
        let hasBlankLine = header.byteRange.upperBound > fieldsEnd
        let runsToTheEnd = !hasBlankLine && header.byteRange.upperBound >= bytes.count
        let completesLines = !runsToTheEnd || isMessage
        for field in header.fields {
            guard wanted.contains(where: { field.hasName($0) }) == including else { continue }
            output.append(contentsOf: field.bytes)
            if completesLines, field.bytes.last != 0x0A { output += [0x0D, 0x0A] }
        }
        if hasBlankLine || (including && completesLines) { output += [0x0D, 0x0A] }
        return output
    }
}
