/// The readable text of HTML, for search and previews: tags become spaces, character references
/// are decoded, comments, `<script>`, `<style>` and (when asked) `<blockquote>` quotes are
/// dropped. Not a renderer: no layout, just the words in order.
///
/// ```
/// HTMLText.text(of: "<p>Caf&eacute;&nbsp;<b>au</b> lait</p>")   // "Café\u{A0} au lait "
/// ```
public enum HTMLText {
    /// The text of `html`. With `skippingQuotes`, the content of `<blockquote>` elements (quoted
    /// replies) is left out.
    public static func text(of html: String, skippingQuotes: Bool = false) -> String {
        let input = Array(html.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        var quoteLevel = 0

        func addSpace() {
            if let last = output.last, last != 0x20 { output.append(0x20) }
        }
        func startsWith(_ text: StaticString, at position: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= input.count else { return false }
            return text.withUTF8Buffer { bytes in
                (0..<count).allSatisfy { input[position + $0] | 0x20 == bytes[$0] | 0x20 }
            }
        }
        func isTagNameEnd(_ position: Int) -> Bool {
            position >= input.count || [0x20, 0x09, 0x0D, 0x0A, UInt8(ascii: ">")].contains(input[position])
        }
        /// Skips to after `terminator` (case-insensitive), or to the end.
        func skip(past terminator: StaticString) {
            while index < input.count, !startsWith(terminator, at: index) { index += 1 }
            index = min(input.count, index + terminator.utf8CodeUnitCount)
        }

        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "<") {
                let name = index + 1
                if startsWith("!--", at: name) {
                    index = name + 3
                    skip(past: "-->")
                    continue
                }
                if startsWith("script", at: name), isTagNameEnd(name + 6) {
                    skip(past: "</script>")
                    addSpace()
                    continue
                }
                if startsWith("style", at: name), isTagNameEnd(name + 5) {
                    skip(past: "</style>")
                    addSpace()
                    continue
                }
                if startsWith("![CDATA[", at: name) {
                    index = name + 8
                    while index < input.count, !startsWith("]]>", at: index) {
                        if quoteLevel == 0 { output.append(input[index]) }
                        index += 1
                    }
                    index = min(input.count, index + 3)
                    continue
                }
                if skippingQuotes {
                    if startsWith("blockquote", at: name), isTagNameEnd(name + 10) {
                        quoteLevel += 1
                    } else if quoteLevel > 0, startsWith("/blockquote>", at: name) {
                        quoteLevel -= 1
                    }
                }
                // Skip the tag, honoring quoted attribute values.
                index = name
                var quote: UInt8?
                while index < input.count {
                    let current = input[index]
                    index += 1
                    if let open = quote {
                        if current == UInt8(ascii: "\\") {
                            index += 1
                        } else if current == open {
                            quote = nil
                        }
                    } else if current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") {
                        quote = current
                    } else if current == UInt8(ascii: ">") {
                        addSpace()
                        break
                    }
                }
                continue
            }
            if byte == UInt8(ascii: "&") {
                index += 1
                decodeReference(input, at: &index, into: &output)
                continue
            }
            if quoteLevel == 0 { output.append(byte) }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes the character reference after an `&` (`amp;`, `#233;`, `#xE9;`); an unknown name
    /// is dropped, a reference without `;` within 10 characters keeps its text. Shared with
    /// ``HTMLReadableText``, so both read references alike.
    static func decodeReference(_ input: [UInt8], at index: inout Int, into output: inout [UInt8]) {
        var end = index
        while end < input.count, end - index < 10, input[end] != UInt8(ascii: ";"),
            ![0x20, 0x09, 0x0D, 0x0A].contains(input[end])
        {
            end += 1
        }
        guard end < input.count, input[end] == UInt8(ascii: ";") else {
            output.append(UInt8(ascii: "&"))
            return
        }
        let name = String(decoding: input[index..<end], as: UTF8.self)
        index = end + 1
        var value: UInt32?
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            value = UInt32(name.dropFirst(2), radix: 16)
        } else if name.hasPrefix("#") {
            value = UInt32(name.dropFirst())
        } else {
            value = entities[name] ?? entities[name.lowercased()]
        }
        if let value, let scalar = Unicode.Scalar(value), value != 0 {
            output.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
    }

    /// Named character references: the common ones and HTML 4's Latin-1 set.
    private static let entities: [String: UInt32] = {
        var table: [String: UInt32] = [
            "amp": 38, "lt": 60, "gt": 62, "quot": 34, "apos": 39, "euro": 0x20AC, "hellip": 0x2026, "mdash": 0x2014,
            "ndash": 0x2013, "lsquo": 0x2018, "rsquo": 0x2019, "sbquo": 0x201A, "ldquo": 0x201C, "rdquo": 0x201D,
            "bdquo": 0x201E, "bull": 0x2022, "trade": 0x2122, "dagger": 0x2020, "permil": 0x2030, "lsaquo": 0x2039,
            "rsaquo": 0x203A, "oelig": 0x0153, "OElig": 0x0152, "scaron": 0x0161, "Scaron": 0x0160, "zwsp": 0x200B,
            "ensp": 0x2002, "emsp": 0x2003, "thinsp": 0x2009, "zwnj": 0x200C, "zwj": 0x200D,
        ]
        let latin1 = """
            nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 \
            acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde \
            Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc \
            Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml \
            aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc \
            otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml
            """
        for (offset, name) in latin1.split(separator: " ").enumerated() { table[String(name)] = 160 + UInt32(offset) }
        return table
    }()
}
