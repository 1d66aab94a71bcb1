/// A part of a message a reader lists after the text rather than showing it: a file, an image,
/// a forwarded message.
///
/// ```
/// MessageAttachment(name: "report.pdf", mimeType: "application/pdf", size: 48_213)
/// ```
public struct MessageAttachment: Hashable, Sendable {
    /// The file name (Content-Disposition `filename`, else Content-Type `name`, RFC 2231 and
    /// RFC 2047 decoded); for a forwarded message without one, its subject; nil when there is none.
    public var name: String?
    /// `type/subtype`, lowercased: `application/pdf`.
    public var mimeType: String
    /// The size in bytes once the transfer encoding (base64, quoted-printable) is undone.
    public var size: Int
    /// Whether ``size`` is an estimate: the message was fetched only in part and this part runs
    /// past what was fetched.
    public var isSizeApproximate: Bool

    /// An attachment.
    public init(name: String?, mimeType: String, size: Int, isSizeApproximate: Bool = false) {
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.isSizeApproximate = isSizeApproximate
    }

    /// The size for a person: `812 bytes`, `48.2 KB`, `3.4 MB` (1 KB = 1,024 bytes), after
    /// "about " when it is an estimate.
    public var sizeDescription: String {
        let text: String
        if size < 1024 {
            text = size == 1 ? "1 byte" : "\(size) bytes"
        } else if size < 1024 * 1024 {
            text = Self.oneDecimal(size, unit: 1024) + " KB"
        } else {
            text = Self.oneDecimal(size, unit: 1024 * 1024) + " MB"
        }
        return isSizeApproximate ? "about " + text : text
    }

    /// `size / unit` rounded to one decimal (`48.2`), without a trailing `.0`.
    private static func oneDecimal(_ size: Int, unit: Int) -> String {
        let tenths = (size * 10 + unit / 2) / unit
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }
}
