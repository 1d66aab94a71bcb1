/// Case-insensitive matching of text by Unicode simple case folding (the `C` and `S` mappings
/// of CaseFolding.txt): `Ä` matches `ä`, `Σ` and `ς` match `σ`, `ſ` matches `s`. Characters keep
/// their accents (`e` does not match `é`), and one character never becomes two (`ß` does not
/// match `ss`).
///
/// Searching folds as it goes, without copying the text, so a search over many messages costs a
/// few nanoseconds per byte.
///
/// ```
/// CaseFolding.contains("Grüße aus MÜNCHEN", "münchen")   // true
/// ```
public enum CaseFolding {
    /// `text` case folded.
    public static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(fold(scalar)) }
        return String(scalars)
    }

    /// The simple case folding of one scalar.
    public static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        Unicode.Scalar(fold(scalar.value)) ?? scalar
    }

    /// The simple case folding of a scalar value (a table lookup below U+10000).
    static func fold(_ value: UInt32) -> UInt32 {
        if value < 0x80 { return value >= 0x41 && value <= 0x5A ? value | 0x20 : value }
        if value < 0x10000 { return tableFold(value) }
        guard let scalar = Unicode.Scalar(value) else { return value }
        return computeFold(scalar).value
    }

    /// The folding of a scalar value below U+10000, whose folds all stay below U+10000, from
    /// the generated tables of CaseFoldingTable.swift: `computeFold` of every such scalar,
    /// computed once when the tables were written rather than in every process that searches
    /// (65,536 property lookups cost about a millisecond, a twentieth of a whole search).
    package static func tableFold(_ value: UInt32) -> UInt32 {
        let block = Int(foldBlockNumbers[Int(value >> 8)])
        guard block != 0 else { return value }
        return UInt32(foldBlocks[(block - 1) << 8 | Int(value & 0xFF)])
    }

    /// The simple case folding of `scalar` from the Unicode properties (what the tables hold
    /// below U+10000; `CaseFoldingTableTests` checks that they still agree, and rewrites them).
    package static func computeFold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let value = scalar.value
        if value < 0x80 { return value >= 0x41 && value <= 0x5A ? Unicode.Scalar(UInt8(value | 0x20)) : scalar }
        // Scripts without case (CJK, Hangul, kana, symbols) are the bulk of non-Latin mail text.
        if value >= 0x2E80 && value < 0xA640 || value >= 0xAC00 && value < 0xFB00 { return scalar }
        let properties = scalar.properties
        guard properties.changesWhenCaseFolded else { return scalar }
        if let lower = single(properties.lowercaseMapping), lower != scalar { return lower }
        // Lowercase letters that fold elsewhere (ς, ſ, µ, ϐ): their uppercase's lowercase.
        if let upper = single(properties.uppercaseMapping), let lower = single(upper.properties.lowercaseMapping) {
            return lower
        }
        return scalar
    }

    private static func single(_ text: String) -> Unicode.Scalar? {
        var iterator = text.unicodeScalars.makeIterator()
        guard let first = iterator.next(), iterator.next() == nil else { return nil }
        return first
    }

    /// Whether `haystack` contains `needle`, ignoring case (simple case folding). An empty
    /// needle is contained in everything.
    public static func contains(_ haystack: String, _ needle: String) -> Bool {
        let pattern = needle.unicodeScalars.map { fold($0.value) }
        guard !pattern.isEmpty else { return true }
        var haystack = haystack
        return haystack.withUTF8 { text in search(text, pattern) }
    }

    /// `needle` folded, for ``contains(_:folded:)``: a search over many texts folds its needle once.
    package static func pattern(_ needle: String) -> [UInt32] { needle.unicodeScalars.map { fold($0.value) } }

    /// Whether `haystack` contains the folded `pattern` (from ``pattern(_:)``), ignoring case.
    package static func contains(_ haystack: Substring, folded pattern: [UInt32]) -> Bool {
        guard !pattern.isEmpty else { return true }
        var haystack = haystack
        return haystack.withUTF8 { text in search(text, pattern) }
    }

    /// The scalar at `index` of valid UTF-8 `text` and its length in bytes.
    @inline(__always)
    private static func scalar(in text: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int) {
        let lead = UInt32(text[index])
        if lead < 0x80 { return (lead, 1) }
        if lead < 0xE0 { return ((lead & 0x1F) << 6 | UInt32(text[index + 1] & 0x3F), 2) }
        if lead < 0xF0 {
            return ((lead & 0x0F) << 12 | UInt32(text[index + 1] & 0x3F) << 6 | UInt32(text[index + 2] & 0x3F), 3)
        }
        let value =
            (lead & 0x07) << 18 | UInt32(text[index + 1] & 0x3F) << 12 | UInt32(text[index + 2] & 0x3F) << 6
            | UInt32(text[index + 3] & 0x3F)
        return (value, 4)
    }

    /// Whether valid UTF-8 `text`, folded scalar by scalar, contains the folded `pattern`.
    private static func search(_ text: UnsafeBufferPointer<UInt8>, _ pattern: [UInt32]) -> Bool {
        let first = pattern[0]
        var start = 0
        while start < text.count {
            let (value, length) = scalar(in: text, at: start)
            if fold(value) == first {
                var position = start + length
                var matched = 1
                while matched < pattern.count, position < text.count {
                    let (next, nextLength) = scalar(in: text, at: position)
                    guard fold(next) == pattern[matched] else { break }
                    matched += 1
                    position += nextLength
                }
                if matched == pattern.count { return true }
            }
            start += length
        }
        return false
    }
}
