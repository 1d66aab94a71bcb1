import Testing

/// Hand-written messages that exercise the corners of RFC 5322 and MIME parsing, for the
/// comparison with Dovecot and the unit tests. Line endings are LF unless a case is about CRLF;
/// stored messages get CRLF.
enum TrickyMessages {
    struct Message: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        /// Extra raw bytes appended after `text` (for 8-bit header or body bytes that are not UTF-8).
        var extra: [UInt8] = []

        var bytes: [UInt8] { Array(text.utf8) + extra }
        var testDescription: String { name }
    }

    static let all: [Message] = [
        Message(
            name: "nested multipart with message/rfc822",
            text: """
                From: Forwarder <fwd@example.com>
                To: alice@example.com
                Subject: Fwd: nested
                Date: Tue, 2 Jan 2024 09:30:00 +0100
                Message-ID: <nested@example.com>
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary="outer"

                This is the preamble.
                --outer
                Content-Type: text/plain; charset=utf-8

                See the forwarded message.
                --outer
                Content-Type: message/rfc822
                Content-Disposition: inline
                Content-Description: Forwarded message

                From: =?utf-8?q?Bj=C3=B6rn?= <bjorn@example.org>
                To: Forwarder <fwd@example.com>
                Subject: =?utf-8?b?w5xiZXJzaWNodA==?=
                Date: Mon, 1 Jan 2024 18:00:00 -0500
                Message-ID: <inner@example.org>
                MIME-Version: 1.0
                Content-Type: multipart/alternative; boundary="inner"

                --inner
                Content-Type: text/plain; charset=utf-8
                Content-Transfer-Encoding: quoted-printable

                Gr=C3=BC=C3=9Fe aus M=C3=BCnchen
                --inner
                Content-Type: text/html; charset=utf-8

                <p>Gr&uuml;&szlig;e aus <b>M&uuml;nchen</b></p>
                --inner--
                --outer
                Content-Type: application/octet-stream; name="data.bin"
                Content-Transfer-Encoding: base64

                AAECAwQFBgcICQ==
                --outer--
                This is the epilogue.

                """),
        Message(
            name: "RFC 2231 file names",
            text: """
                From: alice@example.com
                Subject: RFC 2231
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary=b1

                --b1
                Content-Type: text/plain

                Attached.
                --b1
                Content-Type: application/pdf;
                 name*0*=utf-8''R%C3%A9sum%C3%A9%20;
                 name*1="Jos%e9.pdf"
                Content-Disposition: attachment;
                 filename*=UTF-8'de'%C3%9Cbersicht%202024.pdf;
                 size=1234
                Content-Transfer-Encoding: base64

                JVBERi0xLjQK
                --b1
                Content-Type: application/octet-stream; Name*0="part one "; NAME*1=two; title*3=gap; title*0=first
                Content-Disposition: attachment; filename="plain.txt"; filename*=iso-8859-1''caf%E9.txt

                ABCD
                --b1--

                """),
        Message(
            name: "group addresses",
            text: """
                From: "Team Lead" <lead@example.com>
                To: undisclosed-recipients:;
                Cc: Friends: Anna <anna@example.org>, bob@example.org;, carol@example.org
                Bcc: Empty Group:;
                Subject: Groups

                Body.

                """),
        Message(
            name: "missing Date and Message-ID",
            text: """
                From: nodate@example.com
                To: alice@example.com
                Subject: No date here

                No Date header at all.

                """),
        Message(
            name: "CRLF line endings",
            text: "From: crlf@example.com\r\nSubject: CRLF\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\n"
                + "line one\r\nline two\r\n"),
        Message(
            name: "mixed line endings",
            text: "From: mixed@example.com\r\nSubject: mixed\nContent-Type: text/plain\r\n\nline one\r\nline two\n"),
        Message(
            name: "ISO-8859-1 quoted-printable body",
            text: """
                From: =?iso-8859-1?q?Fran=E7oise?= <francoise@example.fr>
                To: alice@example.com
                Subject: =?ISO-8859-1?Q?R=E9union_de_lundi?=
                Date: Wed, 3 Jan 2024 08:00:00 +0100
                MIME-Version: 1.0
                Content-Type: text/plain; charset=ISO-8859-1
                Content-Transfer-Encoding: quoted-printable

                Bonjour, la r=E9union de lundi est d=E9plac=E9e =E0 mardi.=20
                Cr=E8me br=FBl=E9e pour tout le monde, na=EFvement.

                """),
        Message(
            name: "empty body",
            text: """
                From: empty@example.com
                Subject: Empty body
                MIME-Version: 1.0
                Content-Type: text/plain; charset=us-ascii


                """),
        Message(name: "header without body or final line break", text: "From: nobody@example.com\nSubject: no body"),
        Message(
            name: "no Content-Type",
            text: """
                From: plain@example.com
                Subject: No Content-Type
                MIME-Version: 1.0

                Plain text without a Content-Type.

                """),
        Message(
            name: "no MIME-Version ignores Content-Transfer-Encoding",
            text: """
                From: old@example.com
                Subject: Not MIME
                Content-Transfer-Encoding: base64
                Content-Description: ignored

                aGVsbG8=

                """),
        Message(
            name: "multipart/digest",
            text: """
                From: digest@example.com
                Subject: Digest
                MIME-Version: 1.0
                Content-Type: multipart/digest; boundary="d"

                --d

                From: one@example.com
                Subject: first

                First message.
                --d

                From: two@example.com
                Subject: second
                MIME-Version: 1.0
                Content-Type: text/plain; charset=utf-8

                Second message.
                --d
                Content-Type: text/plain

                A text part in a digest.
                --d--

                """),
        Message(
            name: "broken boundaries",
            text: """
                From: broken@example.com
                Subject: Broken boundaries
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary="XX"

                --XXY
                --XX\t \u{20}
                Content-Type: text/plain

                padded boundary above, prefix boundary below
                --XXnot-really
                world
                --XX

                no header, no final boundary

                """),
        Message(
            name: "nested boundaries with a common prefix",
            text: """
                From: prefix@example.com
                Subject: Prefixes
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary="a"

                --a
                Content-Type: multipart/alternative; boundary="ab"

                --ab
                Content-Type: text/plain

                inner
                --ab
                Content-Type: text/html

                <i>inner</i>
                --a
                Content-Type: text/plain
                X-Only-Headers: yes
                --a--

                """),
        Message(
            name: "no header at all",
            text: """
                Just some text without any header
                and a second line.

                Then a body.

                """),
        Message(
            name: "address edge cases",
            text: """
                From: "Smith, John" <john@example.com> (work), bob@example.org (Bob B.)
                From: second@example.net
                Sender: <>
                Reply-To: <@relay.example,@other.example:route@example.com>
                To: "quoted local"@example.com, Joe Q. Public <jqp@example.com>, alice, John <john@broken
                Cc: Mary    Smith <mary@example.com>, , "  spaced   name  " <s@example.com>, (just a comment)
                Subject:   Folded
                   subject\twith   spaces\t
                Subject: Second subject wins
                In-Reply-To: <a@example.com>
                 <b@example.com>
                Message-ID:
                 <folded-id@example.com>

                Body.

                """),
        Message(
            name: "Content-Type edge cases",
            text: """
                From: types@example.com
                Subject: Types
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary=T

                --T
                Content-Type: Text/HTML; CHARSET="UTF-8"; Format=Flowed
                Content-Transfer-Encoding: QUOTED-PRINTABLE

                <p>caf=C3=A9</p>
                --T
                Content-Type: text
                Content-Transfer-Encoding: base64 junk

                not decoded
                --T
                Content-Type: image/png (a comment); name="pic.png"
                Content-ID: <pic@example.com>
                Content-Disposition: inline
                Content-Disposition: attachment; filename=second.png
                Content-Language: en-US (English), de
                Content-Location: http://example.com/pic.png
                Content-MD5: Q2hlY2sgSW50ZWdyaXR5IQ==
                Content-Transfer-Encoding: Base64

                iVBORw0KGgo=
                --T
                Content-Type: multipart/related

                no boundary parameter
                --T--

                """),
        Message(
            name: "message/rfc822 at top level",
            text: """
                From: wrapper@example.com
                Subject: Wrapped
                MIME-Version: 1.0
                Content-Type: message/rfc822

                From: inner@example.com
                Subject: Inner
                Content-Type: multipart/mixed; boundary=Q

                --Q

                q1
                --Q

                q2
                --Q--

                """),
        Message(
            name: "unknown charset and 8-bit headers",
            text: """
                From: Grüße <gruesse@example.de>
                Subject: Rohes UTF-8 in der Betreffzeile: Grüße
                MIME-Version: 1.0
                Content-Type: text/plain; charset=x-unknown-charset

                Text in an unknown charset: caf\u{E9}.

                """),
        Message(
            name: "Latin-1 bytes in a header",
            text: "From: latin@example.com\nSubject: caf",
            extra: [0xE9] + Array(" latin1\nMIME-Version: 1.0\n\nbody\n".utf8)
        ),
        Message(
            name: "encoded words in names and a long folded subject",
            text: """
                From: =?utf-8?b?55Sw5Lit?= =?utf-8?b?IOiKseWtkA==?= <hanako@example.jp>
                To: "=?utf-8?q?Zo=C3=AB?=" <zoe@example.com>, =?ISO-8859-1?Q?Andr=E9?= Pirard <andre@example.be>
                Subject: =?utf-8?q?Re=3A_Fwd=3A_Notes_from_the_quarterly_planning_session_with_th?=
                 =?utf-8?q?e_design_team?=
                Date: 5 Jan 24 12:00 EST
                MIME-Version: 1.0
                Content-Type: text/plain; charset="utf-8"
                Content-Transfer-Encoding: 8bit

                > quoted reply line
                Ünïcödé text with émojis 🎉 and CJK 会议纪要.

                """),
        Message(
            name: "part header ended by a boundary inside message/rfc822",
            text: """
                From: cut@example.com
                Subject: Cut header
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary=C

                --C
                Content-Type: message/rfc822

                From: inner@example.com
                Subject: only a header
                --C
                Content-Type: text/plain

                after
                --C--

                """),
        Message(
            name: "truncated base64 text",
            text: """
                From: trunc@example.com
                Subject: Truncated base64
                MIME-Version: 1.0
                Content-Type: text/plain; charset=utf-8
                Content-Transfer-Encoding: base64

                aGVsbG8gd29ybGQ

                """),
        Message(
            name: "message/global part",
            text: """
                From: global@example.com
                Subject: message/global
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary=G

                --G
                Content-Type: text/plain

                An internationalized message follows.
                --G
                Content-Type: message/global

                From: =?utf-8?q?J=C3=B6rg?= <joerg@example.de>
                Subject: Grüße

                Hallo.
                --G--

                """),
        Message(
            name: "duplicate MIME fields",
            text: """
                From: dup@example.com
                Subject: Duplicates
                MIME-Version: 1.0
                Content-Type: text/plain; charset=utf-8
                Content-Type: text/html
                Content-Transfer-Encoding: not a token
                Content-Transfer-Encoding: quoted-printable
                Content-ID: <first@example.com>
                Content-ID: <second@example.com>
                Content-Language: (nothing)
                Content-Language: fr

                caf=C3=A9

                """),
        Message(name: "empty message", text: ""),
        Message(name: "only an empty line", text: "\n"),
        Message(
            name: "quoted-printable and base64 edge cases",
            text: """
                From: qp@example.com
                Subject: Encodings
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary="E"

                --E
                Content-Type: text/plain; charset=utf-8
                Content-Transfer-Encoding: quoted-printable

                soft break at the end =\u{20}\u{20}
                lower hex =c3=a9 and a bad escape =ZZ and a lone =
                trailing spaces here  \u{20}
                last line=
                --E
                Content-Type: application/octet-stream
                Content-Transfer-Encoding: base64

                AAEC AwQF
                BgcI*CQoL
                DA0ODw==
                --E
                Content-Type: text/plain; charset=utf-8
                Content-Transfer-Encoding: 8bit

                invalid UTF-8 follows:
                """, extra: [0xC3, 0x28, 0xFF] + Array("\n--E--\n".utf8)),
        Message(
            name: "multipart without any boundary line",
            text: """
                From: nobound@example.com
                Subject: No boundary lines
                MIME-Version: 1.0
                Content-Type: multipart/alternative; boundary="never-used"

                Only a preamble, no parts.

                """),
        Message(
            name: "inner multipart without its close delimiter",
            text: """
                From: unclosed@example.com
                Subject: Unclosed inner
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary="out"

                --out
                Content-Type: multipart/alternative; boundary="in"

                --in
                Content-Type: text/plain

                inner text, no close delimiter
                --out
                Content-Type: text/plain

                outer part
                --out--
                epilogue line one
                epilogue line two

                """),
        Message(
            name: "HTML only",
            text: """
                From: html@example.com
                Subject: HTML only
                MIME-Version: 1.0
                Content-Type: text/html; charset=utf-8
                Content-Transfer-Encoding: quoted-printable

                <html><head><title>Title</title><style>p { color: red; }</style></head><body>
                <blockquote>quoted text</blockquote><!-- a comment --><script>var x =3D 1;</script>
                <p>Hello&nbsp;&amp; <b>welcome</b> &lt;friends&gt; &#233;&#x41; &eacute;</p></body></html>

                """),
    ]
}
