public import IMAPCore
import MailMIME

extension IndexedMessage {
    /// BODYSTRUCTURE (`extensible`) or BODY (RFC 3501 7.4.2): the MIME tree with each part's
    /// type, parameters, id, description, encoding, size in octets and, for text and
    /// message/rfc822, lines.
    ///
    /// As Dovecot writes it: types, subtypes, parameter names and values and the encoding keep
    /// the case they were written in; a text part without a charset gets `("charset"
    /// "us-ascii")`; a part without Content-Transfer-Encoding is `"7bit"`; RFC 2231 parameter
    /// sections are joined but stay encoded (`"filename*" "utf-8''R%C3%A9sum%C3%A9.pdf"`); the
    /// extension data is md5, disposition, language and location (multiparts: parameters,
    /// disposition, language, location). `message/global` is a basic part (RFC 3501 knows only
    /// message/rfc822).
    ///
    /// ```
    /// S: * 2 FETCH (BODYSTRUCTURE (("text" "plain" ("charset" "utf-8") NIL NIL "7bit" 1557 23 NIL NIL NIL NIL)
    ///      ("text" "html" ("charset" "utf-8") NIL NIL "quoted-printable" 1599 25 NIL NIL NIL NIL)
    ///      "alternative" ("boundary" "===============0779806719746691620==") NIL NIL NIL))
    /// ```
    public func bodyStructure(extensible: Bool) -> BodyStructure {
        Self.bodyStructure(of: mime.root, extensible: extensible)
    }

    /// The structure of `part`.
    static func bodyStructure(of part: MIMEPart, extensible: Bool) -> BodyStructure {
        let fields = PartFields(part)
        if part.kind == .multipart {
            var parts = part.children.map { bodyStructure(of: $0, extensible: extensible) }
            if parts.isEmpty {
                // A multipart without parts is not allowed; show one empty text part.
                parts = [
                    .singlepart(
                        SinglePartBody(
                            mediaType: "text", mediaSubtype: "plain", parameters: [defaultCharset], encoding: "7bit",
                            size: 0, kind: .text(lineCount: 0),
                            extension: extensible ? BodyExtension(fieldCount: 4) : nil))
                ]
            }
            var multipart = MultipartBody(parts: parts, mediaSubtype: ByteString(fields.mediaType?.subtype ?? []))
            if extensible {
                multipart.extension = BodyExtension(
                    parameters: fields.parameters, disposition: fields.disposition, language: fields.language,
                    location: fields.location, fieldCount: 4)
            }
            return .multipart(multipart)
        }

        let isMessage = part.kind == .message && isRFC822(part)
        let mediaType: ByteString
        let mediaSubtype: ByteString
        let isText: Bool
        if isMessage {
            mediaType = "message"
            mediaSubtype = "rfc822"
            isText = false
        } else if let declared = fields.mediaType, let subtype = declared.subtype {
            mediaType = ByteString(declared.type)
            mediaSubtype = ByteString(subtype)
            isText = mediaType.equalsCaseInsensitive("text")
        } else {
            // No Content-Type, or one without a subtype (`Content-Type: text`), which RFC 2045 5.2
            // recommends reading as the default, text/plain; charset=us-ascii.
            mediaType = "text"
            mediaSubtype = "plain"
            isText = true
        }
        var parameters = fields.mediaType?.subtype == nil ? [] : fields.parameters
        if isText, !parameters.contains(where: { $0.name.equalsCaseInsensitive("charset") }) {
            parameters.append(defaultCharset)
        }
        let kind: SinglePartBody.Kind
        if isText {
            kind = .text(lineCount: UInt32(clamping: part.lineCount))
        } else if isMessage {
            let inner = part.encapsulatedMessage
            kind = .message(
                inner.map { envelope(of: $0.header) } ?? Envelope(),
                inner.map { bodyStructure(of: $0.root, extensible: extensible) } ?? .invalid(ByteString("")),
                lineCount: UInt32(clamping: part.lineCount))
        } else {
            kind = .basic
        }
        var body = SinglePartBody(
            mediaType: mediaType, mediaSubtype: mediaSubtype, parameters: parameters, id: fields.id,
            description: fields.description, encoding: fields.encoding.map { ByteString($0) } ?? "7bit",
            size: UInt32(clamping: part.size), kind: kind)
        if extensible {
            body.extension = BodyExtension(
                md5: fields.md5, disposition: fields.disposition, language: fields.language, location: fields.location,
                fieldCount: 4)
        }
        return .singlepart(body)
    }

    private static let defaultCharset = BodyParameter(name: "charset", value: "us-ascii")

    /// Whether an encapsulated-message part is message/rfc822 (or has no type, inside a digest)
    /// rather than message/global.
    static func isRFC822(_ part: MIMEPart) -> Bool { part.contentType.subtype != "global" }

    /// The MIME fields of one part as BODYSTRUCTURE shows them.
    private struct PartFields {
        var mediaType: MIMESyntax.MediaType?
        var parameters: [BodyParameter] = []
        var encoding: [UInt8]?
        var id: ByteString?
        var description: ByteString?
        var md5: ByteString?
        var location: ByteString?
        var language: [ByteString] = []
        var disposition: BodyDisposition?

        init(_ part: MIMEPart) {
            var hasDispositionParameters = false
            for field in part.header.fields {
                // Every field here starts with "Content-".
                guard field.bytes.count > 8, field.bytes.first.map({ $0 | 0x20 }) == UInt8(ascii: "c") else {
                    continue
                }
                if field.hasName("content-type") {
                    if mediaType == nil {
                        let syntax = MIMESyntax.mediaType(field.rawValue)
                        mediaType = syntax
                        parameters = Self.dovecotParameters(syntax.parameters)
                    }
                    continue
                }
                guard part.isMIME else { continue }
                let value = MIMESyntax.trimmedValue(field.rawValue)
                if field.hasName("content-transfer-encoding") {
                    if encoding == nil { encoding = MIMESyntax.transferEncoding(field.rawValue) }
                } else if field.hasName("content-id") {
                    if id == nil { id = ByteString(MIMESyntax.unfolded(value)) }
                } else if field.hasName("content-description") {
                    if description == nil { description = ByteString(MIMESyntax.unfolded(value)) }
                } else if field.hasName("content-md5") {
                    if md5 == nil { md5 = ByteString(MIMESyntax.unfolded(value)) }
                } else if field.hasName("content-location") {
                    if location == nil { location = ByteString(MIMESyntax.unfolded(value)) }
                } else if field.hasName("content-language") {
                    if language.isEmpty { language = MIMESyntax.languageTags(field.rawValue).map { ByteString($0) } }
                } else if field.hasName("content-disposition") {
                    // Dovecot reads a later Content-Disposition while the one it has has no
                    // parameters.
                    guard !hasDispositionParameters, let syntax = MIMESyntax.disposition(field.rawValue) else {
                        continue
                    }
                    let parameters = Self.dovecotParameters(syntax.parameters)
                    disposition = BodyDisposition(kind: ByteString(syntax.type), parameters: parameters)
                    hasDispositionParameters = !parameters.isEmpty
                }
            }
        }

        /// Parameters as Dovecot reports them: plain ones in order, then the RFC 2231 ones
        /// sorted by name, each name's sections joined into one `name*` (still percent-encoded,
        /// `''` prepended when the first section has no charset) or, when a section number is
        /// missing, each section as written.
        static func dovecotParameters(_ written: [MIMESyntax.WrittenParameter]) -> [BodyParameter] {
            guard !written.isEmpty else { return [] }
            struct Section {
                var name: [UInt8]
                var number: Int
                var isExtended: Bool
                var value: [UInt8]
            }
            var plain: [BodyParameter] = []
            var sections: [Section] = []
            var number = 0
            for parameter in written {
                let name = parameter.name
                guard let star = name.firstIndex(of: UInt8(ascii: "*")) else {
                    plain.append(BodyParameter(name: ByteString(name), value: ByteString(parameter.value)))
                    continue
                }
                var position = star
                if position + 1 < name.count {
                    position += 1
                    number = 0
                    while position < name.count, name[position] >= 0x30, name[position] <= 0x39 {
                        number = number &* 10 &+ Int(name[position] - 0x30)
                        position += 1
                    }
                }
                var isExtended = false
                if position < name.count, name[position] == UInt8(ascii: "*") {
                    isExtended = true
                    position += 1
                }
                guard position == name.count else {
                    plain.append(BodyParameter(name: ByteString(name), value: ByteString(parameter.value)))
                    continue
                }
                sections.append(
                    Section(name: Array(name[..<star]), number: number, isExtended: isExtended, value: parameter.value))
            }
            guard !sections.isEmpty else { return plain }
            sections.sort { lhs, rhs in
                lhs.name != rhs.name ? lhs.name.lexicographicallyPrecedes(rhs.name) : lhs.number < rhs.number
            }
            var result = plain
            var start = 0
            while start < sections.count {
                var end = start
                var isComplete = true
                var hasExtended = false
                while end < sections.count, equalIgnoringCase(sections[end].name, sections[start].name) {
                    if sections[end].number != end - start { isComplete = false }
                    if sections[end].isExtended { hasExtended = true }
                    end += 1
                }
                if isComplete {
                    var value: [UInt8] = []
                    if !sections[start].isExtended, hasExtended { value += Array("''".utf8) }
                    for section in sections[start..<end] {
                        if !section.isExtended, hasExtended {
                            for byte in section.value {
                                if byte == UInt8(ascii: "%") { value += Array("%25".utf8) } else { value.append(byte) }
                            }
                        } else {
                            value += section.value
                        }
                    }
                    let name = sections[start].name + (hasExtended ? [UInt8(ascii: "*")] : [])
                    result.append(BodyParameter(name: ByteString(name), value: ByteString(value)))
                } else {
                    for section in sections[start..<end] {
                        let name = section.name + Array("*\(section.number)\(section.isExtended ? "*" : "")".utf8)
                        result.append(BodyParameter(name: ByteString(name), value: ByteString(section.value)))
                    }
                }
                start = end
            }
            return result
        }

        private static func equalIgnoringCase(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
            lhs.count == rhs.count
                && zip(lhs, rhs).allSatisfy { a, b in
                    a == b
                        || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
                }
        }
    }
}
