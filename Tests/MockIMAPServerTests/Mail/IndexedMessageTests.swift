import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// The IMAP views of one stored message, value by value. `IndexedMessageDovecotTests` holds the
/// same views against a real Dovecot for hundreds of messages.
@Suite(.hangGuard) struct IndexedMessageTests {
    static func message(_ text: String) -> IndexedMessage { IndexedMessage(bytes: Array(text.utf8)) }

    static func string(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    static let mixed = message(
        """
        From: =?utf-8?q?S=C3=B8ren?= Tanaka <soren@example.com>
        To: Alice <alice@example.com>, undisclosed-recipients:;
        Cc: bob@example.org (Bob)
        Subject: =?utf-8?q?R=C3=A9union?=   de
         lundi
        Date: Mon, 1 Jan 2024 23:30:00 -0500
        Message-ID: <m1@example.com>
        MIME-Version: 1.0
        Content-Type: multipart/mixed; boundary="b"

        --b
        Content-Type: text/plain; charset=ISO-8859-1
        Content-Transfer-Encoding: quoted-printable

        > quoted line
        Caf=E9   au  lait
        --b
        Content-Type: application/pdf; name*0*=utf-8''R%C3%A9; name*1*=sum%C3%A9.pdf
        Content-Disposition: attachment
        Content-Transfer-Encoding: base64

        JVBERi0x
        --b
        Content-Type: message/rfc822

        From: inner@example.net
        Subject: Inner

        <inner body>
        --b--

        """)

    @Test func sizeCountsCRLFLineEndings() {
        let message = Self.message("Subject: x\nX: a\r\n\nbody\rstays\n")
        #expect(message.bytes == Array("Subject: x\r\nX: a\r\n\r\nbody\rstays\r\n".utf8))
        #expect(message.size == 32)
        #expect(IndexedMessage(bytes: []).size == 0)
    }

    @Test func envelope() {
        let envelope = Self.mixed.envelope
        #expect(envelope.date == "Mon, 1 Jan 2024 23:30:00 -0500")
        #expect(envelope.subject == "=?utf-8?q?R=C3=A9union?= de lundi")
        #expect(
            envelope.from == [Address(name: "=?utf-8?q?S=C3=B8ren?= Tanaka", mailbox: "soren", host: "example.com")])
        #expect(envelope.sender == envelope.from)
        #expect(envelope.replyTo == envelope.from)
        #expect(
            envelope.to == [
                Address(name: "Alice", mailbox: "alice", host: "example.com"),
                Address(name: nil, mailbox: "undisclosed-recipients", host: nil),
                Address(name: nil, mailbox: nil, host: nil),
            ])
        #expect(envelope.cc == [Address(name: "Bob", mailbox: "bob", host: "example.org")])
        #expect(envelope.bcc.isEmpty)
        #expect(envelope.inReplyTo == nil)
        #expect(envelope.messageID == "<m1@example.com>")
    }

    @Test func envelopeRepairsLikeDovecot() {
        let envelope = Self.message(
            "From: a@x.test\nFrom: alice\nSender:\nReply-To: John <john@broken\nSubject: one\nSubject: \t two  \n\n"
        ).envelope
        #expect(
            envelope.from == [
                Address(name: nil, mailbox: "a", host: "x.test"),
                Address(name: nil, mailbox: "alice", host: "MISSING_DOMAIN"),
            ])
        #expect(envelope.sender == envelope.from)
        #expect(envelope.replyTo == [Address(name: "John", mailbox: "john", host: "SYNTAX_ERROR")])
        #expect(envelope.subject == "two")
        #expect(Self.message("\n").envelope == Envelope())
    }

    @Test func bodyStructure() {
        guard case .multipart(let mixed) = Self.mixed.bodyStructure(extensible: true), mixed.parts.count == 3,
            case .singlepart(let text) = mixed.parts[0], case .singlepart(let pdf) = mixed.parts[1],
            case .singlepart(let forwarded) = mixed.parts[2]
        else {
            Issue.record("not the expected tree")
            return
        }
        #expect(mixed.mediaSubtype == "mixed")
        #expect(
            mixed.extension == BodyExtension(parameters: [BodyParameter(name: "boundary", value: "b")], fieldCount: 4))
        #expect(text.mediaType == "text" && text.mediaSubtype == "plain")
        #expect(text.parameters == [BodyParameter(name: "charset", value: "ISO-8859-1")])
        #expect(text.encoding == "quoted-printable")
        #expect(text.size == 32 && text.kind == .text(lineCount: 1))
        #expect(pdf.parameters == [BodyParameter(name: "name*", value: "utf-8''R%C3%A9sum%C3%A9.pdf")])
        #expect(pdf.extension?.disposition == BodyDisposition(kind: "attachment"))
        #expect(pdf.kind == .basic && pdf.size == 8)
        guard case .message(let envelope, let inner, let lines) = forwarded.kind else {
            Issue.record("message/rfc822 without envelope")
            return
        }
        #expect(envelope.subject == "Inner")
        #expect(lines == 3)
        #expect(
            inner
                == .singlepart(
                    SinglePartBody(
                        mediaType: "text", mediaSubtype: "plain",
                        parameters: [BodyParameter(name: "charset", value: "us-ascii")],
                        encoding: "7bit", size: 12, kind: .text(lineCount: 0), extension: BodyExtension(fieldCount: 4)))
        )
        guard case .multipart(let body) = Self.mixed.bodyStructure(extensible: false) else { return }
        #expect(body.extension == nil)
    }

    @Test func sections() {
        let message = Self.mixed
        #expect(Self.string(message.section(.complete)) == Self.string(message.bytes))
        #expect(Self.string(message.section(.header))?.hasSuffix("boundary=\"b\"\r\n\r\n") == true)
        #expect(Self.string(message.section(.text))?.hasPrefix("--b\r\n") == true)
        #expect(Self.string(message.section(SectionSpecifier(part: [1]))) == "> quoted line\r\nCaf=E9   au  lait")
        #expect(
            Self.string(message.section(SectionSpecifier(part: [2], kind: .mime)))
                == "Content-Type: application/pdf; name*0*=utf-8''R%C3%A9; name*1*=sum%C3%A9.pdf\r\n"
                + "Content-Disposition: attachment\r\nContent-Transfer-Encoding: base64\r\n\r\n")
        #expect(
            Self.string(message.section(SectionSpecifier(part: [3], kind: .header)))
                == "From: inner@example.net\r\nSubject: Inner\r\n\r\n")
        #expect(Self.string(message.section(SectionSpecifier(part: [3], kind: .text))) == "<inner body>")
        #expect(Self.string(message.section(SectionSpecifier(part: [3, 1]))) == "<inner body>")
        #expect(
            Self.string(message.section(SectionSpecifier(kind: .headerFields(["subject", "CC"]))))
                == "Cc: bob@example.org (Bob)\r\nSubject: =?utf-8?q?R=C3=A9union?=   de\r\n lundi\r\n\r\n")
        #expect(
            Self.string(message.section(SectionSpecifier(part: [3], kind: .headerFieldsNot(["from"]))))
                == "Subject: Inner\r\n\r\n")
        #expect(message.section(SectionSpecifier(part: [4])) == nil)
        #expect(message.section(SectionSpecifier(part: [1], kind: .header)) == nil)
        // A message that is not multipart has one part: its body, whose MIME header is the message's.
        let single = Self.message("Subject: s\n\nbody\n")
        #expect(Self.string(single.section(SectionSpecifier(part: [1]))) == "body\r\n")
        #expect(Self.string(single.section(SectionSpecifier(part: [1], kind: .mime))) == "Subject: s\r\n\r\n")
        #expect(single.section(SectionSpecifier(part: [2])) == nil)
    }

    @Test func binary() {
        let message = Self.mixed
        #expect(message.binary([1]) == Array("> quoted line\r\nCaf".utf8) + [0xE9] + Array("   au  lait".utf8))
        #expect(message.binary([2]) == Array("%PDF-1".utf8))
        #expect(message.binarySection([5]) == .failure(.noSuchPart))
        let whole = Self.string(message.binary([]))
        #expect(
            whole?.contains("Content-Disposition: attachment\r\nContent-Transfer-Encoding: binary\r\n\r\n%PDF-1")
                == true)
        #expect(whole?.contains("base64") == false)
        let unknown = Self.message("MIME-Version: 1.0\nContent-Transfer-Encoding: x-uuencode\n\nbegin 644 x\n")
        #expect(unknown.binarySection([1]) == .failure(.unknownTransferEncoding))
        #expect(unknown.binary([1]) == nil)
    }

    @Test func preview() {
        #expect(Self.mixed.preview == "Café au lait")
        let long = Self.message("Subject: x\n\n" + String(repeating: "word ", count: 100))
        // 200 characters, the last a space, which goes.
        #expect(long.preview.count == 199)
        #expect(Self.message("Subject: x\n\n" + String(repeating: "abcd", count: 60)).preview.count == 200)
        #expect(long.preview.hasPrefix("word word"))
        let html = Self.message(
            "Content-Type: text/html\n\n<p>Hi&nbsp;<b>there</b></p><blockquote>old</blockquote><p>new</p>")
        #expect(html.preview == "Hi\u{A0} there new")
        #expect(Self.message("Content-Type: image/png\n\nxyz").preview == "")
    }

    @Test func searchIndex() {
        let message = Self.mixed
        #expect(message.headerText("SUBJECT") == "Réunion   de lundi")
        #expect(message.headerText("x-missing") == nil)
        #expect(Self.message("X-Empty:\nX-Two: a\nx-two: b\n\n").headerText("x-empty") == "")
        #expect(Self.message("X-Empty:\nX-Two: a\nx-two: b\n\n").headerText("X-TWO") == "a\nb")
        #expect(message.addressText["from"] == "søren tanaka <soren@example.com>")
        // The ENVELOPE's addresses written out: the trailing comment is the display name.
        #expect(message.addressText["cc"] == "bob <bob@example.org>")
        #expect(message.addressText["bcc"] == nil)
        #expect(message.bodyText.contains("Café   au  lait"))
        #expect(message.bodyText.contains("Subject: Inner"))
        #expect(message.bodyText.contains("<inner body>"))
        #expect(!message.bodyText.contains("JVBER"))
        #expect(message.allHeadersText.contains("subject: Réunion   de lundi\n"))
        #expect(message.matchesSubstring("SØREN", in: message.addressText["from"] ?? ""))
        #expect(message.matchesSubstring("CAFÉ   AU", in: message.bodyText))
        #expect(!message.matchesSubstring("cafe", in: message.bodyText))
        let html = Self.message("Content-Type: text/html; charset=utf-8\n\n<p>Gr&uuml;&szlig;e</p>")
        #expect(html.bodyText == "Grüße ")
    }

    @Test func sentDateIsTheDayInTheHeadersZone() {
        #expect(Self.mixed.sentDate == IMAPDate(year: 2024, month: 1, day: 1))
        #expect(Self.mixed.sentTimestamp == 1_704_169_800)
        #expect(Self.message("Date: 5 Jan 24 12:00 EST\n\n").sentDate == IMAPDate(year: 2024, month: 1, day: 5))
        #expect(Self.message("Subject: no date\n\n").sentDate == nil)
        #expect(Self.message("Date: garbage\n\n").sentTimestamp == nil)
    }
}
