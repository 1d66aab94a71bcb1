public import IMAPCore
import MailMIME

/// A message built from fields, for seeding a test's mailbox: RFC 5322 headers with RFC 2047
/// encoded words where needed, a text and/or HTML body (quoted-printable when not plain ASCII),
/// and base64 attachments with RFC 2231 file names. JSON seeds and the demo mailbox are built by
/// it too.
///
/// ```swift
/// let message = MessageBuilder(
///     from: "Albus Dumbledore <albus@hogwarts.example>", to: ["harry@hogwarts.example"],
///     subject: "Café at noon", date: IMAPDateTime(secondsSinceEpoch: 1_709_643_900),
///     text: "See you there.",
///     attachments: [.init(filename: "menu.pdf", contentType: "application/pdf", data: pdfBytes)])
/// try server.store.seed(user: "alice", from: .message(message, flags: [.flagged]))
/// ```
public struct MessageBuilder: Sendable {
    /// A file carried by the message (base64 in a `multipart/mixed` part).
    public struct Attachment: Sendable {
        /// The file name (`Content-Disposition: attachment; filename=...`, RFC 2231 when not ASCII).
        public var filename: String
        /// `type/subtype`: `application/pdf`.
        public var contentType: String
        /// The file's bytes.
        public var data: [UInt8]
        /// Whether the part is `inline` (an image shown in the text) rather than `attachment`.
        public var isInline: Bool

        /// An attachment.
        public init(filename: String, contentType: String, data: [UInt8], isInline: Bool = false) {
            self.filename = filename
            self.contentType = contentType
            self.data = data
            self.isInline = isInline
        }
    }

    /// The sender: `Name <address>` or `address`.
    public var from: String?
    /// The recipients, each `Name <address>` or `address`.
    public var to: [String]
    /// The copy recipients.
    public var cc: [String]
    /// The blind copy recipients (a Bcc header, as a sent copy keeps it).
    public var bcc: [String]
    /// Where replies go.
    public var replyTo: [String]
    /// The subject (any text: encoded words are made when needed).
    public var subject: String?
    /// The Date header (nil: none). The received date (INTERNALDATE) is this one unless the
    /// seed gives another.
    public var date: IMAPDateTime?
    /// The Message-ID, with its angle brackets (`<1@example.com>`).
    public var messageID: String?
    /// The In-Reply-To header.
    public var inReplyTo: String?
    /// The plain text body.
    public var text: String?
    /// The HTML body (with ``text``: a `multipart/alternative`).
    public var html: String?
    /// The attachments, in order, after the body in a `multipart/mixed`.
    public var attachments: [Attachment]
    /// More header fields, written as given (`("List-Id", "<swift.lists.example>")`).
    public var extraHeaders: [(String, String)]

    /// A message; every part is optional (an empty message has a MIME-Version and an empty
    /// text body).
    public init(
        from: String? = nil, to: [String] = [], cc: [String] = [], bcc: [String] = [], replyTo: [String] = [],
        subject: String? = nil, date: IMAPDateTime? = nil, messageID: String? = nil, inReplyTo: String? = nil,
        text: String? = nil, html: String? = nil, attachments: [Attachment] = [], extraHeaders: [(String, String)] = []
    ) {
        self.from = from
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.replyTo = replyTo
        self.subject = subject
        self.date = date
        self.messageID = messageID
        self.inReplyTo = inReplyTo
        self.text = text
        self.html = html
        self.attachments = attachments
        self.extraHeaders = extraHeaders
    }

    /// The message's RFC 5322 bytes, CRLF line ends.
    public func bytes() -> [UInt8] {
        var header = ""
        func add(_ name: String, _ value: String) { header += "\(name): \(value)\r\n" }
        if let from { add("From", Self.addressList([from])) }
        if !to.isEmpty { add("To", Self.addressList(to)) }
        if !cc.isEmpty { add("Cc", Self.addressList(cc)) }
        if !bcc.isEmpty { add("Bcc", Self.addressList(bcc)) }
        if !replyTo.isEmpty { add("Reply-To", Self.addressList(replyTo)) }
        if let subject { add("Subject", EncodedWords.encode(subject)) }
        if let date { add("Date", Self.rfc5322Date(date)) }
        if let messageID { add("Message-ID", messageID) }
        if let inReplyTo { add("In-Reply-To", inReplyTo) }
        for (name, value) in extraHeaders { add(name, value) }
        add("MIME-Version", "1.0")
        var counter = 0
        let body = Self.body(text: text, html: html, attachments: attachments, counter: &counter)
        return Array((header + body.headers).utf8) + Array("\r\n".utf8) + body.content
    }

    private static func body(
        text: String?, html: String?, attachments: [Attachment], counter: inout Int
    ) -> (headers: String, content: [UInt8]) {
        let main: (headers: String, content: [UInt8])
        switch (text, html) {
        case (let text?, let html?):
            main = multipart(
                "alternative", [textPart(text, subtype: "plain"), textPart(html, subtype: "html")], counter: &counter)
        case (nil, let html?):
            main = textPart(html, subtype: "html")
        case (let text, nil):
            main = textPart(text ?? "", subtype: "plain")
        }
        guard !attachments.isEmpty else { return main }
        return multipart("mixed", [main] + attachments.map(attachmentPart), counter: &counter)
    }

    private static func textPart(_ text: String, subtype: String) -> (headers: String, content: [UInt8]) {
        let normalized = Array(MailStore.crlf(Array(text.utf8)))
        let isPlain =
            normalized.allSatisfy { $0 < 0x80 }
            && normalized.split(separator: UInt8(ascii: "\n")).allSatisfy { $0.count < 900 }
        var content = isPlain ? normalized : Array(QuotedPrintable.encode(normalized).utf8)
        if content.last != UInt8(ascii: "\n") { content += Array("\r\n".utf8) }
        let headers =
            "Content-Type: text/\(subtype); charset=\(isPlain ? "us-ascii" : "utf-8")\r\n"
            + "Content-Transfer-Encoding: \(isPlain ? "7bit" : "quoted-printable")\r\n"
        return (headers, content)
    }

    private static func attachmentPart(_ attachment: Attachment) -> (headers: String, content: [UInt8]) {
        let name = filenameParameter(attachment.filename)
        let disposition = attachment.isInline ? "inline" : "attachment"
        let headers =
            "Content-Type: \(attachment.contentType); name\(name)\r\n"
            + "Content-Disposition: \(disposition); filename\(name)\r\n" + "Content-Transfer-Encoding: base64\r\n"
        return (headers, Array((Base64.encode(attachment.data, lineLength: 76) + "\r\n").utf8))
    }

    /// `="name"`, or `*=utf-8''percent-encoded` for a non-ASCII name (RFC 2231).
    private static func filenameParameter(_ name: String) -> String {
        if name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }) { return "=\"\(name)\"" }
        var encoded = "*=utf-8''"
        for byte in name.utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2E {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return encoded
    }

    private static func multipart(
        _ subtype: String, _ parts: [(headers: String, content: [UInt8])], counter: inout Int
    ) -> (headers: String, content: [UInt8]) {
        counter += 1
        let boundary = "=_MockIMAPServer_\(subtype)_\(counter)_=="
        var content: [UInt8] = Array("This is a multi-part message in MIME format.\r\n".utf8)
        for part in parts {
            content += Array("\r\n--\(boundary)\r\n\(part.headers)\r\n".utf8)
            content += part.content
        }
        content += Array("\r\n--\(boundary)--\r\n".utf8)
        return ("Content-Type: multipart/\(subtype); boundary=\"\(boundary)\"\r\n", content)
    }

    /// Addresses `Name <a@b>` or `a@b`; names with non-ASCII text become encoded words, names
    /// with specials are quoted.
    static func addressList(_ addresses: [String]) -> String {
        addresses.map { address in
            guard let open = address.lastIndex(of: "<") else { return address.trimmingSpaces }
            let name = String(address[..<open]).trimmingSpaces.trimmingCharacters(quote: "\"")
            let rest = String(address[open...])
            guard !name.isEmpty else { return rest }
            if name.utf8.contains(where: { $0 >= 0x80 }) { return EncodedWords.encode(name) + " " + rest }
            if name.contains(where: { ",;:<>@.()[]\\\"".contains($0) }) {
                return "\"" + name.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
                    + "\" " + rest
            }
            return name + " " + rest
        }.joined(separator: ", ")
    }

    /// `Tue, 05 Mar 2024 14:05:00 +0100`.
    static func rfc5322Date(_ local: IMAPDateTime) -> String {
        let zoneMinutes = local.zoneMinutes
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((local.date.daysSinceEpoch % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let zone = abs(zoneMinutes)
        return "\(weekday), \(two(local.date.day)) \(IMAPDate.monthNames[local.date.month - 1]) \(local.date.year) "
            + "\(two(local.hour)):\(two(local.minute)):\(two(local.second)) "
            + "\(zoneMinutes < 0 ? "-" : "+")\(two(zone / 60))\(two(zone % 60))"
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    func trimmingCharacters(quote: Character) -> String {
        var text = Substring(self)
        if text.count >= 2 && text.first == quote && text.last == quote {
            text.removeFirst()
            text.removeLast()
        }
        return String(text)
    }
}
