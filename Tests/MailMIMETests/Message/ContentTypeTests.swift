import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct ContentTypeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let value: String
        let mimeType: String
        let parameters: [String]  // "name=value"
        var testDescription: String { value }
    }

    static let cases: [Case] = [
        Case(value: "text/plain", mimeType: "text/plain", parameters: []),
        Case(value: #"Text/HTML; CHARSET="UTF-8""#, mimeType: "text/html", parameters: ["charset=UTF-8"]),
        Case(
            value: "text/plain; charset=us-ascii (Plain text); format=flowed", mimeType: "text/plain",
            parameters: ["charset=us-ascii", "format=flowed"]),
        Case(
            value: " multipart/mixed;\r\n boundary=\"==b1==\"", mimeType: "multipart/mixed",
            parameters: ["boundary===b1=="]),
        Case(
            value: #"text/plain; x="a\"b"; y="fold\#r\#n ed""#, mimeType: "text/plain",
            parameters: [#"x=a"b"#, "y=fold ed"]),
        // RFC 2231: character set and language, percent-encoded octets.
        Case(
            value: "application/pdf; name*=utf-8'de'%C3%9Cbersicht%202024.pdf", mimeType: "application/pdf",
            parameters: ["name=Übersicht 2024.pdf"]),
        // RFC 2231: continuations, extended and plain sections mixed, out of order.
        Case(
            value: "application/pdf; name*1=\" Jos%e9\"; name*0*=iso-8859-1''R%E9sum%E9; name*2*=%2Epdf",
            mimeType: "application/pdf", parameters: ["name=Résumé Jos%e9.pdf"]),
        Case(
            value:
                "message/external-body; access-type=URL; URL*0=\"ftp://\"; URL*1=\"cs.utk.edu/pub/moore/bulk-mailer/bulk-mailer.tar\"",
            mimeType: "message/external-body",
            parameters: ["access-type=URL", "url=ftp://cs.utk.edu/pub/moore/bulk-mailer/bulk-mailer.tar"]),
        // The RFC 2231 value wins over the plain one of the same name.
        Case(
            value: #"application/pdf; name="fallback.pdf"; name*=utf-8''r%C3%A9el.pdf"#, mimeType: "application/pdf",
            parameters: ["name=réel.pdf"]),
        // RFC 2047 words in a quoted value, as many mailers write them.
        Case(
            value: #"application/pdf; name="=?utf-8?b?5Lya6K6u57qq6KaBLnBkZg==?=""#, mimeType: "application/pdf",
            parameters: ["name=会议纪要.pdf"]),
        Case(
            value: "application/octet-stream; name==?utf-8?q?a=C3=A9?=", mimeType: "application/octet-stream",
            parameters: ["name=aé"]),
        // Broken parameters are skipped, the rest kept.
        Case(value: "text/plain; garbage; charset=utf-8", mimeType: "text/plain", parameters: ["charset=utf-8"]),
        Case(value: "text/plain; charset=", mimeType: "text/plain", parameters: ["charset="]),
        Case(value: #"text/plain; name="unterminated"#, mimeType: "text/plain", parameters: []),
        // Without a subtype the parameters are not read.
        Case(value: "text; charset=utf-8", mimeType: "text/", parameters: []),
        Case(value: "", mimeType: "/", parameters: []),
    ]

    @Test(arguments: cases) func parses(contentType: Case) {
        let parsed = ContentType(parsing: Array(contentType.value.utf8))
        #expect(parsed.mimeType == contentType.mimeType)
        #expect(parsed.parameters.map { "\($0.name)=\($0.value)" } == contentType.parameters)
    }

    @Test func accessors() {
        let type = ContentType(parsing: Array(#"Multipart/Mixed; BOUNDARY="x"; Charset=utf-8"#.utf8))
        #expect(type.isMultipart && !type.isText)
        #expect(type.boundary == "x")
        #expect(type.charset == "utf-8")
        #expect(type.parameter("Boundary") == "x")
        #expect(ContentType.textPlain.charset == "us-ascii")
        #expect(ContentType(parsing: Array("message/global".utf8)).isEncapsulatedMessage)
    }

    @Test func dispositionFileNames() throws {
        let attachment = try #require(
            ContentDisposition(
                parsing: Array("attachment;\r\n\tfilename*0*=utf-8''%E4%BC%9A%E8%AE%AE;\r\n\tfilename*1*=.pdf".utf8)))
        #expect(attachment.isAttachment)
        #expect(attachment.filename == "会议.pdf")
        let inline = try #require(ContentDisposition(parsing: Array("INLINE".utf8)))
        #expect(inline.type == "inline" && inline.parameters.isEmpty)
        #expect(ContentDisposition(parsing: Array("; filename=x".utf8)) == nil)
    }
}
