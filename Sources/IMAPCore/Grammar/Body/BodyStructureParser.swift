extension ByteCursor {
    /// A body structure; when it does not fit the grammar, its raw bytes as `.invalid` (the
    /// parentheses must still balance), so one odd message does not fail the FETCH response.
    public mutating func parseBodyStructureTolerantly(extensible: Bool) throws(IMAPParseError) -> BodyStructure {
        let start = index
        do {
            return try parseBody()
        } catch {
            index = start
            depth = 0
            try skipGenericValue()
            return .invalid(ByteString(storage[start..<index]))
        }
    }

    // body = "(" (body-type-1part / body-type-mpart) ")"
    /// A BODY or BODYSTRUCTURE value.
    public mutating func parseBody() throws(IMAPParseError) -> BodyStructure {
        try expect(UInt8(ascii: "("))
        return try nested { (cursor: inout ByteCursor) throws(IMAPParseError) -> BodyStructure in
            cursor.skipSpaces()
            let body: BodyStructure
            if cursor.peek == UInt8(ascii: "(") {
                body = .multipart(try cursor.parseMultipartBody())
            } else {
                body = .singlepart(try cursor.parseSinglePartBody())
            }
            cursor.skipSpaces()
            try cursor.expect(UInt8(ascii: ")"))
            return body
        }
    }

    // body-type-mpart = 1*body SP media-subtype [SP body-ext-mpart]
    // body-ext-mpart = body-fld-param [SP body-fld-dsp [SP body-fld-lang [SP body-fld-loc *(SP body-extension)]]]
    mutating func parseMultipartBody() throws(IMAPParseError) -> MultipartBody {
        var parts: [BodyStructure] = []
        while peek == UInt8(ascii: "(") {
            parts.append(try parseBody())
            skipSpaces()
        }
        let subtype = try parseString()
        guard peek == UInt8(ascii: " ") else { return MultipartBody(parts: parts, mediaSubtype: subtype) }
        try expectSpace()
        var fields = BodyExtension(fieldCount: 1)
        fields.parameters = try parseBodyParameters()
        try parseExtensionTail(into: &fields)
        return MultipartBody(parts: parts, mediaSubtype: subtype, extension: fields)
    }

    // body-type-1part = (body-type-basic / body-type-msg / body-type-text) [SP body-ext-1part]
    // body-type-basic = media-basic SP body-fields
    // body-type-msg = media-message SP body-fields SP envelope SP body SP body-fld-lines
    // body-type-text = media-text SP body-fields SP body-fld-lines
    // body-fields = body-fld-param SP body-fld-id SP body-fld-desc SP body-fld-enc SP body-fld-octets
    // body-ext-1part = body-fld-md5 [SP body-fld-dsp [SP body-fld-lang [SP body-fld-loc *(SP body-extension)]]]
    mutating func parseSinglePartBody() throws(IMAPParseError) -> SinglePartBody {
        let mediaType = try parseString()
        try expectSpace()
        let mediaSubtype = try parseString()
        try expectSpace()
        let parameters = try parseBodyParameters()
        try expectSpace()
        let id = try parseNString()
        try expectSpace()
        let description = try parseNString()
        try expectSpace()
        let encoding = try parseString()
        try expectSpace()
        let size = try parseNumber()
        let kind: SinglePartBody.Kind
        // RFC 9051 sends message/global like message/rfc822; RFC 3501 servers (Dovecot 2.3) send
        // it as a basic part, without an envelope.
        let isGlobalWithEnvelope =
            mediaSubtype.equalsCaseInsensitive("global") && peek == UInt8(ascii: " ")
            && peek(offset: 1) == UInt8(ascii: "(")
        if mediaType.equalsCaseInsensitive("message")
            && (mediaSubtype.equalsCaseInsensitive("rfc822") || isGlobalWithEnvelope)
        {
            try expectSpace()
            let envelope = try parseEnvelope()
            try expectSpace()
            let body = try parseBodyStructureTolerantly(extensible: true)
            try expectSpace()
            kind = .message(envelope, body, lineCount: try parseNumber())
        } else if mediaType.equalsCaseInsensitive("text") {
            try expectSpace()
            kind = .text(lineCount: try parseNumber())
        } else {
            kind = .basic
        }
        var body = SinglePartBody(
            mediaType: mediaType, mediaSubtype: mediaSubtype, parameters: parameters, id: id, description: description,
            encoding: encoding, size: size, kind: kind)
        guard peek == UInt8(ascii: " ") else { return body }
        try expectSpace()
        var fields = BodyExtension(fieldCount: 1)
        fields.md5 = try parseNString()
        try parseExtensionTail(into: &fields)
        body.extension = fields
        return body
    }

    /// `[SP body-fld-dsp [SP body-fld-lang [SP body-fld-loc *(SP body-extension)]]]`
    private mutating func parseExtensionTail(into fields: inout BodyExtension) throws(IMAPParseError) {
        guard skipSpaces(), peek != UInt8(ascii: ")") else { return }
        fields.disposition = try parseBodyDisposition()
        fields.fieldCount = 2
        guard skipSpaces(), peek != UInt8(ascii: ")") else { return }
        fields.language = try parseBodyLanguage()
        fields.fieldCount = 3
        guard skipSpaces(), peek != UInt8(ascii: ")") else { return }
        fields.location = try parseNString()
        fields.fieldCount = 4
        while skipSpaces(), peek != UInt8(ascii: ")") {
            fields.extensions.append(try parseBodyExtensionValue())
        }
    }

    // body-fld-param = "(" string SP string *(SP string SP string) ")" / nil
    mutating func parseBodyParameters() throws(IMAPParseError) -> [BodyParameter] {
        if consumeNIL() { return [] }
        try expect(UInt8(ascii: "("))
        var parameters: [BodyParameter] = []
        skipSpaces()
        while !consume(UInt8(ascii: ")")) {
            let name = try parseString()
            try expectSpace()
            // Some servers send NIL for an empty value.
            let value = try parseNString() ?? ""
            parameters.append(BodyParameter(name: name, value: value))
            skipSpaces()
        }
        return parameters
    }

    // body-fld-dsp = "(" string SP body-fld-param ")" / nil
    mutating func parseBodyDisposition() throws(IMAPParseError) -> BodyDisposition? {
        if consumeNIL() { return nil }
        try expect(UInt8(ascii: "("))
        let kind = try parseString()
        try expectSpace()
        let parameters = try parseBodyParameters()
        skipSpaces()
        try expect(UInt8(ascii: ")"))
        return BodyDisposition(kind: kind, parameters: parameters)
    }

    // body-fld-lang = nstring / "(" string *(SP string) ")"
    mutating func parseBodyLanguage() throws(IMAPParseError) -> [ByteString] {
        if peek == UInt8(ascii: "(") {
            return try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> ByteString in
                try cursor.parseString()
            }
        }
        guard let language = try parseNString() else { return [] }
        return [language]
    }

    // body-extension = nstring / number / number64 / "(" body-extension *(SP body-extension) ")"
    mutating func parseBodyExtensionValue() throws(IMAPParseError) -> BodyExtensionValue {
        if peek == UInt8(ascii: "(") {
            return .list(
                try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> BodyExtensionValue in
                    try cursor.parseBodyExtensionValue()
                })
        }
        if let byte = peek, isDigit(byte) { return .number(try parseNumber64()) }
        return .string(try parseNString())
    }
}
