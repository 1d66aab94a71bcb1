/// The syntax of MIME header fields at the byte level, as written: what an IMAP server reports in
/// BODYSTRUCTURE (RFC 3501 7.4.2), where type names keep their case and RFC 2231 values stay
/// encoded. ``ContentType`` and ``ContentDisposition`` are built on it and decode the values.
package enum MIMESyntax {
    /// One `attribute=value` pair as written: the attribute exactly (`name*0*`), the value
    /// unquoted.
    package struct WrittenParameter: Hashable, Sendable {
        /// The attribute exactly as written.
        package var name: [UInt8]
        /// The value, unquoted.
        package var value: [UInt8]

        /// A parameter.
        package init(name: [UInt8], value: [UInt8]) {
            self.name = name
            self.value = value
        }
    }

    /// A Content-Type value as written.
    package struct MediaType: Sendable {
        /// The type as written; empty when there is none.
        package var type: [UInt8]
        /// The subtype as written; nil when there is no `/`.
        package var subtype: [UInt8]?
        /// The parameters as Dovecot reads them, only when `type/subtype` was complete.
        package var parameters: [WrittenParameter]
        /// The parameters read past malformed ones (`; junk; charset=x` keeps `charset`).
        package var recoveredParameters: [WrittenParameter]
        /// Whether `type "/" subtype` was read completely.
        package var isWellFormed: Bool
    }

    // content := "Content-Type" ":" type "/" subtype *(";" parameter)      ; RFC 2045 5.1
    /// The type, subtype and parameters of a Content-Type value.
    package static func mediaType(_ value: ArraySlice<UInt8>) -> MediaType {
        var lexer = HeaderLexer(value)
        lexer.skipWhitespaceAndComments()
        var text: [UInt8] = []
        let outcome = lexer.readMediaType(into: &text)
        var type = text
        var subtype: [UInt8]?
        if let slash = text.firstIndex(of: UInt8(ascii: "/")) {
            type = Array(text[..<slash])
            subtype = Array(text[(slash + 1)...])
        }
        guard outcome != .failed else {
            return MediaType(type: type, subtype: subtype, parameters: [], recoveredParameters: [], isWellFormed: false)
        }
        let start = lexer.index
        let (parameters, hadErrors) = lexer.readParameters()
        var recovered = parameters
        if hadErrors {
            lexer.index = start
            recovered = lexer.readParameters(resynchronizing: true).parameters
        }
        return MediaType(
            type: type, subtype: subtype, parameters: parameters, recoveredParameters: recovered, isWellFormed: true)
    }

    // disposition := "Content-Disposition" ":" disposition-type *(";" disposition-parm)   ; RFC 2183
    /// The disposition type (possibly empty) and parameters of a Content-Disposition value; nil
    /// when the value is malformed before its parameters.
    package static func disposition(
        _ value: ArraySlice<UInt8>, resynchronizing: Bool = false
    )
        -> (type: [UInt8], parameters: [WrittenParameter])?
    {
        var lexer = HeaderLexer(value)
        lexer.skipWhitespaceAndComments()
        var type: [UInt8] = []
        guard lexer.readToken(into: &type) != .failed else { return nil }
        return (type, lexer.readParameters(resynchronizing: resynchronizing).parameters)
    }

    // encoding := "Content-Transfer-Encoding" ":" mechanism                  ; RFC 2045 6.1
    /// The mechanism of a Content-Transfer-Encoding value as written; nil unless the value is a
    /// single token (comments aside).
    package static func transferEncoding(_ value: ArraySlice<UInt8>) -> [UInt8]? {
        var lexer = HeaderLexer(value)
        lexer.skipWhitespaceAndComments()
        var token: [UInt8] = []
        guard lexer.readToken(into: &token) != .failed, lexer.skipWhitespaceAndComments() == .end, !token.isEmpty
        else { return nil }
        return token
    }

    // Language-Header = "Content-Language" ":" 1#Language-tag                 ; RFC 3282
    /// The language tags of a Content-Language value, up to the first that is not an atom.
    package static func languageTags(_ value: ArraySlice<UInt8>) -> [[UInt8]] {
        var lexer = HeaderLexer(value)
        lexer.skipWhitespaceAndComments()
        var tags: [[UInt8]] = []
        while true {
            var tag: [UInt8] = []
            guard lexer.readAtom(into: &tag) != .failed else { break }
            tags.append(tag)
            guard lexer.peek(is: UInt8(ascii: ",")) else { break }
            lexer.index += 1
            lexer.skipWhitespaceAndComments()
        }
        return tags
    }

    /// The value of a header field without the white space after the colon (RFC 5322 2.2 puts
    /// none there, but everyone writes one). A first line of nothing but white space loses only
    /// one character of it, as Dovecot does.
    package static func trimmedValue(_ raw: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var index = raw.startIndex
        while index < raw.endIndex, raw[index] == 0x20 || raw[index] == 0x09 { index += 1 }
        if index == raw.endIndex || raw[index] == 0x0D || raw[index] == 0x0A {
            // The first line is all white space (or empty).
            return index == raw.startIndex ? raw : raw[(raw.startIndex + 1)...]
        }
        return raw[index...]
    }

    // unfolding = remove each CRLF that is immediately followed by WSP          ; RFC 5322 2.2.3
    /// `value` with its line breaks removed; a line break not followed by white space (which a
    /// folded field never has) becomes a space, so words do not run together.
    package static func unfolded(_ value: ArraySlice<UInt8>) -> [UInt8] {
        guard value.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return Array(value) }
        var output: [UInt8] = []
        output.reserveCapacity(value.count)
        var index = value.startIndex
        while index < value.endIndex {
            let byte = value[index]
            index += 1
            if byte != 0x0D && byte != 0x0A {
                output.append(byte)
            } else if index < value.endIndex, ![0x20, 0x09, 0x0D, 0x0A].contains(value[index]) {
                output.append(0x20)
            }
        }
        return output
    }

    // MARK: RFC 2231

    // extended-parameter := (extended-initial-name "=" extended-initial-value) /
    //                       (extended-other-names "=" extended-other-values)
    // extended-initial-name := attribute [initial-section] "*"
    // initial-section := "*0" ; other-sections := "*" ("1" / "2" / ...) *DIGIT
    // extended-initial-value := [charset] "'" [language] "'" extended-other-values
    // extended-other-values := *(ext-octet / attribute-char) ; ext-octet := "%" 2(DIGIT / "A" / ... / "F")
    /// Decodes written parameters (RFC 2045 and RFC 2231): sections joined in order, `%XX`
    /// octets decoded from the charset of the first section, RFC 2047 encoded words in plain
    /// values decoded. Names come out lowercased; when a name appears both plain and in RFC
    /// 2231 form, the RFC 2231 value wins.
    package static func decodedParameters(_ written: [WrittenParameter]) -> [MIMEParameter] {
        guard !written.isEmpty else { return [] }
        if !written.contains(where: { $0.name.contains(UInt8(ascii: "*")) }) {
            // No RFC 2231 sections: the common case, without the bookkeeping.
            var result: [MIMEParameter] = []
            result.reserveCapacity(written.count)
            for parameter in written {
                let name = String(
                    decoding: parameter.name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
                guard !result.contains(where: { $0.name == name }) else { continue }
                result.append(MIMEParameter(name: name, value: decodePlainValue(parameter.value)))
            }
            return result
        }
        struct Section {
            var number: Int
            var isExtended: Bool
            var value: [UInt8]
        }
        var order: [String] = []
        var plain: [String: [UInt8]] = [:]
        var sections: [String: [Section]] = [:]
        for parameter in written {
            let name = parameter.name
            if let star = name.firstIndex(of: UInt8(ascii: "*")) {
                var rest = name[(star + 1)...]
                var number = 0
                var digits = 0
                while let first = rest.first, first >= 0x30, first <= 0x39, digits < 6 {
                    number = number * 10 + Int(first - 0x30)
                    digits += 1
                    rest = rest.dropFirst()
                }
                // `name*` alone is an extended value; `name*N` and `name*N*` are sections.
                let isExtended = rest.isEmpty && digits == 0 || rest.first == UInt8(ascii: "*")
                if rest.first == UInt8(ascii: "*") { rest = rest.dropFirst() }
                if rest.isEmpty {
                    let base = String(decoding: name[..<star], as: UTF8.self).lowercased()
                    if sections[base] == nil, plain[base] == nil { order.append(base) }
                    sections[base, default: []].append(
                        Section(number: number, isExtended: isExtended, value: parameter.value))
                    continue
                }
            }
            let key = String(decoding: name, as: UTF8.self).lowercased()
            if plain[key] == nil {
                if sections[key] == nil { order.append(key) }
                plain[key] = parameter.value
            }
        }
        return order.map { name in
            guard let parts = sections[name] else {
                return MIMEParameter(name: name, value: decodePlainValue(plain[name] ?? []))
            }
            return MIMEParameter(name: name, value: decodeSections(parts.sorted { $0.number < $1.number }))
        }

        func decodeSections(_ parts: [Section]) -> String {
            var bytes: [UInt8] = []
            var charset: String?
            for (position, part) in parts.enumerated() {
                guard part.isExtended else {
                    bytes.append(contentsOf: part.value)
                    continue
                }
                var value = part.value[...]
                if position == 0 {
                    let quotes = value.indices.filter { value[$0] == UInt8(ascii: "'") }
                    if quotes.count >= 2 {
                        charset = String(decoding: value[..<quotes[0]], as: UTF8.self)
                        value = value[(quotes[1] + 1)...]
                    }
                }
                appendPercentDecoded(value, to: &bytes)
            }
            if let charset, !charset.isEmpty, let text = Charset.decode(bytes, charset: charset) { return text }
            return Charset.decode(bytes, charset: "unknown-8bit") ?? String(decoding: bytes, as: UTF8.self)
        }
    }

    /// `%XX` octets decoded; a `%` without two hex digits stays.
    private static func appendPercentDecoded(_ value: ArraySlice<UInt8>, to output: inout [UInt8]) {
        var index = value.startIndex
        while index < value.endIndex {
            if value[index] == UInt8(ascii: "%"), value.endIndex - index >= 3,
                let high = QuotedPrintable.hexValue(value[index + 1]),
                let low = QuotedPrintable.hexValue(value[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(value[index])
                index += 1
            }
        }
    }

    /// A plain parameter value as text: UTF-8, else Windows-1252; RFC 2047 words decoded.
    private static func decodePlainValue(_ bytes: [UInt8]) -> String {
        let text =
            String(validating: bytes, as: UTF8.self) ?? Charset.decode(bytes, charset: "windows-1252")
            ?? String(decoding: bytes, as: UTF8.self)
        return text.contains("=?") ? EncodedWords.decode(text) : text
    }
}
