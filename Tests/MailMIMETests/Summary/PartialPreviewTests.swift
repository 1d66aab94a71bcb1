import MailMIME
import TestSupport
import Testing

/// ``PreviewText/make(header:bodyStart:isWholeBody:)``, the preview of a message of which only the
/// start of the body arrived (`BODY.PEEK[TEXT]<0.N>`): for every cut of the body, byte by byte, it
/// is either unknown (nil) or exactly the preview of the whole message, and the whole body always
/// gives that preview.
@Suite(.hangGuard, .cpuBound) struct PartialPreviewTests {
    struct Sample: CustomTestStringConvertible, Sendable {
        var name: String
        var header: String
        var body: [UInt8]
        var testDescription: String { name }

        init(_ name: String, header: String, body: [UInt8]) {
            self.name = name
            self.header = header
            self.body = body
        }

        init(_ name: String, header: String, body: String) {
            self.init(name, header: header, body: Array(body.utf8))
        }

        var message: [UInt8] { Array(header.utf8) + body }
    }

    static let shiftJIS = Base64.decode(
        "k/qWe4zqgsyDZYNMg1iDZ4LFgreBQoKxguqCzYN2g4yDcoOFgVuCzIK9gt+CzJK3gqKVto/NgsWB"
            + "QZNykoaCxZDYguqCxILgkLOCtYKtk8eC34LpgqmC8IptgqmC34LcgreBQpP6lnuM6oLMg2WDTINY"
            + "g2eCxYK3gUKCsYLqgs2DdoOMg3KDhYFbgsyCvYLfgsySt4KilbaPzYLFgUGTcpKGgsWQ2ILqgsSC"
            + "4JCzgrWCrZPHgt+C6YKpgvCKbYKpgt+C3IK3gUKT+pZ7jOqCzINlg0yDWINngsWCt4FCgrGC6oLN"
            + "g3aDjINyg4WBW4LMgr2C34LMkreCopW2j82CxYFBk3KShoLFkNiC6oLEguCQs4K1gq2Tx4LfgumC"
            + "qYLwim2CqYLfgtyCt4FCk/qWe4zqgsyDZYNMg1iDZ4LFgreBQoKxguqCzYN2g4yDcoOFgVuCzIK9"
            + "gt+CzJK3gqKVto/NgsWBQZNykoaCxZDYguqCxILgkLOCtYKtk8eC34LpgqmC8IptgqmC34LcgreB"
            + "QpP6lnuM6oLMg2WDTINYg2eCxYK3gUKCsYLqgs2DdoOMg3KDhYFbgsyCvYLfgsySt4KilbaPzYLF"
            + "gUGTcpKGgsWQ2ILqgsSC4JCzgrWCrZPHgt+C6YKpgvCKbYKpgt+C3IK3gUI=")
    static let iso2022JP = Base64.decode(
        "GyRCRnxLXDhsJE4lRiUtJTklSCRHJDkhIyQzJGwkTyVXJWwlUyVlITwkTiQ/JGEkTkQ5JCRKOD5P"
            + "JEchIkVTQ2YkR0BaJGwkRiRiQDUkNyQvRkkkYSRrJCskcjNOJCskYSReJDkhI0Z8S1w4bCROJUYl"
            + "LSU5JUgkRyQ5ISMkMyRsJE8lVyVsJVMlZSE8JE4kPyRhJE5EOSQkSjg+TyRHISJFU0NmJEdAWiRs"
            + "JEYkYkA1JDckL0ZJJGEkayQrJHIzTiQrJGEkXiQ5ISNGfEtcOGwkTiVGJS0lOSVIJEckOSEjJDMk"
            + "bCRPJVclbCVTJWUhPCROJD8kYSRORDkkJEo4Pk8kRyEiRVNDZiRHQFokbCRGJGJANSQ3JC9GSSRh"
            + "JGskKyRyM04kKyRhJF4kOSEjRnxLXDhsJE4lRiUtJTklSCRHJDkhIyQzJGwkTyVXJWwlUyVlITwk"
            + "TiQ/JGEkTkQ5JCRKOD5PJEchIkVTQ2YkR0BaJGwkRiRiQDUkNyQvRkkkYSRrJCskcjNOJCskYSRe"
            + "JDkhI0Z8S1w4bCROJUYlLSU5JUgkRyQ5ISMkMyRsJE8lVyVsJVMlZSE8JE4kPyRhJE5EOSQkSjg+"
            + "TyRHISJFU0NmJEdAWiRsJEYkYkA1JDckL0ZJJGEkayQrJHIzTiQrJGEkXiQ5ISMbKEI=")
    static let gb2312 = Base64.decode(
        "1eLKx9K7ts7Tw9Pa1KTAwLXE1tDOxM7Esb6jrLy0yrnU2tbQvOSxu73Yts/SstOmuMPE3Lm71f3I"
            + "t7bByKGho9XiysfSu7bO08PT2tSkwMC1xNbQzsTOxLG+o6y8tMq51NrW0Lzksbu92LbP0rLTprjD"
            + "xNy5u9X9yLe2wcihoaPV4srH0ru2ztPD09rUpMDAtcTW0M7EzsSxvqOsvLTKudTa1tC85LG7vdi2"
            + "z9Ky06a4w8TcubvV/ci3tsHIoaGj1eLKx9K7ts7Tw9Pa1KTAwLXE1tDOxM7Esb6jrLy0yrnU2tbQ"
            + "vOSxu73Yts/SstOmuMPE3Lm71f3It7bByKGho9XiysfSu7bO08PT2tSkwMC1xNbQzsTOxLG+o6y8"
            + "tMq51NrW0Lzksbu92LbP0rLTprjDxNy5u9X9yLe2wcihoaPV4srH0ru2ztPD09rUpMDAtcTW0M7E"
            + "zsSxvqOsvLTKudTa1tC85LG7vdi2z9Ky06a4w8TcubvV/ci3tsHIoaGj1eLKx9K7ts7Tw9Pa1KTA"
            + "wLXE1tDOxM7Esb6jrLy0yrnU2tbQvOSxu73Yts/SstOmuMPE3Lm71f3It7bByKGho9XiysfSu7bO"
            + "08PT2tSkwMC1xNbQzsTOxLG+o6y8tMq51NrW0Lzksbu92LbP0rLTprjDxNy5u9X9yLe2wcihoaM=")
    static let eucKR = Base64.decode(
        "wMywzcC6ILnMuK66uLHiuKYgwKfH0SDH0bG5vu4gxdi9usauwNS0z7TZLiDB37Cjv6EgwN+3wbW1"
            + "IL/Dudm4o7DUIMDQx/S+3yDH1bTPtNkuIMDMsM3AuiC5zLiuurix4rimIMCnx9Egx9Gxub7uIMXY"
            + "vbrGrsDUtM+02S4gwd+wo7+hIMDft8G1tSC/w7nZuKOw1CDA0Mf0vt8gx9W0z7TZLiDAzLDNwLog"
            + "ucy4rrq4seK4piDAp8fRIMfRsbm+7iDF2L26xq7A1LTPtNkuIMHfsKO/oSDA37fBtbUgv8O52bij"
            + "sNQgwNDH9L7fIMfVtM+02S4gwMywzcC6ILnMuK66uLHiuKYgwKfH0SDH0bG5vu4gxdi9usauwNS0"
            + "z7TZLiDB37Cjv6EgwN+3wbW1IL/Dudm4o7DUIMDQx/S+3yDH1bTPtNkuIMDMsM3AuiC5zLiuurix"
            + "4rimIMCnx9Egx9Gxub7uIMXYvbrGrsDUtM+02S4gwd+wo7+hIMDft8G1tSC/w7nZuKOw1CDA0Mf0"
            + "vt8gx9W0z7TZLiDAzLDNwLogucy4rrq4seK4piDAp8fRIMfRsbm+7iDF2L26xq7A1LTPtNkuIMHf"
            + "sKO/oSDA37fBtbUgv8O52bijsNQgwNDH9L7fIMfVtM+02S4g")

    static let words = String(
        repeating: "The quick brown fox jumps over the lazy dog, then rests by the river until night. ", count: 4)

    static let samples: [Sample] = [
        Sample(
            "multipart/alternative, quoted-printable UTF-8 first",
            header: "MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n",
            body: "This is a multi-part message in MIME format.\r\n--alt\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
                + "Gr=C3=BC=C3=9Fe aus M=C3=BCnchen, J=C3=BCrgen! =E2=82=AC 12 f=C3=BCr den Kaffee.=\r\n"
                + " Sch=C3=B6ne W=C3=BCnsche und bis bald, wir sehen uns am Montag um neun Uhr in=\r\n"
                + " der Stra=C3=9Fe vor dem B=C3=BCro. Danach gehen wir gemeinsam fr=C3=BChst=C3=BCcken=\r\n"
                + " und besprechen die n=C3=A4chsten Schritte f=C3=BCr das Projekt.\r\n"
                + "--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>HTML version</p>\r\n--alt--\r\n"),
        Sample(
            "nested multipart, base64 CJK text after part headers",
            header: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=outer\n\n",
            body: "--outer\nContent-Type: multipart/related; boundary=related\n\n"
                + "--related\nContent-Type: multipart/alternative; boundary=inner\n\n"
                + "--inner\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: base64\n\n"
                + Base64.encode(Array(String(repeating: "日本語のテキストと絵文字 🎉 のプレビュー。", count: 12).utf8), lineLength: 76)
                + "\n--inner\nContent-Type: text/html; charset=UTF-8\n\n<p>html</p>\n--inner--\n"
                + "--related\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n--related--\n"
                + "--outer\nContent-Type: application/pdf; name=a.pdf\nContent-Transfer-Encoding: base64\n\nJVBERi0=\n"
                + "--outer--\n"),
        Sample(
            "ISO-8859-1 quoted-printable",
            header: "MIME-Version: 1.0\nContent-Type: text/plain; charset=ISO-8859-1\n"
                + "Content-Transfer-Encoding: quoted-printable\n\n",
            body: String(
                repeating: "Ch=E8re Zo=EB, le caf=E9 de la r=E9union est =E0 No=EBl. Tr=E8s bien =\n", count: 8)),
        Sample(
            "Shift_JIS 8-bit", header: "MIME-Version: 1.0\nContent-Type: text/plain; charset=Shift_JIS\n\n",
            body: shiftJIS),
        Sample(
            "Shift_JIS base64",
            header:
                "MIME-Version: 1.0\nContent-Type: text/plain; charset=shift_jis\nContent-Transfer-Encoding: base64\n\n",
            body: Array(Base64.encode(shiftJIS, lineLength: 76).utf8)),
        Sample(
            "ISO-2022-JP", header: "MIME-Version: 1.0\nContent-Type: text/plain; charset=iso-2022-jp\n\n",
            body: iso2022JP),
        Sample(
            "GB2312 in multipart/alternative",
            header: "MIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=zz\n\n",
            body: Array("--zz\nContent-Type: text/plain; charset=gb2312\nContent-Transfer-Encoding: 8bit\n\n".utf8)
                + gb2312 + Array("\n--zz--\n".utf8)),
        Sample(
            "EUC-KR", header: "MIME-Version: 1.0\nContent-Type: text/plain; charset=euc-kr\n\n", body: eucKR),
        Sample(
            "HTML only, Windows-1252, entities, style and quote",
            header: "MIME-Version: 1.0\nContent-Type: text/html; charset=windows-1252\n\n",
            body: Array(
                ("<html><head><style>p { margin: 0 }\n.x { color: red }</style></head><body>"
                    + "<blockquote>an old message</blockquote>"
                    + String(
                        repeating: "<p>Caf&eacute;&nbsp;&amp; cr&#232;me &#x20AC;5 &lt;now&gt; Tom &amp Jerry</p>\n",
                        count: 8)
                    + "<p>").utf8) + [0x93, 0x71, 0x94, 0x20, 0x63, 0x61, 0x66, 0xE9] + Array("</p></body></html>".utf8)
        ),
        Sample(
            "plain text with a long quote before the reply",
            header: "Content-Type: text/plain; charset=utf-8\n\n",
            body: String(repeating: "> an earlier line that was quoted\n", count: 30) + words),
        Sample(
            "text part after an attachment",
            header: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n",
            body: "--b\nContent-Type: image/jpeg\nContent-Transfer-Encoding: base64\n\n"
                + Base64.encode(Array(repeating: UInt8(0xAB), count: 1500), lineLength: 76)
                + "\n--b\nContent-Type: text/plain\n\n" + words
                + "\n--b--\n"),
        Sample("no text part", header: "Content-Type: image/gif\n\n", body: "R0lGODlh"),
        Sample(
            "short UTF-8 text", header: "Content-Type: text/plain; charset=utf-8\n\n", body: "Kurz und gut: ünd fertig."
        ),
        Sample(
            "no MIME-Version: the transfer encoding does not count",
            header: "Content-Transfer-Encoding: base64\n\n", body: words),
    ]

    @Test(arguments: samples) func everyCutIsUnknownOrTheWholePreview(sample: Sample) {
        let whole = PreviewText.make(for: MIMEMessage(bytes: sample.message))
        let header = Array(sample.header.utf8)
        #expect(PreviewText.make(header: header, bodyStart: sample.body, isWholeBody: true) == whole)
        var known = 0
        for cut in 0..<sample.body.count {
            let preview = PreviewText.make(header: header, bodyStart: Array(sample.body[..<cut]), isWholeBody: false)
            if let preview {
                known += 1
                guard preview == whole else {
                    Issue.record(
                        "cut at \(cut) of \(sample.body.count): \(preview.debugDescription) != \(whole.debugDescription)"
                    )
                    return
                }
            }
        }
        // Long previews are known well before the end of the text; short ones only at its end.
        if whole.unicodeScalars.count >= PreviewText.maximumLength - 1 {
            #expect(known > 0, "\(whole)")
        }
    }

    @Test func theCorpusIsWhatItSaysItIs() {
        func preview(_ name: String) -> String {
            let sample = Self.samples.first { $0.name.hasPrefix(name) }!
            return PreviewText.make(for: MIMEMessage(bytes: sample.message))
        }
        #expect(preview("multipart/alternative").hasPrefix("Grüße aus München, Jürgen! € 12"))
        #expect(preview("nested multipart").hasPrefix("日本語のテキストと絵文字 🎉"))
        #expect(preview("ISO-8859-1").hasPrefix("Chère Zoë, le café"))
        #expect(preview("Shift_JIS 8-bit").hasPrefix("日本語のテキストです。"))
        #expect(preview("Shift_JIS base64").hasPrefix("日本語のテキストです。"))
        #expect(preview("ISO-2022-JP").hasPrefix("日本語のテキストです。"))
        #expect(preview("GB2312").hasPrefix("这是一段用于预览的中文文本"))
        #expect(preview("EUC-KR").hasPrefix("이것은 미리보기를"))
        #expect(preview("HTML only").hasPrefix("Café\u{A0}& crème €5 <now> Tom &amp Jerry Café"))
        #expect(preview("plain text with a long quote").hasPrefix("The quick brown fox"))
        #expect(preview("text part after").hasPrefix("The quick brown fox"))
        #expect(preview("no text part") == "")
        #expect(preview("no MIME-Version").hasPrefix("The quick brown fox"))
        for sample in Self.samples where !["no text part", "short UTF-8 text"].contains(sample.name) {
            #expect(
                PreviewText.make(for: MIMEMessage(bytes: sample.message)).unicodeScalars.count
                    >= PreviewText.maximumLength - 1, "\(sample.name)")
        }
    }

    @Test func theHeaderMayComeWithoutItsEmptyLine() {
        let body = Array("Hello there".utf8)
        #expect(PreviewText.make(header: [], bodyStart: body, isWholeBody: true) == "Hello there")
        #expect(PreviewText.make(header: Array("\r\n".utf8), bodyStart: body, isWholeBody: true) == "Hello there")
        let fields = Array("Content-Type: text/plain; charset=utf-8\r\n".utf8)
        #expect(PreviewText.make(header: fields, bodyStart: body, isWholeBody: true) == "Hello there")
        #expect(PreviewText.make(header: fields + [0x0D, 0x0A], bodyStart: body, isWholeBody: true) == "Hello there")
    }

    @Test(arguments: [
        ("utf-8", [0x4A, 0xC3, 0xBC, 0xC3] as [UInt8], "Jü"),
        ("utf-8", [0xE6, 0x97, 0xA5, 0xE6, 0x9C], "日"),
        ("us-ascii", [0x4A, 0xC3, 0xBC, 0xC3], "Jü"),
        ("us-ascii", [0x4A, 0xFC, 0x72], "Jür"),
        ("iso-8859-1", [0x4A, 0xFC], "Jü"),
        ("shift_jis", [0x93, 0xFA, 0x96], "日"),
        ("gb2312", [0xD6, 0xD0, 0xCE], "中"),
    ])
    func aCharacterCutAtTheEndIsLeftOut(charset: String, bytes: [UInt8], expected: String) {
        #expect(Charset.decodeStart(bytes, charset: charset) == expected)
    }

    @Test func base64AndQuotedPrintableStopBeforeACutGroupOrLine() {
        #expect(
            MIMEPart.decodeTransferEncodingStart(Array("SGVsbG8gd29y".utf8)[...], encoding: "base64")
                == Array("Hello wor".utf8))
        #expect(
            MIMEPart.decodeTransferEncodingStart(Array("SGVs\r\nbG8gd2".utf8)[...], encoding: "BASE64")
                == Array("Hello ".utf8))
        #expect(MIMEPart.decodeTransferEncodingStart(Array("SGk=".utf8)[...], encoding: "base64") == Array("Hi".utf8))
        #expect(
            MIMEPart.decodeTransferEncodingStart(Array("caf=C3=A9\r\nna=C3".utf8)[...], encoding: "quoted-printable")
                == Array("café\r\n".utf8))
        #expect(
            MIMEPart.decodeTransferEncodingStart(Array("a=\r\nb=".utf8)[...], encoding: "quoted-printable")
                == Array("a".utf8))
    }
}
