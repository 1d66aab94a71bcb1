import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct ReadableMessageTests {
    private func readable(_ raw: String, totalSize: Int? = nil) -> ReadableMessage {
        ReadableMessage(MIMEMessage(bytes: Array(raw.withCRLF.utf8)), totalSize: totalSize)
    }

    /// 300 bytes of base64: 225 bytes once decoded.
    private static let pdfBase64 = String(repeating: String(repeating: "QUJD", count: 15) + "\n", count: 5)
        .dropLast()

    @Test func aMessageOfOnlyAttachmentsListsThemWithDecodedNamesAndSizes() {
        let message = readable(
            """
            Subject: scans
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="b"

            --b
            Content-Type: application/pdf
            Content-Disposition: attachment; filename*=utf-8''Rechnung%20M%C3%A4rz.pdf
            Content-Transfer-Encoding: base64

            \(Self.pdfBase64)
            --b
            Content-Type: image/png; name="=?utf-8?q?Foto_=C3=A4.png?="
            Content-Transfer-Encoding: quoted-printable

            ab=3Dc=
            d
            --b
            Content-Type: application/octet-stream
            Content-Transfer-Encoding: base64

            AAEC
            --b--
            """)
        #expect(message.text == "")
        #expect(
            message.attachments == [
                MessageAttachment(name: "Rechnung März.pdf", mimeType: "application/pdf", size: 225),
                MessageAttachment(name: "Foto ä.png", mimeType: "image/png", size: 5),
                MessageAttachment(name: nil, mimeType: "application/octet-stream", size: 3),
            ])
    }

    @Test func aSinglePartFileIsAnAttachment() {
        let message = readable(
            """
            Subject: scan
            MIME-Version: 1.0
            Content-Type: application/pdf; name=scan.pdf
            Content-Transfer-Encoding: base64

            \(Self.pdfBase64)
            """)
        #expect(message.text == "")
        #expect(message.attachments == [MessageAttachment(name: "scan.pdf", mimeType: "application/pdf", size: 225)])
    }

    /// The plain alternative is the text (with LF line breaks); the HTML one is not listed, a
    /// named text file and a forwarded message are.
    @Test func theTextPartIsTheBodyAndOtherPartsAreListed() {
        let message = readable(
            """
            Subject: report
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="outer"

            --outer
            Content-Type: multipart/alternative; boundary="inner"

            --inner
            Content-Type: text/plain; charset=utf-8

            Hi,
            see attached.
            --inner
            Content-Type: text/html; charset=utf-8

            <p>Hi,<br>see attached.</p>
            --inner--
            --outer
            Content-Type: text/csv; name="figures.csv"
            Content-Disposition: inline; filename="figures.csv"

            a,b
            --outer
            Content-Type: message/rfc822

            Subject: =?utf-8?q?R=C3=A9union?=

            Old text
            --outer--
            """)
        #expect(message.text == "Hi,\nsee attached.")
        #expect(
            message.attachments == [
                MessageAttachment(name: "figures.csv", mimeType: "text/csv", size: 3),
                MessageAttachment(name: "Réunion", mimeType: "message/rfc822", size: 45),
            ])
    }

    @Test func anHTMLOnlyMessageIsLaidOut() {
        let message = readable(
            """
            Subject: news
            MIME-Version: 1.0
            Content-Type: text/html; charset=utf-8
            Content-Transfer-Encoding: quoted-printable

            <h2>News</h2><ul><li>One</li><li>Two</li></ul><p>More at <a href=3D"https://ex=
            ample.com/n">our site</a></p>
            """)
        #expect(message.text == "News\n\n• One\n• Two\n\nMore at our site <https://example.com/n>\n")
        #expect(message.attachments.isEmpty)
    }

    /// A message fetched in part: the part cut short gets an estimated size, at the rate its
    /// fetched bytes decode.
    @Test func aPartCutShortHasAnApproximateSize() {
        let head = """
            Subject: big
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="b"

            --b
            Content-Type: text/plain

            Hi
            --b
            Content-Type: application/zip; name="big.zip"
            Content-Transfer-Encoding: base64

            QUJDREVG
            """
        let fetched = Array(head.withCRLF.utf8)
        let message = ReadableMessage(MIMEMessage(bytes: fetched), totalSize: fetched.count + 80)
        #expect(message.text == "Hi")
        #expect(
            message.attachments == [
                MessageAttachment(name: "big.zip", mimeType: "application/zip", size: 66, isSizeApproximate: true)
            ])
        #expect(message.attachments.first?.sizeDescription == "about 66 bytes")
    }

    @Test(arguments: [
        ("one\r\ntwo\r\n\r\nthree", "one\ntwo\n\nthree"),
        ("old\rmac\r", "old\nmac\n"),
        ("unix\n", "unix\n"),
    ])
    func plainTextHasLineFeeds(body: String, expected: String) {
        let raw = "Subject: x\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + body
        let message = ReadableMessage(MIMEMessage(bytes: Array(raw.utf8)))
        #expect(message.text == expected)
        #expect(message.attachments.isEmpty)
    }

    @Test(arguments: [
        (0, false, "0 bytes"), (1, false, "1 byte"), (1023, false, "1023 bytes"), (1024, false, "1 KB"),
        (49_357, false, "48.2 KB"), (3_565_158, false, "3.4 MB"), (2_000_000, true, "about 1.9 MB"),
    ])
    func sizeDescription(size: Int, isApproximate: Bool, expected: String) {
        let attachment = MessageAttachment(
            name: "x", mimeType: "application/pdf", size: size, isSizeApproximate: isApproximate)
        #expect(attachment.sizeDescription == expected)
    }
}
