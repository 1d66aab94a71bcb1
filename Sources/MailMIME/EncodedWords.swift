/// RFC 2047 encoded words: non-ASCII text in header fields such as Subject and the display names
/// of From and To.
///
/// ```
/// Subject: =?utf-8?q?S=C3=B8ren?= Tanaka
/// EncodedWords.decode("=?utf-8?q?S=C3=B8ren?= Tanaka")   // "Søren Tanaka"
/// EncodedWords.encode("Søren Tanaka")                    // "=?UTF-8?Q?S=C3=B8ren?= Tanaka"
/// ```
public enum EncodedWords {
    // MARK: Decoding

    /// Decodes the encoded words in a header field value; text outside them is kept as it is.
    ///
    /// - Charsets go through ``Charset`` (any case; an RFC 2231 language suffix as in
    ///   `=?utf-8*en?Q?...?=` is ignored), the encoding may be `B`/`b` or `Q`/`q`.
    /// - Linear white space between two adjacent encoded words is removed (RFC 2047 section 6.2),
    ///   also across folded lines, and the bytes of consecutive words in the same charset are
    ///   decoded together, so a character split between two words comes out whole.
    /// - A malformed encoded word (unknown charset, bad base64, bytes invalid in the charset,
    ///   missing `?=`) is left exactly as it is, and so is the white space around it.
    /// - Encoded words are recognized even where RFC 2047 does not allow them (inside a quoted
    ///   string, glued to other text), since mailers put them there and readers expect them decoded.
    public static func decode(_ text: String) -> String {
        let input = Array(text.utf8)
        guard input.count >= 8, containsMarker(input) else { return text }
        return render(pieces(of: input), from: input)
    }

    /// Decodes a raw header field value: its bytes are read as UTF-8, with invalid sequences
    /// replaced by U+FFFD, and then decoded like the `String` variant.
    public static func decode(_ bytes: some Collection<UInt8>) -> String {
        decode(String(decoding: bytes, as: UTF8.self))
    }

    /// One well-formed encoded word: where it is and the bytes it carries.
    private struct Word {
        var range: Range<Int>
        /// The charset as written, without an RFC 2231 language suffix.
        var charset: String
        /// The charset to compare with a neighbor's, to decide whether to join their bytes.
        var charsetKey: String
        var bytes: [UInt8]
    }

    /// A stretch of the input: plain text, or an encoded word.
    private enum Piece {
        case text(Range<Int>)
        case word(Word)
    }

    private static func containsMarker(_ input: [UInt8]) -> Bool {
        zip(input, input.dropFirst()).contains { $0 == UInt8(ascii: "=") && $1 == UInt8(ascii: "?") }
    }

    /// Splits `input` into text and well-formed encoded words.
    private static func pieces(of input: [UInt8]) -> [Piece] {
        var pieces: [Piece] = []
        var textStart = 0
        var index = 0
        var scan = TextScan()
        while index + 1 < input.count {
            guard input[index] == UInt8(ascii: "="), input[index + 1] == UInt8(ascii: "?"),
                let word = parseWord(in: input, at: index, scan: &scan)
            else {
                index += 1
                continue
            }
            if textStart < index { pieces.append(.text(textStart..<index)) }
            pieces.append(.word(word))
            index = word.range.upperBound
            textStart = index
        }
        if textStart < input.count { pieces.append(.text(textStart..<input.count)) }
        return pieces
    }

    // encoded-word = "=?" charset "?" encoding "?" encoded-text "?="
    // charset = token    ; RFC 2231 section 5 adds an optional "*" language
    // encoding = token   ; "B" or "Q", case-insensitive
    // encoded-text = 1*<Any printable ASCII character other than "?" or SPACE>
    /// The encoded word starting at `start` (at `=?`), or `nil` when there is none.
    ///
    /// A `?` not followed by `=` is accepted inside Q text, since some mailers leave it unencoded;
    /// the word then ends at the first `?=`.
    private static func parseWord(in input: [UInt8], at start: Int, scan: inout TextScan) -> Word? {
        var index = start + 2
        let charsetStart = index
        while index < input.count, isCharsetByte(input[index]) { index += 1 }
        guard index > charsetStart, index + 2 < input.count, input[index] == UInt8(ascii: "?"),
            input[index + 2] == UInt8(ascii: "?")
        else { return nil }
        let charsetEnd = input[charsetStart..<index].firstIndex(of: UInt8(ascii: "*")) ?? index
        guard charsetEnd > charsetStart else { return nil }
        let encoding = input[index + 1] | 0x20
        guard encoding == UInt8(ascii: "b") || encoding == UInt8(ascii: "q") else { return nil }
        let textStart = index + 3
        let textEnd = scan.stop(from: textStart, in: input)
        guard textEnd + 1 < input.count, input[textEnd] == UInt8(ascii: "?"), input[textEnd + 1] == UInt8(ascii: "=")
        else { return nil }
        let encodedText = input[textStart..<textEnd]
        let bytes: [UInt8]
        if encoding == UInt8(ascii: "b") {
            guard let decoded = Base64.decode(validating: encodedText) else { return nil }
            bytes = decoded
        } else {
            bytes = decodeQ(encodedText)
        }
        let charset = String(decoding: input[charsetStart..<charsetEnd], as: UTF8.self)
        return Word(
            range: start..<(textEnd + 2),
            charset: charset,
            charsetKey: Charset.decodingKey(charset) ?? charset,
            bytes: bytes
        )
    }

    /// The end of encoded text: the first `?=`, or the first byte that cannot be in encoded text.
    ///
    /// The last answer is kept, since a scan from anywhere between its start and its stop stops at
    /// the same place; so text full of `=?` without a `?=` is scanned once, not once per `=?`.
    private struct TextScan {
        var start = 0
        var end = -1

        mutating func stop(from position: Int, in input: [UInt8]) -> Int {
            if start <= position, position <= end { return end }
            var index = position
            while index < input.count, input[index] > 0x20, input[index] < 0x7F {
                if input[index] == UInt8(ascii: "?"), index + 1 < input.count, input[index + 1] == UInt8(ascii: "=") {
                    break
                }
                index += 1
            }
            start = position
            end = index
            return index
        }
    }

    // token = 1*<Any CHAR except SPACE, CTLs, and especials>
    // especials = "(" / ")" / "<" / ">" / "@" / "," / ";" / ":" / "\" / <"> / "/" / "[" / "]" / "?" / "." / "="
    /// Whether `byte` may appear in a charset name; `.` is allowed although it is an especial,
    /// since a few registered charset names contain it.
    private static func isCharsetByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21...0x7E:
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
                UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
                UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="):
                return false
            default: return true
            }
        default: return false
        }
    }

    /// The "Q" encoding (RFC 2047 section 4.2): `_` is a space, `=XY` a hex octet; an `=` that
    /// does not start a hex octet is kept as it is.
    private static func decodeQ(_ text: ArraySlice<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "="), text.endIndex - index >= 3,
                let high = QuotedPrintable.hexValue(text[index + 1]),
                let low = QuotedPrintable.hexValue(text[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
                continue
            }
            bytes.append(byte == UInt8(ascii: "_") ? 0x20 : byte)
            index += 1
        }
        return bytes
    }

    /// Whether `range` of `input` is only linear white space (spaces, tabs and line breaks).
    private static func isLinearWhitespace(_ range: Range<Int>, in input: [UInt8]) -> Bool {
        input[range].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    }

    /// Joins the pieces into the decoded string.
    private static func render(_ pieces: [Piece], from input: [UInt8]) -> String {
        var result = ""
        result.reserveCapacity(input.count)
        var index = 0
        while index < pieces.count {
            switch pieces[index] {
            case .text(let range):
                result += String(decoding: input[range], as: UTF8.self)
                index += 1
            case .word(let first):
                // A chain: encoded words with nothing but white space between them.
                var words = [first]
                var gaps: [Range<Int>] = []
                index += 1
                while index < pieces.count {
                    if case .word(let next) = pieces[index] {
                        gaps.append(next.range.lowerBound..<next.range.lowerBound)
                        words.append(next)
                        index += 1
                    } else if case .text(let gap) = pieces[index], isLinearWhitespace(gap, in: input),
                        index + 1 < pieces.count, case .word(let next) = pieces[index + 1]
                    {
                        gaps.append(gap)
                        words.append(next)
                        index += 2
                    } else {
                        break
                    }
                }
                let decoded = decodeChain(words)
                for (position, word) in words.enumerated() {
                    if position > 0, decoded[position - 1] == nil || decoded[position] == nil {
                        result += String(decoding: input[gaps[position - 1]], as: UTF8.self)
                    }
                    result += decoded[position] ?? String(decoding: input[word.range], as: UTF8.self)
                }
            }
        }
        return result
    }

    /// The text of each word in a chain, `nil` for a word that does not decode.
    ///
    /// The bytes of consecutive words in the same charset are decoded together (the whole text
    /// goes to the first of them, the others get ""), so a multibyte character split between
    /// words survives; when the joined bytes do not decode, each word is tried on its own.
    private static func decodeChain(_ words: [Word]) -> [String?] {
        var decoded = [String?](repeating: nil, count: words.count)
        var runStart = 0
        while runStart < words.count {
            var runEnd = runStart + 1
            while runEnd < words.count, words[runEnd].charsetKey == words[runStart].charsetKey { runEnd += 1 }
            let run = words[runStart..<runEnd]
            if run.count > 1, let text = Charset.decode(run.flatMap(\.bytes), charset: words[runStart].charset) {
                decoded[runStart] = text
                for position in (runStart + 1)..<runEnd { decoded[position] = "" }
            } else {
                for position in runStart..<runEnd {
                    decoded[position] = Charset.decode(words[position].bytes, charset: words[position].charset)
                }
            }
            runStart = runEnd
        }
        return decoded
    }

    // MARK: Encoding

    /// The longest an encoded word may be (RFC 2047 section 2).
    private static let maximumWordLength = 75
    /// `=?UTF-8?X?` and `?=`.
    private static let wordOverhead = 12

    /// Encodes `text` for a header field as RFC 2047 UTF-8 encoded words where it needs them.
    ///
    /// ASCII text without `=?` is returned unchanged. Otherwise each run of white-space-separated
    /// words that contain non-ASCII characters (or `=?` / `?=`, which a decoder could take for part
    /// of an encoded word) becomes encoded words, in Q encoding unless that is more than half again
    /// as long as B; the rest of the text stays as it is. Encoded words are at most 75 characters,
    /// split between characters, and separated by a space where a header writer may fold. Q
    /// encoding uses only the characters RFC 2047 section 5 (3) allows in a phrase, so the result
    /// is valid in any header field.
    public static func encode(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 }) || text.contains("=?") else { return text }
        var result = ""
        var pending = ""
        var pendingWhitespace = ""
        var hasPending = false

        func flush() {
            if hasPending { result += encodeRun(pending) }
            result += pendingWhitespace
            pending = ""
            pendingWhitespace = ""
            hasPending = false
        }

        for (isWhitespace, token) in tokens(of: text) {
            if isWhitespace {
                pendingWhitespace += token
            } else if needsEncoding(token) {
                if hasPending {
                    pending += pendingWhitespace + token
                    pendingWhitespace = ""
                } else {
                    result += pendingWhitespace
                    pendingWhitespace = ""
                    pending = token
                    hasPending = true
                }
            } else {
                flush()
                result += token
            }
        }
        flush()
        return result
    }

    /// `text` split into runs of spaces and tabs and runs of other characters.
    private static func tokens(of text: String) -> [(isWhitespace: Bool, text: String)] {
        var tokens: [(isWhitespace: Bool, text: String)] = []
        for character in text {
            let isWhitespace = character == " " || character == "\t"
            if let last = tokens.last, last.isWhitespace == isWhitespace {
                tokens[tokens.count - 1].text.append(character)
            } else {
                tokens.append((isWhitespace, String(character)))
            }
        }
        return tokens
    }

    private static func needsEncoding(_ word: String) -> Bool {
        word.utf8.contains { $0 >= 0x80 } || word.contains("=?") || word.contains("?=")
    }

    /// Whether a byte may stand for itself in Q encoded text anywhere (RFC 2047 section 5 (3)).
    private static func isQSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: " "):
            true
        default:
            false
        }
    }

    /// The length of `bytes` in Q encoded text.
    private static func qLength(_ bytes: some Sequence<UInt8>) -> Int {
        bytes.reduce(0) { $0 + (isQSafe($1) ? 1 : 3) }
    }

    /// The length of `count` bytes in B encoded text.
    private static func bLength(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Encodes `run` as encoded words separated by spaces.
    private static func encodeRun(_ run: String) -> String {
        // Q stays readable for mostly-Latin text, so it wins unless it is half again as long as B.
        let useQ = qLength(run.utf8) * 2 <= bLength(run.utf8.count) * 3
        let capacity = maximumWordLength - wordOverhead
        func fits(_ bytes: [UInt8]) -> Bool {
            (useQ ? qLength(bytes) : bLength(bytes.count)) <= capacity
        }

        // Chunks of whole characters, or of whole scalars for a character too long for one word.
        var chunks: [[UInt8]] = []
        var current: [UInt8] = []
        func add(_ piece: [UInt8]) {
            if !fits(current + piece), !current.isEmpty {
                chunks.append(current)
                current = []
            }
            current += piece
        }
        for character in run {
            let bytes = Array(character.utf8)
            if fits(bytes) {
                add(bytes)
            } else {
                for scalar in character.unicodeScalars { add(Array(String(scalar).utf8)) }
            }
        }
        if !current.isEmpty { chunks.append(current) }

        return chunks.map { useQ ? "=?UTF-8?Q?" + encodeQ($0) + "?=" : "=?UTF-8?B?" + Base64.encode($0) + "?=" }
            .joined(separator: " ")
    }

    /// The "Q" encoding (RFC 2047 section 4.2) of `bytes`, limited to phrase-safe characters.
    private static func encodeQ(_ bytes: [UInt8]) -> String {
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3)
        for byte in bytes {
            if byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "_"))
            } else if isQSafe(byte) {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "="), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
