import IMAPCore
import MailMIME
import TestSupport
import Testing

@testable import IMAPClient

/// `MessageSummary.decode()` reads the envelope where the parser left it; it must decode exactly
/// as MailMIME's `MailSummary(envelope:...)` does from the same fields copied into a
/// `MailEnvelope` (the decoders are shared; only the copy is skipped).
@Suite(.hangGuard) struct SummaryDecodingTests {
    static let envelopes = [
        #"("Mon, 25 Nov 2024 07:31:37 -0000" "Plain subject" (("Grace Jones" NIL "grace" "apple.com")) NIL NIL ((NIL NIL "alice" "example.com")("Bob  B." NIL "bob" "example.com")) NIL NIL NIL "<1@x>")"#,
        #"("Tue, 1 Oct 2024 10:00:00 +0200" "=?utf-8?q?R=C3=A9union?=  de  lundi " (("=?iso-8859-1?q?Andr=E9?=" NIL "andre" "example.fr")) NIL NIL NIL (("Cc Person" NIL "cc" "example.com")) NIL NIL NIL)"#,
        #"(NIL NIL NIL NIL NIL ((NIL NIL "team" NIL)(" Alice " NIL "alice" "example.com")(NIL NIL NIL NIL)) NIL NIL NIL NIL)"#,
        #"("not a date" " lead" ((NIL NIL "MISSING_MAILBOX" "example.com")(NIL NIL "x" "MISSING_DOMAIN")(NIL NIL "y" "SYNTAX_ERROR")) NIL NIL ((NIL NIL NIL "host.only")) NIL NIL NIL NIL)"#,
        #"("Wed, 2 Dec 2026 15:00:00 +0900" "=?utf-8?b?5pys5pel44Gu5LqI5a6a?=" (("田中 花子" NIL "hanako" "example.jp")) NIL NIL (("=?utf-8?q?a?= =?utf-8?q?b?=" NIL "ab" "example.com")) NIL NIL NIL NIL)"#,
    ]

    /// The raw fields of an ENVELOPE copied into MailMIME's `MailEnvelope` (the way decoding went
    /// before the copy was skipped).
    static func mailEnvelope(_ envelope: Envelope) -> MailEnvelope {
        func bytes(_ string: ByteString?) -> [UInt8]? { string.map { Array($0.bytes) } }
        func addresses(_ list: [Address]) -> [MailEnvelope.Address] {
            list.map {
                MailEnvelope.Address(
                    name: bytes($0.name), route: bytes($0.adl), mailbox: bytes($0.mailbox), host: bytes($0.host))
            }
        }
        var result = MailEnvelope()
        result.date = bytes(envelope.date)
        result.subject = bytes(envelope.subject)
        result.from = addresses(envelope.from)
        result.sender = addresses(envelope.sender)
        result.replyTo = addresses(envelope.replyTo)
        result.to = addresses(envelope.to)
        result.cc = addresses(envelope.cc)
        result.bcc = addresses(envelope.bcc)
        result.inReplyTo = bytes(envelope.inReplyTo)
        result.messageID = bytes(envelope.messageID)
        return result
    }

    @Test(arguments: envelopes)
    func decodingInPlaceEqualsDecodingAMailEnvelope(envelopeText: String) throws {
        var parser = ResponseParser()
        parser.append(Array("* 1 FETCH (UID 9 FLAGS (\\Seen) RFC822.SIZE 321 ENVELOPE \(envelopeText))\r\n".utf8))
        guard case .untagged(.fetch(let fetch))? = try parser.next(), let envelope = fetch.envelope else {
            Issue.record("the test response did not parse as a FETCH with an ENVELOPE")
            return
        }
        var summary = MessageSummary(uid: 9, flags: fetch.flags ?? [])
        summary.envelope = envelope
        summary.size = fetch.size
        summary.preview = "the preview"
        summary.decode()
        let expected = MailSummary(
            envelope: Self.mailEnvelope(envelope), preview: "the preview", hasAttachment: false, size: 321,
            flags: ["\\Seen"])
        #expect(summary.decoded == expected)
        #expect(!summary.decoded.from.isEmpty || !summary.decoded.to.isEmpty)
    }

    /// A part other than text is an attachment when it has a file name: `filename` of the
    /// disposition or `name` of the type, in any case, or their RFC 2231 forms (`name*`,
    /// `filename*0`); a longer key that only starts with the name is not one.
    @Test(arguments: [
        (#"("IMAGE" "PNG" ("NAME" "a.png") NIL NIL "BASE64" 10 NIL NIL NIL NIL)"#, true),
        (#"("IMAGE" "PNG" ("name*" "a.png") NIL NIL "BASE64" 10 NIL NIL NIL NIL)"#, true),
        (#"("IMAGE" "PNG" ("Name*0" "a.png") NIL NIL "BASE64" 10 NIL NIL NIL NIL)"#, true),
        (#"("IMAGE" "PNG" ("NAMEX" "a.png") NIL NIL "BASE64" 10 NIL NIL NIL NIL)"#, false),
        (#"("IMAGE" "PNG" ("NAM" "a.png") NIL NIL "BASE64" 10 NIL NIL NIL NIL)"#, false),
        (#"("IMAGE" "PNG" ("NAME" "") NIL NIL "BASE64" 10 NIL NIL NIL NIL)"#, false),
        (#"("IMAGE" "PNG" NIL NIL NIL "BASE64" 10 NIL ("INLINE" ("FILENAME*1" "x.png")) NIL NIL)"#, true),
        (#"("IMAGE" "PNG" NIL NIL NIL "BASE64" 10 NIL ("INLINE" ("FileName" "x.png")) NIL NIL)"#, true),
        (#"("IMAGE" "PNG" NIL NIL NIL "BASE64" 10 NIL ("INLINE" ("FILENAMES" "x.png")) NIL NIL)"#, false),
        (#"("TEXT" "PLAIN" ("NAME" "a.txt") NIL NIL "7BIT" 10 1 NIL NIL NIL NIL)"#, false),
        (#"("TEXT" "PLAIN" NIL NIL NIL "7BIT" 10 1 NIL ("ATTACHMENT" NIL) NIL NIL)"#, true),
    ])
    func attachmentsByTheirFileNames(structure: String, expected: Bool) throws {
        var parser = ResponseParser()
        parser.append(Array("* 1 FETCH (UID 9 BODYSTRUCTURE \(structure))\r\n".utf8))
        guard case .untagged(.fetch(let fetch))? = try parser.next(), let body = fetch.bodyStructure else {
            Issue.record("the test response did not parse as a FETCH with a BODYSTRUCTURE")
            return
        }
        #expect(MessageSummary.hasAttachment(body) == expected)
    }
}
