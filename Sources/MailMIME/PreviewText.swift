/// The short text a mail list shows under the subject (RFC 8970 PREVIEW's rules): the start of the
/// message's text with HTML tags removed and all white space collapsed to single spaces.
public enum PreviewText {
    /// At most `limit` characters of `text`; tags and entities are removed first when `isHTML`.
    public static func make(from text: String, isHTML: Bool = false, limit: Int = 200) -> String {
        let plain = isHTML ? HTMLText.text(of: text) : text
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
}
