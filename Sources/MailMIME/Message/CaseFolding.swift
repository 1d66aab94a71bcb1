/// Case-insensitive matching of text by Unicode simple case folding (the `C` and `S` mappings
/// of CaseFolding.txt): `Ä` matches `ä`, `Σ` and `ς` match `σ`, `ſ` matches `s`. Characters keep
/// their accents (`e` does not match `é`), and one character never becomes two (`ß` does not
/// match `ss`).
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
        let value = scalar.value
        if value < 0x80 { return value >= 0x41 && value <= 0x5A ? Unicode.Scalar(value | 0x20)! : scalar }
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
        let pattern = Array(fold(needle).utf8)
        return contains(haystack, foldedNeedle: pattern)
    }

    /// Whether `haystack` contains `foldedNeedle` (UTF-8 of text already folded with
    /// ``fold(_:)``), ignoring case; for searching many texts for one needle.
    public static func contains(_ haystack: String, foldedNeedle: [UInt8]) -> Bool {
        guard !foldedNeedle.isEmpty else { return true }
        var haystack = haystack
        return haystack.withUTF8 { text in
            if text.allSatisfy({ $0 < 0x80 }) {
                guard foldedNeedle.allSatisfy({ $0 < 0x80 }) else { return false }
                return search(text, foldedNeedle) { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            }
            let folded = Array(fold(String(decoding: text, as: UTF8.self)).utf8)
            return folded.withUnsafeBufferPointer { search($0, foldedNeedle) { $0 } }
        }
    }

    /// Whether `text`, mapped byte by byte, contains `needle`.
    private static func search(_ text: UnsafeBufferPointer<UInt8>, _ needle: [UInt8], map: (UInt8) -> UInt8) -> Bool {
        let count = needle.count
        guard count <= text.count else { return false }
        let first = needle[0]
        var start = 0
        let last = text.count - count
        while start <= last {
            if map(text[start]) == first {
                var offset = 1
                while offset < count, map(text[start + offset]) == needle[offset] { offset += 1 }
                if offset == count { return true }
            }
            start += 1
        }
        return false
    }
}
