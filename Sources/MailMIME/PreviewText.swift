/// The short text a mail list shows under the subject (RFC 8970 PREVIEW's rules): the start of the
/// message's text with HTML tags removed and all white space collapsed to single spaces.
public enum PreviewText {
    /// At most `limit` characters of `text`; tags and entities are removed first when `isHTML`.
    public static func make(from text: String, isHTML: Bool = false, limit: Int = 200) -> String {
        let plain = isHTML ? strippingHTML(text) : text
        var result = ""
        var count = 0
        var pendingSpace = false
        for character in plain {
            if character.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                guard count + 1 < limit else { break }
                result.append(" ")
                count += 1
                pendingSpace = false
            }
            guard count < limit else { break }
            result.append(character)
            count += 1
        }
        return result
    }

    /// `html` without tags, comments, `<style>`/`<script>` contents, and with the common entities
    /// decoded.
    public static func strippingHTML(_ html: String) -> String {
        let bytes = Array(html.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                let closer: [UInt8]
                if hasPrefix(bytes, at: index, "<!--") {
                    closer = Array("-->".utf8)
                } else if hasPrefix(bytes, at: index, "<style") {
                    closer = Array("</style>".utf8)
                } else if hasPrefix(bytes, at: index, "<script") {
                    closer = Array("</script>".utf8)
                } else {
                    closer = [UInt8(ascii: ">")]
                }
                guard let end = find(closer, in: bytes, from: index + 1) else { break }
                output.append(UInt8(ascii: " "))  // tags separate words
                index = end + closer.count
                continue
            }
            if byte == UInt8(ascii: "&"),
                let semicolon = bytes[index..<min(bytes.count, index + 10)].firstIndex(of: 0x3B),
                let decoded = decodeEntity(String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self))
            {
                output.append(contentsOf: String(decoded).utf8)
                index = semicolon + 1
                continue
            }
            output.append(byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether `bytes` has `prefix` (ASCII, case-insensitive) at `index`.
    private static func hasPrefix(_ bytes: [UInt8], at index: Int, _ prefix: String) -> Bool {
        let wanted = Array(prefix.utf8)
        guard index + wanted.count <= bytes.count else { return false }
        for offset in 0..<wanted.count where lowercased(bytes[index + offset]) != wanted[offset] { return false }
        return true
    }

    /// The first position of `needle` (ASCII, case-insensitive) at or after `start`.
    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var position = start
        while position + needle.count <= bytes.count {
            var matches = true
            for offset in 0..<needle.count where lowercased(bytes[position + offset]) != needle[offset] {
                matches = false
                break
            }
            if matches { return position }
            position += 1
        }
        return nil
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    private static func decodeEntity(_ entity: String) -> Character? {
        switch entity.lowercased() {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos", "#39": return "'"
        case "nbsp": return " "
        default:
            if entity.hasPrefix("#x") || entity.hasPrefix("#X"), let value = UInt32(entity.dropFirst(2), radix: 16),
                let scalar = Unicode.Scalar(value)
            {
                return Character(scalar)
            }
            if entity.hasPrefix("#"), let value = UInt32(entity.dropFirst()), let scalar = Unicode.Scalar(value) {
                return Character(scalar)
            }
            return nil
        }
    }
}
