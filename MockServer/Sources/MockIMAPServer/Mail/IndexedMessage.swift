public import IMAPCore
import MailMIME
public import SearchSemantics

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A stored message with everything IMAP asks about it: parsed once when it is stored, so FETCH
/// and SEARCH never parse MIME again.
///
/// The IMAP views follow RFC 3501 and, where the RFC leaves room, match Dovecot 2.3 byte for
/// byte (`Tests/MockIMAPServerTests/IndexedMessageTests.swift` compares them with a real Dovecot):
/// ENVELOPE strings are the raw header text (RFC 2047 words still encoded), BODYSTRUCTURE keeps
/// the case of types and parameters as written, sizes count CRLF line endings.
///
/// ```
/// let message = IndexedMessage(bytes: Array(raw))
/// message.size                                       // RFC822.SIZE
/// message.envelope.subject                           // "=?utf-8?q?R=C3=A9union?="
/// message.section(SectionSpecifier(part: [2], kind: .mime))
/// message.matchesSubstring("réunion", in: message.headerText("subject") ?? "")
/// ```
public struct IndexedMessage: Sendable {
    /// The message with CRLF line endings (bare LFs are converted when it is stored, as real
    /// servers store mail).
    public let bytes: [UInt8]
    /// The parsed MIME tree over `bytes`.
    let mime: MIMEMessage
    /// RFC 8970 PREVIEW text.
    public let preview: String
    /// The text SEARCH looks at, decoded once (`SearchSemantics`, which the local index shares).
    public let searchText: SearchableText

    /// The day of the Date header in the header's own time zone; nil without a readable one.
    public var sentDate: IMAPDate? { searchText.sentDate }
    /// The instant of the Date header, seconds since 1970 UTC (SORT DATE); nil without one.
    public var sentTimestamp: Int? { searchText.sentTimestamp }
    /// Every header field as `name: value` lines, unfolded and RFC 2047 decoded (for TEXT).
    public var allHeadersText: String { searchText.allHeadersText }
    /// The FROM, TO, CC and BCC address lists as SEARCH matches them
    /// (``SearchableText/addressText``).
    public var addressText: [String: String] { searchText.addressText }
    /// The decoded text of the body (``SearchableText/bodyText``).
    public var bodyText: String { searchText.bodyText }
    /// The MIME headers of the body parts (``SearchableText/partHeadersText``).
    public var partHeadersText: String { searchText.partHeadersText }

    /// Parses `bytes` once and builds the search index.
    public init(bytes: [UInt8]) {
        let normalized = Self.normalizingLineEndings(bytes)
        self.bytes = normalized
        let mime = MIMEMessage(bytes: normalized)
        self.mime = mime

        self.searchText = SearchableText(mime)
        self.preview = PreviewText.make(for: mime)
    }

    /// RFC822.SIZE: the number of bytes, with CRLF line endings.
    public var size: Int { bytes.count }

    // MARK: Search

    /// The values of all header fields called `name` (case-insensitive), unfolded, RFC 2047
    /// decoded and joined with "\n": "" when the field exists but is empty, nil when absent.
    public func headerText(_ name: String) -> String? { searchText.headerText(name) }

    /// The value of the first header field called `name` (case-insensitive), unfolded and RFC
    /// 2047 decoded; nil when absent.
    public func firstHeaderText(_ name: String) -> String? { searchText.firstHeaderText(name) }

    /// Whether `haystack` contains `needle`, ignoring case by Unicode simple case folding, as
    /// every SEARCH string key compares (RFC 3501 6.4.4: "case-insensitive substring"). Dovecot
    /// folds with i;unicode-casemap (RFC 5051), which also strips accents by decomposition; this
    /// does not (`e` does not find `é`).
    public func matchesSubstring(_ needle: String, in haystack: String) -> Bool {
        CaseFolding.contains(haystack, needle)
    }

    // MARK: Building

    /// `bytes` with every LF that lacks its CR given one.
    static func normalizingLineEndings(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { buffer -> [UInt8] in
            guard let base = buffer.baseAddress else { return bytes }
            var bare: [Int] = []
            var position = 0
            while position < buffer.count, let found = memchr(base + position, 0x0A, buffer.count - position) {
                let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if index == 0 || buffer[index - 1] != 0x0D { bare.append(index) }
                position = index + 1
            }
            guard !bare.isEmpty else { return bytes }
            var output: [UInt8] = []
            output.reserveCapacity(buffer.count + bare.count)
            var start = 0
            for index in bare {
                output.append(contentsOf: buffer[start..<index])
                output.append(0x0D)
                start = index
            }
            output.append(contentsOf: buffer[start...])
            return output
        }
    }
}
