import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct HTMLTextTests {
    @Test(arguments: [
        ("<p>Hello&nbsp;&amp; <b>world</b></p>", "Hello\u{A0}& world "),
        ("a<br>b", "a b"),
        ("<title>T</title><style>p { color: red }</style><p>x</p>", "T x "),
        ("<script type=\"text/javascript\">if (a < b) {}</script>after", "after"),
        ("<!-- comment <b>x</b> -->text", "text"),
        ("<a href=\"x>y\" title='a>b'>link</a>", "link "),
        ("&lt;tag&gt; &#233;&#x41; &eacute; &EACUTE; &unknown; & alone &amp", "<tag> éA é é  & alone &amp"),
        ("<![CDATA[raw <b>]]>", "raw <b>"),
        ("caf\u{E9} 会议", "caf\u{E9} 会议"),
    ])
    func text(html: String, expected: String) {
        #expect(HTMLText.text(of: html) == expected)
    }

    @Test func skipsQuotesWhenAsked() {
        let html = "<p>new</p><blockquote>old <blockquote>older</blockquote> old</blockquote><p>end</p>"
        #expect(HTMLText.text(of: html, skippingQuotes: true) == "new end ")
        #expect(HTMLText.text(of: html).contains("older"))
    }
}

@Suite(.hangGuard) struct CaseFoldingTests {
    @Test(arguments: [
        ("Grüße aus MÜNCHEN", "münchen", true),
        ("ΣΊΣΥΦΟΣ", "σίσυφος", true),
        ("final ς", "Σ", true),
        ("Straße", "STRASSE", false),
        ("Straße", "straße", true),
        ("café", "cafe", false),
        ("İstanbul", "istanbul", false),
        ("Микроволновка", "ВОЛН", true),
        ("会议纪要", "纪要", true),
        ("INVOICE #18562", "invoice #1856", true),
        ("abc", "", true),
        ("ab", "abc", false),
        ("ASCII haystack", "é", false),
    ])
    func contains(haystack: String, needle: String, expected: Bool) {
        #expect(CaseFolding.contains(haystack, needle) == expected)
    }

    @Test func folds() {
        #expect(CaseFolding.fold("ÀÉÎ Straße \u{17F} \u{B5} Σ") == "àéî straße s \u{3BC} σ")
        #expect(CaseFolding.fold("plain ascii TEXT") == "plain ascii text")
    }
}
