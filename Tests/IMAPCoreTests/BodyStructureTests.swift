import IMAPCore
import Testing

@Suite struct BodyStructureTests {
    static let wires: [String] = [
        // text/plain with all extension fields, a language list, a location and extra extensions.
        "(\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") \"<id@x>\" \"desc\" \"7BIT\" 3028 92 \"md5sum\" "
            + "(\"inline\" NIL) (\"en\" \"de\") \"http://x/y\" 7 (\"a\" (1 NIL)))",
        // basic part without extension data (BODY form).
        "(\"image\" \"png\" NIL NIL NIL \"base64\" 4096)",
        // multipart/mixed with a nested alternative and a PDF attachment.
        "(((\"text\" \"plain\" (\"charset\" \"utf-8\") NIL NIL \"quoted-printable\" 120 4 NIL NIL NIL NIL)"
            + "(\"text\" \"html\" (\"charset\" \"utf-8\") NIL NIL \"base64\" 800 11 NIL NIL NIL NIL) \"alternative\" "
            + "(\"boundary\" \"b2\") NIL NIL NIL)(\"application\" \"pdf\" (\"name\" \"r.pdf\") NIL NIL \"base64\" 52040 NIL "
            + "(\"attachment\" (\"filename\" \"r.pdf\")) NIL NIL) \"mixed\" (\"boundary\" \"b1\") NIL \"en\" NIL)",
        // message/rfc822 holding a text part.
        "(\"message\" \"rfc822\" NIL NIL NIL \"7bit\" 900 (\"Mon, 1 Jan 2024 10:00:00 +0000\" \"Fwd\" "
            + "((\"A\" NIL \"a\" \"x.org\")) NIL NIL NIL NIL NIL NIL \"<m@x>\") (\"text\" \"plain\" (\"charset\" \"utf-8\") "
            + "NIL NIL \"7bit\" 300 10 NIL NIL NIL NIL) 25 NIL NIL NIL NIL)",
        // multipart without extension data.
        "((\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1)(\"text\" \"plain\" NIL NIL NIL \"7bit\" 2 1) \"mixed\")",
        // multipart with only the parameters extension field.
        "((\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1) \"related\" (\"type\" \"text/html\"))",
        // message/global as an RFC 3501 server (Dovecot 2.3) sends it: a basic part, no envelope.
        "((\"text\" \"plain\" (\"charset\" \"us-ascii\") NIL NIL \"7bit\" 37 0 NIL NIL NIL NIL)"
            + "(\"message\" \"global\" NIL NIL NIL \"7bit\" 74 NIL NIL NIL NIL) \"mixed\" (\"boundary\" \"G\") NIL NIL NIL)",
        // message/global as RFC 9051 sends it: like message/rfc822.
        "(\"message\" \"global\" NIL NIL NIL \"8bit\" 90 (NIL \"G\" NIL NIL NIL NIL NIL NIL NIL NIL) "
            + "(\"text\" \"plain\" (\"charset\" \"utf-8\") NIL NIL \"8bit\" 6 1 NIL NIL NIL NIL) 4 NIL NIL NIL NIL)",
    ]

    @Test(arguments: wires) func parsesAndRoundTrips(wire: String) throws {
        let response = try parseOne("* 1 FETCH (BODYSTRUCTURE \(wire))\r\n")
        guard case .untagged(.fetch(let fetch)) = response, let body = fetch.bodyStructure else {
            Issue.record("no body structure")
            return
        }
        if case .invalid = body { Issue.record("parsed as invalid: \(wire)") }
        let encoded = ResponseEncoder.encode(response)
        #expect(String(decoding: encoded, as: UTF8.self) == "* 1 FETCH (BODYSTRUCTURE \(wire))\r\n")
        #expect(try ResponseParser.parseAll(encoded) == [response])
    }

    @Test func fieldsOfAMixedMessage() throws {
        let response = try parseOne("* 1 FETCH (BODYSTRUCTURE \(Self.wires[2]))\r\n")
        guard case .untagged(.fetch(let fetch)) = response, case .multipart(let mixed) = fetch.bodyStructure else {
            Issue.record("not multipart")
            return
        }
        #expect(mixed.mediaSubtype == "mixed")
        #expect(mixed.extension?.language == ["en"])
        #expect(mixed.extension?.fieldCount == 4)
        guard case .multipart(let alternative) = mixed.parts[0], case .singlepart(let pdf) = mixed.parts[1] else {
            Issue.record("wrong parts")
            return
        }
        #expect(alternative.parts.count == 2)
        #expect(pdf.mediaType == "application" && pdf.mediaSubtype == "pdf")
        #expect(pdf.size == 52040)
        #expect(
            pdf.extension?.disposition
                == BodyDisposition(kind: "attachment", parameters: [BodyParameter(name: "filename", value: "r.pdf")]))
        #expect(fetch.bodyStructure?.hasAttachment == true)
    }

    @Test func messageRFC822CarriesItsEnvelopeAndBody() throws {
        let response = try parseOne("* 1 FETCH (BODYSTRUCTURE \(Self.wires[3]))\r\n")
        guard case .untagged(.fetch(let fetch)) = response, case .singlepart(let part) = fetch.bodyStructure,
            case .message(let envelope, let inner, let lines) = part.kind
        else {
            Issue.record("not message/rfc822")
            return
        }
        #expect(envelope.subject == "Fwd")
        #expect(lines == 25)
        guard case .singlepart(let text) = inner, case .text(let textLines) = text.kind else {
            Issue.record("inner not text")
            return
        }
        #expect(textLines == 10)
        #expect(fetch.bodyStructure?.hasAttachment == false)
    }

    @Test func nonExtensibleBodyForm() throws {
        let response = try parseOne("* 1 FETCH (BODY (\"text\" \"plain\" NIL NIL NIL \"7bit\" 12 1))\r\n")
        #expect(
            response
                == .untagged(
                    .fetch(
                        FetchResponse(
                            sequenceNumber: 1,
                            attributes: [
                                .body(
                                    .singlepart(
                                        SinglePartBody(
                                            mediaType: "text", mediaSubtype: "plain", encoding: "7bit", size: 12,
                                            kind: .text(lineCount: 1))))
                            ]))))
    }
}
