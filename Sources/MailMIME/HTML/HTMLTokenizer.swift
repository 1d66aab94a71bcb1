/// One piece of an HTML document as ``HTMLTokenizer`` reads it.
enum HTMLToken {
    /// Character data between tags, character references not yet decoded.
    case text(ArraySlice<UInt8>)
    /// `<name ...>` or `<name .../>`.
    case startTag(HTMLTag)
    /// `</name>`.
    case endTag(name: String)
}

/// A start tag: its name and the bytes of its attributes, read on demand (a reader needs only
/// `href`, `alt` and `start`).
struct HTMLTag {
    /// The tag name with ASCII letters lowercased (`p`, `h1`, `o:p`).
    var name: String
    /// The document the tag came from.
    var input: [UInt8]
    /// Where the attributes lie in `input`: after the name, before the `>` (or `/>`).
    var attributeRange: Range<Int>

    /// The value of the attribute `wanted` (lowercase), character references decoded; nil when
    /// the tag has no such attribute, "" when it has no value.
    func attribute(_ wanted: String) -> String? {
        var index = attributeRange.lowerBound
        let end = attributeRange.upperBound
        while index < end {
            while index < end, HTMLTokenizer.isSpace(input[index]) || input[index] == UInt8(ascii: "/") { index += 1 }
            let nameStart = index
            while index < end, !HTMLTokenizer.isSpace(input[index]), input[index] != UInt8(ascii: "=") { index += 1 }
            let name = HTMLTokenizer.lowercased(input[nameStart..<index])
            while index < end, HTMLTokenizer.isSpace(input[index]) { index += 1 }
            var value: Range<Int>?
            if index < end, input[index] == UInt8(ascii: "=") {
                index += 1
                while index < end, HTMLTokenizer.isSpace(input[index]) { index += 1 }
                if index < end, input[index] == UInt8(ascii: "\"") || input[index] == UInt8(ascii: "'") {
                    let quote = input[index]
                    let valueStart = index + 1
                    index = valueStart
                    while index < end, input[index] != quote { index += 1 }
                    value = valueStart..<index
                    index = min(end, index + 1)
                } else {
                    let valueStart = index
                    while index < end, !HTMLTokenizer.isSpace(input[index]) { index += 1 }
                    value = valueStart..<index
                }
            }
            guard name == wanted else { continue }
            guard let value else { return "" }
            return HTMLTokenizer.decodingReferences(input, in: value)
        }
        return nil
    }
}

/// Splits HTML into text and tags, leniently and in one pass: comments, `<!DOCTYPE>`, `<?...>`
/// and the content of `<script>`, `<style>` and `<title>` are skipped; a `<` that starts no
/// tag is text; a quoted attribute value may hold `>`.
///
/// ```
/// var tokenizer = HTMLTokenizer(Array("<p class=x>Hi &amp; bye</p>".utf8))
/// tokenizer.next()   // .startTag(p), then .text("Hi &amp; bye"), .endTag("p"), nil
/// ```
struct HTMLTokenizer {
    private let input: [UInt8]
    private var index = 0

    /// A tokenizer at the start of `input`.
    init(_ input: [UInt8]) { self.input = input }

    /// The next token; nil at the end.
    mutating func next() -> HTMLToken? {
        while index < input.count {
            if input[index] != UInt8(ascii: "<") {
                let start = index
                while index < input.count, input[index] != UInt8(ascii: "<") { index += 1 }
                return .text(input[start..<index])
            }
            let after = index + 1
            guard after < input.count else {
                index = input.count
                return .text(input[(after - 1)...])
            }
            let first = input[after]
            if first == UInt8(ascii: "!") || first == UInt8(ascii: "?") {
                if startsWith("<!--", at: index) {
                    skip(past: "-->", from: index + 4)
                } else if startsWith("<![cdata[", at: index) {
                    let start = index + 9
                    skip(past: "]]>", from: start)
                    let end = max(start, startsWith("]]>", at: index - 3) ? index - 3 : index)
                    return .text(input[start..<end])
                } else {
                    skip(past: ">", from: after)
                }
                continue
            }
            let isEnd = first == UInt8(ascii: "/")
            let nameStart = isEnd ? after + 1 : after
            guard nameStart < input.count, Self.isLetter(input[nameStart]) else {
                // Not a tag: the `<` is text.
                index = after
                return .text(input[(after - 1)..<after])
            }
            var nameEnd = nameStart
            while nameEnd < input.count, !Self.isSpace(input[nameEnd]), input[nameEnd] != UInt8(ascii: ">"),
                input[nameEnd] != UInt8(ascii: "/")
            {
                nameEnd += 1
            }
            let name = Self.lowercased(input[nameStart..<nameEnd])
            let tagEnd = endOfTag(from: nameEnd)
            index = min(input.count, tagEnd + 1)
            if isEnd { return .endTag(name: name) }
            var attributeEnd = tagEnd
            if attributeEnd > nameEnd, input[attributeEnd - 1] == UInt8(ascii: "/") { attributeEnd -= 1 }
            if name == "script" || name == "style" || name == "title" { skipRawText(closing: name) }
            return .startTag(HTMLTag(name: name, input: input, attributeRange: nameEnd..<max(nameEnd, attributeEnd)))
        }
        return nil
    }

    /// Where the `>` that ends a tag is (or the end of the input): a `>` inside a quoted
    /// attribute value does not end it.
    private func endOfTag(from start: Int) -> Int {
        var position = start
        var afterEquals = false
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: ">") { return position }
            if afterEquals, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                position += 1
                while position < input.count, input[position] != byte { position += 1 }
                afterEquals = false
            } else if byte == UInt8(ascii: "=") {
                afterEquals = true
            } else if !Self.isSpace(byte) {
                afterEquals = false
            }
            position += 1
        }
        return input.count
    }

    /// Skips the content of a raw-text element up to and past its end tag (`</script>`), or to
    /// the end of the input.
    private mutating func skipRawText(closing name: String) {
        let closing = Array(("</" + name).utf8)
        while index < input.count {
            if input[index] == UInt8(ascii: "<"), startsWith(closing, at: index) {
                let after = index + closing.count
                if after >= input.count || Self.isSpace(input[after]) || input[after] == UInt8(ascii: ">") {
                    index = min(input.count, endOfTag(from: after) + 1)
                    return
                }
            }
            index += 1
        }
    }

    /// Moves past the next `terminator` at or after `start`, or to the end.
    private mutating func skip(past terminator: String, from start: Int) {
        let bytes = Array(terminator.utf8)
        index = start
        while index < input.count, !startsWith(bytes, at: index) { index += 1 }
        index = min(input.count, index + bytes.count)
    }

    private func startsWith(_ text: String, at position: Int) -> Bool { startsWith(Array(text.utf8), at: position) }

    /// Whether `text` (lowercase) starts at `position`, ASCII letters compared without case.
    private func startsWith(_ text: [UInt8], at position: Int) -> Bool {
        guard position >= 0, position + text.count <= input.count else { return false }
        for offset in 0..<text.count where Self.lowercased(input[position + offset]) != text[offset] { return false }
        return true
    }

    // MARK: Bytes

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.lazy.map { lowercased($0) }, as: UTF8.self)
    }

    /// The text of `input[range]` with character references decoded.
    static func decodingReferences(_ input: [UInt8], in range: Range<Int>) -> String {
        let value = Array(input[range])  // so a reference cannot reach past the value
        var output: [UInt8] = []
        output.reserveCapacity(value.count)
        var index = 0
        while index < value.count {
            if value[index] == UInt8(ascii: "&") {
                index += 1
                HTMLText.decodeReference(value, at: &index, into: &output)
            } else {
                output.append(value[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
