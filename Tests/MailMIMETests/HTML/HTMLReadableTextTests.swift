import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard, .cpuBound) struct HTMLReadableTextTests {
    @Test(arguments: [
        // Paragraphs and headings are set apart by a blank line; inline white space collapses.
        (
            "<h1>Weekly  news</h1>\n<p>First\n   paragraph.</p><p>Second <b>one</b>.</p>",
            "Weekly news\n\nFirst paragraph.\n\nSecond one.\n"
        ),
        // <br> ends a line; two make a blank line; a div starts a line.
        (
            "Dear Ann,<br>thanks.<br><br>Bob<div>Sent from my phone</div>",
            "Dear Ann,\nthanks.\n\nBob\nSent from my phone\n"
        ),
        // Lists: bullets, numbers (from start=), nested lists indented.
        ("<ul><li>milk</li><li>eggs<ul><li>brown</li></ul></li></ul>", "• milk\n• eggs\n  • brown\n"),
        ("<p>Steps:</p><ol start=\"3\"><li>open<li>close</ol><p>Done</p>", "Steps:\n\n3. open\n4. close\n\nDone\n"),
        // Quotes keep their marker, blank lines included.
        (
            "<p>Yes.</p><blockquote><p>Can you?</p><p>Soon?</p></blockquote><p>Bob</p>",
            "Yes.\n\n> Can you?\n>\n> Soon?\n\nBob\n"
        ),
        // <pre> keeps its white space; the line break right after <pre> is not content.
        ("<p>Code:</p><pre>\nif x {\n    y()\n}</pre>", "Code:\n\nif x {\n    y()\n}\n"),
        // Table rows on their own lines, cells two spaces apart.
        (
            "<table><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>3 &euro;</td></tr></table>",
            "Item  Price\nTea  3 €\n"
        ),
        ("above<hr>below", "above\n\n--------------------\n\nbelow\n"),
        // Links show their URL unless the text is it; mailto: compares by address.
        (
            "<a href=\"https://example.com/a?x=1&amp;y=2\">the report</a>.",
            "the report <https://example.com/a?x=1&y=2>.\n"
        ),
        ("<a href=\"https://example.com/\">https://example.com</a>", "https://example.com\n"),
        ("<a href=\"mailto:ann@example.com\">ann@example.com</a>", "ann@example.com\n"),
        ("<a href=\"#top\">top</a> <a href=\"javascript:go()\">go</a>", "top go\n"),
        // A link opened inside another ends it, as in a browser.
        (
            "<a href=\"https://a.example/1\">one <a href=\"https://b.example/2\">two</a>",
            "one <https://a.example/1> two <https://b.example/2>\n"
        ),
        // Images: alt text in brackets, none without it (tracking pixels).
        (
            "<a href=\"https://shop.example\"><img src=\"logo.png\" alt=\"Shop\"></a><img src=\"t.gif\" alt=\"\">",
            "[Shop] <https://shop.example>\n"
        ),
        // References: named, decimal, hexadecimal; a no-break space is a space.
        ("Caf&eacute;&nbsp;&amp;&#32;tea &#x263A; &lt;b&gt; &copy;", "Café & tea ☺ <b> ©\n"),
        // Head, scripts, styles and comments are left out.
        (
            "<html><head><title>T</title><style>p{color:red}</style><meta charset=utf-8></head>"
                + "<body><!-- hidden --><script>if (a < b) {}</script><p>Visible</p></body></html>",
            "Visible\n"
        ),
        ("", ""),
        ("  \n ", ""),
        ("a < b and 1<2 <", "a < b and 1<2 <\n"),
    ])
    func layout(html: String, expected: String) {
        #expect(HTMLReadableText.text(of: html) == expected)
    }

    /// A megabyte of HTML laid out: every paragraph is there, in order (the layout appends to one
    /// buffer, so this is linear; no clock is asserted on).
    @Test func largeInputKeepsEveryParagraph() {
        let paragraph = "<p>Line <b>number</b> &amp; more <a href=\"https://example.com/\">link</a></p>\n"
        let html = String(repeating: paragraph, count: 1_048_576 / paragraph.utf8.count)
        let text = HTMLReadableText.text(of: html)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1_048_576 / paragraph.utf8.count)
        #expect(lines.allSatisfy { $0 == "Line number & more link <https://example.com/>" })
    }
}
