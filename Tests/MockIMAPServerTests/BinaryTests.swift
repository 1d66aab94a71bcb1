import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// BINARY (RFC 3516): APPEND with a literal8, BINARY.SIZE and BINARY.PEEK[part] with the
/// transfer encoding undone (base64, quoted-printable; 7bit, 8bit and binary as they are),
/// literal8 only where the data holds NUL (RFC 3516 4.3 and its erratum 3978: a string
/// otherwise), partials, and `NO [UNKNOWN-CTE]` for an encoding the server cannot undo.
@Suite(.hangGuard) struct BinaryTests {
    /// One multipart message: its parts 1-7.
    static let message: [UInt8] = Array(
        ("From: a@x.org\r\nSubject: bin\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n"
            + "--B\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\naGVsbG8gd29ybGQ=\r\n"
            + "--B\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
            + "hello=20world=\r\n!=3D\r\n"
            + "--B\r\nContent-Type: text/plain\r\n\r\nplain 7bit\r\n"
            + "--B\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: BASE64\r\n\r\n"
            + "YWJjAGRlZg0KZ2hpAA==\r\n"
            + "--B\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: x-uuencode\r\n\r\n"
            + "begin 644 x\r\n`\r\nend\r\n"
            + "--B\r\nContent-Type: message/rfc822\r\n\r\nSubject: inner\r\nMIME-Version: 1.0\r\n"
            + "Content-Transfer-Encoding: base64\r\n\r\naW5uZXI=\r\n"
            + "--B\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: 8bit\r\n\r\ncafé\r\n--B--\r\n").utf8)

    struct Case: Sendable, CustomTestStringConvertible {
        let part: String
        let content: [UInt8]
        var testDescription: String { "BINARY[\(part)]" }
    }

    static let parts: [Case] = [
        Case(part: "1", content: Array("hello world".utf8)),
        Case(part: "2", content: Array("hello world!=".utf8)),
        Case(part: "3", content: Array("plain 7bit".utf8)),
        Case(part: "4", content: Array("abc".utf8) + [0] + Array("def\r\nghi".utf8) + [0]),
        // An attached message: its header with the encoding now binary, its body decoded.
        Case(
            part: "6",
            content: Array("Subject: inner\r\nMIME-Version: 1.0\r\nContent-Transfer-Encoding: binary\r\n\r\ninner".utf8)
        ),
        Case(part: "6.1", content: Array("inner".utf8)),
        Case(part: "7", content: Array("café".utf8)),
    ]

    static let sharedServer = Task { () throws -> MockIMAPServer in
        let server = try await startServer()
        try server.store.seed(user: "alice", from: .raw(message))
        return server
    }

    /// The frame of `* 1 FETCH (BINARY[part] data)`: a string literal, or literal8 with NUL.
    static func frame(_ item: String, _ content: [UInt8]) -> [UInt8] {
        let marker = content.contains(0) ? "~{" : "{"
        return Array("* 1 FETCH (\(item) \(marker)\(content.count)}\r\n".utf8) + content + Array(")\r\n".utf8)
    }

    @Test(arguments: parts) func decodedPart(_ partCase: Case) async throws {
        let server = try await Self.sharedServer.value
        let client = try await server.rawClient()
        defer { client.close() }
        _ = try await client.selectInbox(readOnly: true)
        try await client.send("b FETCH 1 (BINARY.PEEK[\(partCase.part)])\r\n")
        #expect(try await client.readFrame() == Self.frame("BINARY[\(partCase.part)]", partCase.content))
        #expect(try await client.lines(until: "b") == ["b OK FETCH completed"])
        #expect(
            try await client.command("s", "FETCH 1 (BINARY.SIZE[\(partCase.part)])") == [
                "* 1 FETCH (BINARY.SIZE[\(partCase.part)] \(partCase.content.count))", "s OK FETCH completed",
            ])
    }

    @Test func partialsOfADecodedPart() async throws {
        let server = try await Self.sharedServer.value
        let client = try await server.rawClient()
        defer { client.close() }
        _ = try await client.selectInbox(readOnly: true)
        try await client.send("p FETCH 1 (BINARY.PEEK[4]<2.5> BINARY.PEEK[1]<6.100>)\r\n")
        #expect(
            try await client.readFrame()
                == Array("* 1 FETCH (BINARY[4]<2> ~{5}\r\nc".utf8) + [0]
                + Array("def BINARY[1]<6> {5}\r\nworld)\r\n".utf8))
    }

    @Test func unknownTransferEncodingIsRefused() async throws {
        let server = try await Self.sharedServer.value
        let client = try await server.rawClient()
        defer { client.close() }
        _ = try await client.selectInbox(readOnly: true)
        let expected = ["* 1 FETCH (UID 1)", "u NO [UNKNOWN-CTE] a part has an unknown Content-Transfer-Encoding"]
        #expect(try await client.command("u", "FETCH 1 (BINARY.PEEK[5])") == expected)
        #expect(try await client.command("u", "FETCH 1 (BINARY.SIZE[5])") == expected)
        // The whole message holds that part: BINARY[] cannot be made either.
        #expect(try await client.command("u", "FETCH 1 (BINARY.PEEK[])") == expected)
        // Other items of the same FETCH are answered.
        #expect(
            try await client.command("u", "FETCH 1 (BINARY.SIZE[1] BINARY.SIZE[5])") == [
                "* 1 FETCH (BINARY.SIZE[1] 11)", expected[1],
            ])
    }

    /// APPEND with a literal8 (synchronizing and not), content with NUL in a `binary` part:
    /// stored as base64, as Dovecot 2.3 stores it (its answer to this message: `BODY[1] {12}
    /// YWIAY2QNCg==`); BINARY gives the bytes back as literal8.
    @Test func appendWithALiteral8() async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        try await client.login()
        let appended =
            Array(
                "From: a@x.org\r\nSubject: binary\r\nMIME-Version: 1.0\r\nContent-Type: application/octet-stream\r\n"
                    .utf8)
            + Array("Content-Transfer-Encoding: binary\r\n\r\nab".utf8) + [0] + Array("cd\r\n".utf8)
        try await client.send("a1 APPEND INBOX ~{\(appended.count)}\r\n")
        #expect(try await client.readLine().hasPrefix("+ "))
        try await client.sendBytes(appended + Array("\r\n".utf8))
        #expect(try await client.lines(until: "a1").tagged.hasPrefix("a1 OK [APPENDUID "))
        try await client.sendBytes(
            Array("a2 APPEND INBOX (\\Seen) ~{\(appended.count)+}\r\n".utf8) + appended + [13, 10])
        #expect(try await client.lines(until: "a2").tagged.hasPrefix("a2 OK [APPENDUID "))
        _ = try await client.command("s", "SELECT INBOX")
        for number in 1...2 {
            try await client.send("f FETCH \(number) (BINARY.PEEK[1] BODY.PEEK[1])\r\n")
            let frame = try await client.readFrame()
            let body = Array("ab".utf8) + [0] + Array("cd\r\n".utf8)
            #expect(
                frame == Array("* \(number) FETCH (BINARY[1] ~{7}\r\n".utf8) + body
                    + Array(" BODY[1] {12}\r\nYWIAY2QNCg==)\r\n".utf8))
            _ = try await client.lines(until: "f")
        }
        let stored = Array(appended[..<(appended.count - 17)]) + Array("base64\r\n\r\nYWIAY2QNCg==".utf8)
        #expect(server.store.rawMessage(user: "alice", mailbox: "INBOX", uid: 1) == stored)
        await server.stop()
    }

    /// imaptest's `append-binary`: bare LFs and a lone CR in a `binary` part come back from
    /// BINARY exactly as appended, and BINARY.SIZE counts them (7), where making the line ends
    /// CRLF gave 9. In a multipart, only the `binary` part changes (Dovecot: `BINARY.SIZE[2] 4`,
    /// `BODY[2] AAECCg==`).
    @Test func binaryPartsKeepTheirBytes() async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        try await client.login()
        let header = "From: user@domain.org\r\nMime-Version: 1.0\r\nContent-Type: application/octet-stream\r\n"
        let content: [UInt8] = [0, 0x2D, 0xE4, 0x0A, 0x0D, 0x0A, 0x0A]
        let single = Array((header + "Content-Transfer-Encoding: binary\r\n\r\n").utf8) + content
        let multipart =
            Array(
                ("From: a@x.org\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n"
                    + "--XX\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XX\r\n"
                    + "Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: Binary\r\n\r\n").utf8)
            + [0, 1, 2, 0x0A] + Array("\r\n--XX--\r\n".utf8)
        for (tag, message) in [("a1", single), ("a2", multipart)] {
            try await client.sendBytes(Array("\(tag) APPEND INBOX ~{\(message.count)+}\r\n".utf8) + message + [13, 10])
            #expect(try await client.lines(until: tag).tagged.hasPrefix("\(tag) OK [APPENDUID "))
        }
        _ = try await client.command("s", "SELECT INBOX")
        try await client.send("f FETCH 1 (BINARY.SIZE[1] BINARY.PEEK[1])\r\n")
        #expect(
            try await client.readFrame()
                == Array("* 1 FETCH (BINARY.SIZE[1] 7 BINARY[1] ~{7}\r\n".utf8) + content + Array(")\r\n".utf8))
        _ = try await client.lines(until: "f")
        #expect(
            try await client.command("g", "FETCH 2 (BINARY.SIZE[2] BODY.PEEK[2] BINARY.SIZE[1])") == [
                "* 2 FETCH (BINARY.SIZE[2] 4 BODY[2] {8}", "AAECCg== BINARY.SIZE[1] 5)", "g OK FETCH completed",
            ])
        await server.stop()
    }
}
