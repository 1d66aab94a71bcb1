import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct MIMEMessageTests {
    static func parse(_ text: String) -> MIMEMessage { MIMEMessage(bytes: Array(text.utf8)) }

    /// The tree as `type/subtype[children]`, to compare shapes at a glance.
    static func shape(_ part: MIMEPart) -> String {
        switch part.kind {
        case .multipart: return part.contentType.mimeType + "[" + part.children.map(shape).joined(separator: ",") + "]"
        case .message:
            return part.contentType.mimeType + "{" + (part.encapsulatedMessage.map { shape($0.root) } ?? "") + "}"
        case .single: return part.contentType.mimeType
        }
    }

    static func body(_ part: MIMEPart, _ message: MIMEMessage) -> String {
        String(decoding: message.bytes[part.bodyRange], as: UTF8.self)
    }

    static let nested = """
        MIME-Version: 1.0
        Content-Type: multipart/mixed; boundary="outer"

        preamble
        --outer
        Content-Type: multipart/alternative; boundary="inner"

        --inner
        Content-Type: text/plain; charset=utf-8
        Content-Transfer-Encoding: quoted-printable

        caf=C3=A9
        --inner
        Content-Type: text/html

        <b>caf&eacute;</b>
        --inner--
        --outer
        Content-Type: message/rfc822

        Subject: inner
        Content-Type: multipart/mixed; boundary=x

        --x

        one
        --x--
        --outer
        Content-Type: application/pdf; name="a.pdf"
        Content-Transfer-Encoding: base64

        JVBERi0x
        --outer--
        epilogue

        """

    @Test func nestedTree() throws {
        let message = Self.parse(Self.nested)
        #expect(
            Self.shape(message.root)
                == "multipart/mixed[multipart/alternative[text/plain,text/html],message/rfc822{multipart/mixed[text/plain]},application/pdf]"
        )
        let plain = try #require(message.root.part(at: [1, 1]))
        #expect(Self.body(plain, message) == "caf=C3=A9")
        #expect(plain.text(in: message) == "café")
        #expect(plain.lineCount == 0)
        let html = try #require(message.root.part(at: [1, 2]))
        #expect(html.contentType.charset == nil)
        #expect(html.text(in: message) == "<b>caf&eacute;</b>")
        let inner = try #require(message.root.part(at: [2]))
        #expect(inner.encapsulatedMessage?.header.decodedValue("subject") == "inner")
        #expect(Self.body(try #require(message.root.part(at: [2, 1])), message) == "one")
        let pdf = try #require(message.root.part(at: [3]))
        #expect(pdf.decodedBody(in: message) == Array("%PDF-1".utf8))
        #expect(pdf.filename == "a.pdf")
        #expect(message.root.part(at: [4]) == nil)
        #expect(message.root.part(at: [3, 1])?.bodyRange == pdf.bodyRange)
        #expect(message.root.part(at: [3, 2]) == nil)
        #expect(message.leafParts.count == 4)
        // The multipart's body runs from after its header to the end, epilogue included.
        #expect(Self.body(message.root, message).hasPrefix("preamble\n--outer"))
        #expect(Self.body(message.root, message).hasSuffix("--outer--\nepilogue\n"))
    }

    @Test func boundariesFollowRFC2046() {
        // Transport padding after a boundary, a line that only starts with the boundary (which
        // RFC 2046 5.1.1 counts), the CRLF before a boundary belonging to the boundary, and a
        // missing close delimiter.
        let message = Self.parse(
            "Content-Type: multipart/mixed; boundary=XX\r\n\r\n--XX \t \r\n\r\nfirst\r\n\r\n--XXY\r\n\r\nsecond\r\n--XX\r\n\r\nlast\r\n"
        )
        #expect(message.root.children.count == 3)
        #expect(message.root.children.map { Self.body($0, message) } == ["first\r\n", "second", "last\r\n"])
        #expect(message.root.children.map(\.lineCount) == [1, 0, 1])
    }

    /// The CRLF before a boundary line is the delimiter's (RFC 2046 5.1.1), also where it would
    /// otherwise end a header: a part with nothing between its boundaries has an empty header,
    /// and an attached message whose header runs up to the boundary has no blank line. A
    /// multipart's own first boundary right after its header is not such a line.
    @Test func theCRLFBeforeABoundaryIsNeverAHeadersBlankLine() {
        let message = Self.parse(
            "Content-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\n\r\n--XX\r\nContent-Type: message/rfc822\r\n\r\n"
                + "Subject: inner\r\n\r\n--XX\r\nContent-Type: multipart/alternative; boundary=XXY\r\n\r\n--XXY\r\n\r\n"
                + "alt\r\n--XXY--\r\n--XX--\r\n")
        let (empty, attached, alternative) = (
            message.root.children[0], message.root.children[1], message.root.children[2]
        )
        #expect(
            Self.shape(message.root)
                == "multipart/mixed[text/plain,message/rfc822{text/plain},multipart/alternative[text/plain]]")
        #expect(empty.header.byteRange.isEmpty && empty.bodyRange.isEmpty)
        let inner = attached.encapsulatedMessage!.root
        #expect(String(decoding: message.bytes[inner.header.byteRange], as: UTF8.self) == "Subject: inner\r\n")
        #expect(inner.bodyRange.isEmpty)
        #expect(String(decoding: message.bytes[alternative.header.byteRange], as: UTF8.self).hasSuffix("XXY\r\n\r\n"))
        #expect(Self.body(alternative.children[0], message) == "alt")
    }

    @Test func longestBoundaryWinsAndOuterBoundariesEndInnerParts() {
        let message = Self.parse(
            """
            Content-Type: multipart/mixed; boundary=a

            --a
            Content-Type: multipart/alternative; boundary=ab

            --ab

            x
            --a
            Content-Type: text/plain
            X-Header: no body follows
            --a--

            """)
        #expect(Self.shape(message.root) == "multipart/mixed[multipart/alternative[text/plain],text/plain]")
        #expect(Self.body(message.root.children[0].children[0], message) == "x")
        #expect(message.root.children[1].header.values("x-header") == ["no body follows"])
        #expect(message.root.children[1].bodyRange.isEmpty)
    }

    @Test func defaultsAndDigests() {
        let message = Self.parse(
            """
            Content-Type: multipart/digest; boundary=d

            --d

            Subject: digested

            text
            --d
            Content-Type: text/plain

            plain
            --d--

            """)
        #expect(Self.shape(message.root) == "multipart/digest[message/rfc822{text/plain},text/plain]")
        #expect(message.root.children[0].encapsulatedMessage?.header.decodedValue("subject") == "digested")
        #expect(message.root.children[1].contentType.charset == nil)
        let plain = Self.parse("Subject: no type\n\nbody\n")
        #expect(plain.root.contentType == .textPlain)
        #expect(plain.root.text(in: plain) == "body\n")
    }

    @Test func contentFieldsCountOnlyInMIMEEntities() {
        // Without MIME-Version or Content-Type a message is not MIME (RFC 2045 section 4).
        let old = Self.parse("Content-Transfer-Encoding: base64\nContent-Description: x\n\naGVsbG8=\n")
        #expect(!old.root.isMIME)
        #expect(old.root.transferEncoding == "7bit")
        #expect(old.root.contentDescription == nil)
        let mime = Self.parse("MIME-Version: 1.0\nContent-Transfer-Encoding: base64\n\naGVsbG8=\n")
        #expect(mime.root.decodedBody(in: mime) == Array("hello".utf8))
    }

    @Test func transferEncodingsAndCharsets() {
        let latin = Self.parse(
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=ISO-8859-1\nContent-Transfer-Encoding: Quoted-Printable\n\nR=E9union =\n=E0 9h\n"
        )
        #expect(latin.root.transferEncoding == "quoted-printable")
        #expect(latin.root.text(in: latin) == "Réunion à 9h\n")
        let unknown = Self.parse("MIME-Version: 1.0\nContent-Type: text/plain; charset=x-nonsense\n\ncaf\u{E9}\n")
        #expect(unknown.root.text(in: unknown) == "café\n")
        let truncated = Self.parse("MIME-Version: 1.0\nContent-Transfer-Encoding: base64\n\naGVsbG8gd29ybGQ\n")
        #expect(truncated.root.decodedBody(in: truncated) == Array("hello world".utf8))
        let unknownEncoding = Self.parse("MIME-Version: 1.0\nContent-Transfer-Encoding: x-uuencode\n\nbegin\n")
        #expect(unknownEncoding.root.transferEncoding == "x-uuencode")
        #expect(!unknownEncoding.root.hasKnownTransferEncoding)
        #expect(unknownEncoding.root.decodedBody(in: unknownEncoding) == Array("begin\n".utf8))
        let image = Self.parse("Content-Type: image/png\n\nxyz")
        #expect(image.root.text(in: image) == nil)
    }

    @Test func mimeFields() {
        let message = Self.parse(
            """
            MIME-Version: 1.0
            Content-Type: image/png
            Content-ID: <pic@x.test>
            Content-Description: =?utf-8?q?B=C3=BCro?=
            Content-Disposition: attachment; filename*=utf-8''B%C3%BCro.png
            Content-Language: de-DE, en (English)
            Content-Location: http://x.test/pic.png
            Content-MD5: Q2hlY2s=

            x
            """)
        let root = message.root
        #expect(root.contentID == "<pic@x.test>")
        #expect(root.contentDescription == "Büro")
        #expect(root.disposition?.filename == "Büro.png")
        #expect(root.filename == "Büro.png")
        #expect(root.contentLanguage == ["de-DE", "en"])
        #expect(root.contentLocation == "http://x.test/pic.png")
        #expect(root.contentMD5 == "Q2hlY2s=")
    }

    @Test func malformedMailGivesAStructure() {
        for text in [
            "", "\n", "no header at all", "Content-Type: multipart/mixed\n\nno boundary parameter",
            "Content-Type: multipart/mixed; boundary=\"\"\n\n--\n\nx\n--\n", "Content-Type: message/rfc822\n\n",
            "Content-Type: multipart/mixed; boundary=b\n\n--b\n--b\n--b--", String(repeating: "-", count: 1000),
            "Content-Type: multipart/mixed; boundary=b\n\n"
                + String(repeating: "--b\nContent-Type: multipart/mixed; boundary=b\n\n", count: 300),
        ] {
            let message = Self.parse(text)
            #expect(message.root.bodyRange.upperBound <= message.bytes.count)
        }
        let noBoundary = Self.parse("Content-Type: multipart/mixed\n\ntext")
        #expect(noBoundary.root.kind == .multipart && noBoundary.root.children.isEmpty)
    }
}
