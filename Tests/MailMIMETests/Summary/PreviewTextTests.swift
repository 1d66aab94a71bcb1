import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct PreviewTextTests {
    @Test(arguments: [
        ("Hello\n  world\t!", "Hello world !"),
        ("   leading space", "leading space"),
        ("> quoted line\nreply text\n>> more quote\nend", "reply text end"),
        ("On Monday Bob wrote:\n> quote\n\nThanks", "On Monday Bob wrote: Thanks"),
        ("a > b stays", "a > b stays"),
        ("", ""),
        ("> only a quote", ""),
    ])
    func plainText(text: String, expected: String) {
        #expect(PreviewText.make(from: text) == expected)
    }

    @Test(arguments: [
        ("<p>Hi <b>there</b></p><blockquote>old mail</blockquote><p>bye</p>", "Hi there bye"),
        ("<p>&gt; not a quote in HTML</p>", "> not a quote in HTML"),
        ("<div>Caf&eacute;</div>", "Café"),
    ])
    func html(text: String, expected: String) {
        #expect(PreviewText.make(from: text, isHTML: true) == expected)
    }

    @Test func cutsAt200CharactersWithoutTrailingSpace() {
        let word = String(repeating: "a", count: 199)
        // The space would be the 200th character: it is dropped, not kept at the end.
        #expect(PreviewText.make(from: word + " b") == word)
        #expect(PreviewText.make(from: String(repeating: "é", count: 300)) == String(repeating: "é", count: 200))
        let words = String(repeating: "abcd ", count: 100)
        let preview = PreviewText.make(from: words)
        #expect(preview.unicodeScalars.count == 199)
        #expect(preview == String(String(repeating: "abcd ", count: 40).dropLast()))
        #expect(PreviewText.maximumLength == 200)
    }

    @Test func sourcePartIsTheFirstTextPartOutsideEncapsulatedMessages() {
        let raw = """
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="b"

            --b
            Content-Type: image/png; name=a.png

            x
            --b
            Content-Type: message/rfc822

            Subject: inner

            inner text
            --b
            Content-Type: text/html; charset=utf-8

            <p>outer <i>html</i></p>
            --b--
            """.withCRLF
        let message = MIMEMessage(bytes: Array(raw.utf8))
        #expect(PreviewText.sourcePart(of: message)?.contentType.subtype == "html")
        #expect(PreviewText.make(for: message) == "outer html")
        #expect(PreviewText.make(for: MIMEMessage(bytes: Array("Subject: x\r\n\r\n".utf8))) == "")
    }
}
