import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// BODY[section] at its edges (RFC 3501 6.4.5), answered byte for byte as Dovecot answers
/// (`DifferentialTests.sectionsMatchDovecot` asks both): HEADER.FIELDS ends with the blank line,
/// also for a message with no body and no blank line; a part that is empty or absent is "" (not
/// NIL); a part with nothing between its boundaries has no MIME header (the CRLF before a
/// boundary line is the delimiter's, RFC 2046 5.1.1, never a header's blank line).
@Suite(.hangGuard) struct SectionTests {
    /// Sequence numbers 1-5.
    static let messages: [[UInt8]] = [
        // 1: no body and no blank line.
        "From: a@b.org\r\nSubject: no blank line\r\n",
        // 2: a blank line and an empty body.
        "From: a@b.org\r\nSubject: empty body\r\n\r\n",
        // 3: one text part.
        "From: a@b.org\r\nSubject: s\r\n\r\nbody\r\n",
        // 4: an empty part, an attached message with only a header, a text part.
        "From: a@b.org\r\nSubject: multi\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n"
            + "--XX\r\n\r\n--XX\r\nContent-Type: message/rfc822\r\n\r\nSubject: inner\r\n"
            + "--XX\r\nContent-Type: text/plain\r\n\r\nthird\r\n--XX--\r\n",
        // 5: the message is an attached message without a body or blank line.
        "Subject: x\r\nMIME-Version: 1.0\r\nContent-Type: message/rfc822\r\n\r\nSubject: inner\r\nFrom: z@y.org\r\n",
        // 6: an attached message whose last CRLF is the delimiter's, not a blank line.
        "Subject: y\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\n"
            + "Content-Type: message/rfc822\r\n\r\nSubject: inner\r\nFrom: q@r.org\r\n\r\n--XX--\r\n",
        // 7: an attached message whose header runs to the end, without a final CRLF.
        "Subject: z\r\nMIME-Version: 1.0\r\nContent-Type: message/rfc822\r\n\r\nSubject: inner\r\nFrom: z@y.org",
    ].map { Array($0.utf8) }

    struct Case: Sendable, CustomTestStringConvertible {
        let message: Int
        let section: String
        let content: String
        var testDescription: String { "\(message) BODY[\(section)]" }
    }

    static let cases: [Case] = [
        Case(message: 1, section: "HEADER.FIELDS (SUBJECT)", content: "Subject: no blank line\r\n\r\n"),
        Case(message: 1, section: "HEADER.FIELDS (XYZ)", content: "\r\n"),
        Case(message: 1, section: "HEADER.FIELDS.NOT (SUBJECT)", content: "From: a@b.org\r\n"),
        Case(message: 1, section: "HEADER", content: "From: a@b.org\r\nSubject: no blank line\r\n"),
        Case(message: 1, section: "TEXT", content: ""),
        Case(message: 1, section: "1", content: ""),
        Case(message: 2, section: "HEADER.FIELDS (SUBJECT)", content: "Subject: empty body\r\n\r\n"),
        Case(message: 2, section: "HEADER.FIELDS.NOT (SUBJECT)", content: "From: a@b.org\r\n\r\n"),
        Case(message: 3, section: "HEADER.FIELDS (FROM SUBJECT)", content: "From: a@b.org\r\nSubject: s\r\n\r\n"),
        Case(message: 3, section: "HEADER.FIELDS (XYZ)", content: "\r\n"),
        // Absent parts, and HEADER/TEXT of a part that is not a message: "".
        Case(message: 3, section: "2", content: ""), Case(message: 3, section: "1.1", content: ""),
        Case(message: 3, section: "2.MIME", content: ""), Case(message: 3, section: "1.HEADER", content: ""),
        Case(message: 3, section: "1.TEXT", content: ""), Case(message: 4, section: "5", content: ""),
        Case(message: 4, section: "1.HEADER.FIELDS (SUBJECT)", content: ""),
        // The empty part: no body, no header.
        Case(message: 4, section: "1", content: ""), Case(message: 4, section: "1.MIME", content: ""),
        Case(message: 4, section: "2.MIME", content: "Content-Type: message/rfc822\r\n\r\n"),
        // The attached message's header ends where the delimiter's CRLF starts ...
        Case(message: 4, section: "2.HEADER", content: "Subject: inner"),
        // ... and its HEADER.FIELDS get their line end and blank line.
        Case(message: 4, section: "2.HEADER.FIELDS (SUBJECT)", content: "Subject: inner\r\n\r\n"),
        Case(message: 4, section: "2.TEXT", content: ""), Case(message: 4, section: "3", content: "third"),
        Case(message: 5, section: "1.HEADER.FIELDS (FROM)", content: "From: z@y.org\r\n"),
        Case(message: 5, section: "1.HEADER.FIELDS.NOT (FROM)", content: "Subject: inner\r\n"),
        Case(message: 5, section: "1.1", content: ""),
        Case(message: 6, section: "1.HEADER", content: "Subject: inner\r\nFrom: q@r.org\r\n"),
        Case(message: 6, section: "1.HEADER.FIELDS (FROM)", content: "From: q@r.org\r\n\r\n"),
        Case(message: 6, section: "1.TEXT", content: ""),
        // An attached message's header running to the end is copied as it is.
        Case(message: 7, section: "1.HEADER.FIELDS (FROM)", content: "From: z@y.org"),
        Case(message: 7, section: "1.HEADER.FIELDS.NOT (XYZ)", content: "Subject: inner\r\nFrom: z@y.org"),
        Case(message: 7, section: "HEADER.FIELDS (SUBJECT)", content: "Subject: z\r\n\r\n"),
    ]

    static let sharedServer = Task { () throws -> MockIMAPServer in
        let server = try await startServer()
        for message in messages { try server.store.seed(user: "alice", from: .raw(message)) }
        return server
    }

    /// The frame a FETCH of `section` answers with.
    static func expectedFrame(_ sectionCase: Case) -> String {
        "* \(sectionCase.message) FETCH (BODY[\(sectionCase.section)] {\(sectionCase.content.utf8.count)}\r\n"
            + "\(sectionCase.content))\r\n"
    }

    @Test(arguments: cases) func section(_ sectionCase: Case) async throws {
        let server = try await Self.sharedServer.value
        let client = try await server.rawClient()
        defer { client.close() }
        _ = try await client.selectInbox(readOnly: true)
        try await client.send("f FETCH \(sectionCase.message) (BODY.PEEK[\(sectionCase.section)])\r\n")
        #expect(String(decoding: try await client.readFrame(), as: UTF8.self) == Self.expectedFrame(sectionCase))
        #expect(try await client.lines(until: "f") == ["f OK FETCH completed"])
    }

    @Test func partialOfAnAbsentPartIsEmpty() async throws {
        let server = try await Self.sharedServer.value
        let client = try await server.rawClient()
        defer { client.close() }
        _ = try await client.selectInbox(readOnly: true)
        try await client.send("f FETCH 3 (BODY.PEEK[9]<0.5> BINARY.PEEK[9] BINARY.SIZE[9])\r\n")
        #expect(
            String(decoding: try await client.readFrame(), as: UTF8.self)
                == "* 3 FETCH (BODY[9]<0> {0}\r\n BINARY[9] {0}\r\n BINARY.SIZE[9] 0)\r\n")
    }
}
