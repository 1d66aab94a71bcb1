import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct AttachmentRuleTests {
    @Test(
        arguments: [
            ("application", "attachment", "a.pdf", true),
            ("application", nil, "a.pdf", true),
            ("application", "inline", "a.pdf", true),
            ("application", nil, nil, false),
            ("application", nil, "", false),
            ("text", "attachment", nil, true),
            ("TEXT", "ATTACHMENT", "notes.txt", true),
            ("text", nil, "notes.txt", false),
            ("text", "inline", "notes.txt", false),
            ("image", "inline", nil, false),
            ("image", nil, nil, false),
            ("image", "inline", "photo.jpg", true),
            ("multipart", nil, "x", false),
            ("message", nil, "forward.eml", true),
        ] as [(String, String?, String?, Bool)])
    func onePart(mediaType: String, disposition: String?, fileName: String?, expected: Bool) {
        #expect(
            AttachmentRule.isAttachment(mediaType: mediaType, disposition: disposition, fileName: fileName) == expected)
    }

    /// A multipart/mixed message with a text part and `part` (header lines and body).
    private func message(with part: String) -> MIMEMessage {
        let raw = """
            Subject: x
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="b"

            --b
            Content-Type: text/plain

            Hello
            --b
            \(part)
            --b--
            """.withCRLF
        return MIMEMessage(bytes: Array(raw.utf8))
    }

    @Test(arguments: [
        ("Content-Type: application/pdf\nContent-Disposition: attachment; filename=\"a.pdf\"\n\nx", true),
        ("Content-Type: application/pdf; name=\"a.pdf\"\n\nx", true),
        (
            "Content-Type: application/pdf\nContent-Disposition: attachment; filename*=utf-8''R%C3%A9sum%C3%A9.pdf\n\nx",
            true
        ),
        ("Content-Type: text/plain\nContent-Disposition: attachment\n\nnotes", true),
        ("Content-Type: image/png\nContent-Disposition: inline\nContent-ID: <logo>\n\nx", false),
        ("Content-Type: text/html\n\n<p>x</p>", false),
        (
            "Content-Type: message/rfc822\n\nSubject: inner\nMIME-Version: 1.0\nContent-Type: application/zip; name=\"in.zip\"\n\nx",
            true
        ),
        ("Content-Type: message/rfc822\n\nSubject: inner\n\nplain inner text", false),
    ])
    func messages(part: String, expected: Bool) {
        #expect(
            AttachmentRule.hasAttachment(message(with: part.withCRLF)) == expected)
    }

    @Test func singlePartMessages() {
        let plain = MIMEMessage(bytes: Array("Subject: x\r\n\r\nHello".utf8))
        #expect(!AttachmentRule.hasAttachment(plain))
        let pdf = MIMEMessage(
            bytes: Array("MIME-Version: 1.0\r\nContent-Type: application/pdf; name=a.pdf\r\n\r\nx".utf8))
        #expect(AttachmentRule.hasAttachment(pdf))
    }
}
