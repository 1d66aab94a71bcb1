import MailMIME
import TestSupport
import Testing

@Suite(.hangGuard) struct MIMEHeaderTests {
    static func header(_ text: String) -> (MIMEMessage, MIMEHeader) {
        let message = MIMEMessage(bytes: Array(text.utf8))
        return (message, message.header)
    }

    @Test func unfoldsAndKeepsTheRawBytes() throws {
        let (message, header) = Self.header("Subject: Quarterly\r\n  update\r\n\tnow\r\nX-Empty:\r\n\r\nbody")
        let subject = try #require(header.firstField(named: "SUBJECT"))
        #expect(subject.name == "Subject")
        #expect(Array(subject.rawValue) == Array(" Quarterly\r\n  update\r\n\tnow".utf8))
        #expect(subject.value == "Quarterly  update\tnow")
        #expect(Array(message.bytes[subject.byteRange]) == Array("Subject: Quarterly\r\n  update\r\n\tnow\r\n".utf8))
        #expect(header.values("x-empty") == [""])
        #expect(header.byteRange == 0..<48)
        #expect(message.root.bodyRange == 48..<52)
    }

    @Test func namesAreCaseInsensitiveAndRepeatable() {
        let (_, header) = Self.header("received: a\nReceived: b\nRECEIVED : c\n\n")
        #expect(header.values("Received") == ["a", "b", "c"])
        #expect(header.fields(named: "received").count == 3)
        #expect(header.decodedValue("x-missing") == nil)
    }

    @Test func aNameMatchesInAnyCaseOfItsLettersOnly() throws {
        let (_, header) = Self.header("X-Mailer: a\nX\rMailer: b\n\n")
        let field = try #require(header.fields.first)
        #expect(field.hasName("x-mailer") && field.hasName("X-MAILER") && field.hasName("X-Mailer"))
        // '-' and '\r' differ by 0x20 too, but only letters fold; a prefix or a longer name is not it.
        #expect(!field.hasName("x\rmailer"))
        #expect(!field.hasName("x-maile") && !field.hasName("x-mailers") && !field.hasName("y-mailer"))
    }

    @Test func decodesRFC2047InUnstructuredFields() {
        let (_, header) = Self.header(
            "Subject: =?utf-8?q?R=C3=A9union?=\n =?utf-8?b?IGRlIGx1bmRp?=\nX-Plain: =?bogus\n\n")
        #expect(header.decodedValue("subject") == "Réunion de lundi")
        #expect(header.values("subject") == ["=?utf-8?q?R=C3=A9union?= =?utf-8?b?IGRlIGx1bmRp?="])
        #expect(header.decodedValue("x-plain") == "=?bogus")
    }

    @Test func oddLinesStayInTheHeader() {
        // A line without a colon is a field with an empty value (as Dovecot reads it); a bare LF
        // ends lines as well as CRLF.
        let (message, header) = Self.header("not a field\nFrom: a@b.test\n\nbody\n")
        #expect(header.fields.map(\.name) == ["not a field", "From"])
        #expect(header.decodedValue("from") == "a@b.test")
        #expect(String(decoding: message.bytes[message.root.bodyRange], as: UTF8.self) == "body\n")
    }

    @Test func headerWithoutBody() {
        let (message, header) = Self.header("Subject: only")
        #expect(header.values("subject") == ["only"])
        #expect(header.byteRange == 0..<13)
        #expect(message.root.bodyRange.isEmpty)
        let empty = MIMEMessage(bytes: [])
        #expect(empty.header.fields.isEmpty && empty.root.contentType == .textPlain)
    }

    @Test func valueOfOnlyWhiteSpaceLosesOneCharacter() {
        let (_, header) = Self.header("X-A:   \nX-B:\n continued\n\n")
        #expect(header.values("x-a") == ["  "])
        #expect(header.values("x-b") == [" continued"])
    }
}
