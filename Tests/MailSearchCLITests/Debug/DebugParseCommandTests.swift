import Foundation
import MailSearchCLI
import TestSupport
import Testing

@Suite(.hangGuard, .cpuBound) struct DebugParseCommandTests {
    /// `debug parse -` of the session fixture, fed through standard input.
    static func session(chunkSize: Int = .max) async throws -> ToolRun {
        await runTool(
            ["debug", "parse", "-"], standardInput: try Fixtures.dovecot("session.server.txt"), chunkSize: chunkSize)
    }

    @Test func sessionParsesToOneValidJSONLinePerResponse() async throws {
        let run = try await Self.session()
        #expect(run.status == .success)
        #expect(run.standardError.isEmpty)
        #expect(run.lines.count == 132)
        for line in run.lines {
            let object = try jsonObject(line)
            #expect(object["kind"] is String)
            #expect(line.hasPrefix("{\"kind\":\""))
        }
    }

    @Test func sessionValues() async throws {
        let lines = try await Self.session().lines
        #expect(
            lines[0]
                == #"{"kind":"condition","status":"OK","code":{"name":"CAPABILITY","value":["IMAP4rev1","SASL-IR","LOGIN-REFERRALS","ID","ENABLE","IDLE","LITERAL+","AUTH=PLAIN","AUTH=LOGIN"]},"text":"Dovecot (Debian) ready."}"#
        )
        #expect(lines.contains(#"{"kind":"id","parameters":{"name":"Dovecot"}}"#))
        #expect(
            lines.contains(
                #"{"kind":"namespace","personal":[{"prefix":"","delimiter":"."}],"otherUsers":[],"shared":[]}"#))
        #expect(lines.contains(#"{"kind":"list","attributes":["\\HasNoChildren"],"delimiter":".","mailbox":"INBOX"}"#))
        #expect(
            lines.contains(
                #"{"kind":"status","mailbox":"INBOX","messages":20000,"uidNext":20001,"uidValidity":1796004237,"unseen":7871,"highestModseq":2}"#
            ))
        #expect(lines.contains(#"{"kind":"exists","count":20000}"#))
        #expect(
            lines.contains(
                #"{"kind":"tagged","tag":"c3","status":"OK","code":{"name":"MODIFIED","value":"5"},"text":"Conditional store failed (0.001 + 0.000 secs)."}"#
            ))
        #expect(
            lines.contains(
                #"{"kind":"tagged","tag":"b4","status":"NO","code":{"name":"BADCHARSET","value":[]},"text":"Unknown charset (0.001 + 0.000 secs)."}"#
            ))
        #expect(lines.contains(#"{"kind":"esearch","tag":"b2","uid":true,"count":7871}"#))
        #expect(
            lines.contains(
                #"{"kind":"fetch","seq":2,"uid":2,"sections":[{"section":"HEADER.FIELDS (FROM TO SUBJECT DATE MESSAGE-ID)","origin":null,"bytes":186},{"section":"TEXT","origin":0,"bytes":300}]}"#
            ))
        #expect(
            lines.contains(
                #"{"kind":"fetch","seq":7,"uid":7,"sections":[{"section":"1.MIME","origin":null,"bytes":78},{"section":"1","origin":0,"bytes":100}],"binary":[{"part":"1","origin":0,"bytes":50}]}"#
            ))
        #expect(lines.contains(#"{"kind":"continuation","text":"idling"}"#))
        #expect(lines.contains(#"{"kind":"fetch","seq":10,"flags":["\\Flagged","\\Seen"],"modseq":7}"#))
        #expect(
            lines.last
                == #"{"kind":"tagged","tag":"d5","status":"OK","code":null,"text":"Logout completed (0.001 + 0.000 secs)."}"#
        )
    }

    @Test func extendedSearchOfB1() async throws {
        let line = try #require(try await Self.session().lines.first { $0.contains(#""kind":"esearch","tag":"b1""#) })
        let object = try jsonObject(line)
        #expect(object["uid"] as? Bool == true)
        #expect(object["min"] as? Int == 45)
        #expect(object["max"] as? Int == 19977)
        #expect(object["count"] as? Int == 973)
        #expect((object["all"] as? String)?.hasPrefix("45:46,53,62,") == true)
    }

    @Test func fetchWithEnvelopeStructureAndPreview() async throws {
        let lines = try await Self.session().lines
        let line = try #require(lines.first { $0.hasPrefix(#"{"kind":"fetch","seq":2,"uid":2,"flags""#) })
        #expect(
            line.hasPrefix(
                #"{"kind":"fetch","seq":2,"uid":2,"flags":["\\Seen"],"internalDate":"2023-12-01T00:22:30Z","size":3761,"modseq":2,"envelope":{"date":"Fri, 01 Dec 2023 00:22:30 -0000","subject":"Invoice #1364","from":[{"name":"Grace Jones","address":"grace.jones@apple.com"}],"#
            ))
        #expect(
            line.contains(
                #","structure":"multipart/alternative(text/plain,text/html)","hasAttachment":false,"preview":"quarterly calendar"#
            ))
        // The keys come in the documented order.
        let keys = [
            "\"uid\"", "\"flags\"", "\"internalDate\"", "\"size\"", "\"modseq\"", "\"envelope\"", "\"structure\"",
            "\"hasAttachment\"", "\"preview\"",
        ]
        let positions = keys.compactMap { line.range(of: $0)?.lowerBound }
        #expect(positions.count == keys.count)
        #expect(positions == positions.sorted())
    }

    @Test func encodedWordsInTheSessionAreDecoded() async throws {
        let lines = try await Self.session().lines
        let uid3 = try jsonObject(
            try #require(lines.first { $0.hasPrefix(#"{"kind":"fetch","seq":3,"uid":3,"flags""#) }))
        let envelope = try #require(uid3["envelope"] as? [String: Any])
        let from = try #require(envelope["from"] as? [[String: Any]])
        #expect(from.first?["name"] as? String == "Søren Tanaka")
        #expect(from.first?["address"] as? String == "sren.tanaka@example.com")
    }

    @Test func attachmentsAreReported() async throws {
        let fetches = try await Self.session().lines.filter {
            $0.hasPrefix(#"{"kind":"fetch""#) && $0.contains("\"structure\"")
        }
        #expect(fetches.count == 40)
        #expect(fetches.contains { $0.contains(#""hasAttachment":true"#) && $0.contains("application/pdf") })
    }

    @Test(arguments: [1, 2, 7, 100, 4096])
    func outputDoesNotDependOnChunking(chunkSize: Int) async throws {
        let whole = try await Self.session()
        let chunked = try await Self.session(chunkSize: chunkSize)
        #expect(chunked.status == .success)
        #expect(chunked.standardOutput == whole.standardOutput)
    }

    @Test func fetchEnvelope20kUID3() async throws {
        let run = await runTool(["debug", "parse", Fixtures.path("fetch-envelope-20k.server.txt")])
        #expect(run.status == .success)
        #expect(run.standardError.isEmpty)
        let lines = run.lines
        #expect(lines.count == 20001)
        let line = try #require(lines.first { $0.hasPrefix(#"{"kind":"fetch","seq":3,"uid":3,"#) })
        let envelope = try #require(try jsonObject(line)["envelope"] as? [String: Any])
        let from = try #require(envelope["from"] as? [[String: Any]])
        #expect(from.count == 1)
        #expect(from.first?["name"] as? String == "Søren Tanaka")
        #expect(lines.last?.hasPrefix(#"{"kind":"tagged","tag":"c","status":"OK","#) == true)
    }

    @Test func protocolErrorStopsWithTheOffset() async {
        let input = Array("* 3 EXISTS\r\n* 4 FETCH (UID x)\r\n* 5 EXISTS\r\n".utf8)
        let run = await runTool(["debug", "parse", "-"], standardInput: input)
        #expect(run.status == .failure)
        #expect(run.lines == [#"{"kind":"exists","count":3}"#])
        #expect(run.standardError.hasPrefix("error: <stdin>: IMAP protocol error at byte 27: "))
        #expect(run.standardError.contains(#"; near "* 4 FETCH (UID >>>x)\r\n""#))
        #expect(run.standardError.hasSuffix("\n"))
        #expect(run.standardError.filter { $0 == "\n" }.count == 1)
    }

    @Test func protocolErrorInAFileNamesTheFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("debug-parse-\(UUID()).txt").path
        try Data("a1 OK done\r\na2 MAYBE\r\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = await runTool(["debug", "parse", path])
        #expect(run.status == .failure)
        #expect(run.lines == [#"{"kind":"tagged","tag":"a1","status":"OK","code":null,"text":"done"}"#])
        #expect(run.standardError.hasPrefix("error: \(path): IMAP protocol error at byte 15: "))
    }

    @Test(arguments: [1, 1000])
    func inputEndingInsideAResponse(chunkSize: Int) async {
        let input = Array("* 3 EXISTS\r\n* 1 FETCH (BODY[] {10}\r\nabc".utf8)
        let run = await runTool(["debug", "parse", "-"], standardInput: input, chunkSize: chunkSize)
        #expect(run.status == .failure)
        #expect(run.lines == [#"{"kind":"exists","count":3}"#])
        #expect(
            run.standardError
                == "error: <stdin>: the input ends in the middle of a response that starts at byte 12 "
                + "(only 27 bytes of it arrived; was the capture cut short?)\n")
    }

    @Test func emptyInputIsNoResponses() async {
        let run = await runTool(["debug", "parse", "-"], standardInput: [])
        #expect(run.status == .success)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.isEmpty)
    }

    @Test func missingFile() async {
        let run = await runTool(["debug", "parse", "/nonexistent/capture.txt"])
        #expect(run.status == .failure)
        #expect(run.status.rawValue == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(
            run.standardError
                == "error: cannot read /nonexistent/capture.txt: No such file or directory; "
                + "check the path, or pass - to read standard input\n")
    }

    @Test func directoryIsNotReadable() async {
        let run = await runTool(["debug", "parse", FileManager.default.temporaryDirectory.path])
        #expect(run.status == .failure)
        #expect(run.standardError.hasSuffix(": Is a directory\n"))
    }
}

@Suite(.hangGuard) struct ResponseJSONTests {
    @Test(arguments: [
        ("* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL \"7bit\" 10 1))\r\n", "text/plain"),
        (
            "* 1 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 10 1)(\"application\" \"pdf\" "
                + "(\"name\" \"a.pdf\") NIL NIL \"base64\" 100) \"mixed\"))\r\n",
            "multipart/mixed(text/plain,application/pdf)"
        ),
    ])
    func structureSummary(line: String, expected: String) async throws {
        let run = await runTool(["debug", "parse", "-"], standardInput: Array(line.utf8))
        #expect(run.status == .success)
        let object = try jsonObject(try #require(run.lines.first))
        #expect(object["structure"] as? String == expected)
    }

    @Test func otherShapes() async {
        let input = """
            + Ready for literal\r
            * 5 EXPUNGE\r
            * VANISHED (EARLIER) 1:3,7\r
            * ID NIL\r
            * SORT 3 1 2 (MODSEQ 9)\r
            * THREAD (1 2)\r
            * 2 FETCH (UID 9 X-UNKNOWN-ITEM (a b) INTERNALDATE " 1-Jan-2024 01:00:00 +0100" BINARY.SIZE[1] 20)\r
            * LIST (\\HasNoChildren) "/" "&ZeVnLIqe-"\r
            * STATUS "&ZeVnLIqe-" (MESSAGES 3)\r
            a1 OK [APPENDUID 38505 3955] done\r

            """
        let run = await runTool(["debug", "parse", "-"], standardInput: Array(input.utf8))
        #expect(run.status == .success)
        #expect(
            run.lines == [
                #"{"kind":"continuation","text":"Ready for literal"}"#,
                #"{"kind":"expunge","seq":5}"#,
                #"{"kind":"vanished","earlier":true,"uids":"1:3,7"}"#,
                #"{"kind":"id","parameters":null}"#,
                #"{"kind":"sort","numbers":[3,1,2],"modseq":9}"#,
                #"{"kind":"unknown","name":"THREAD","raw":"(1 2)"}"#,
                #"{"kind":"fetch","seq":2,"uid":9,"internalDate":"2024-01-01T00:00:00Z","binarySize":[{"part":"1","size":20}],"unknown":["X-UNKNOWN-ITEM"]}"#,
                #"{"kind":"list","attributes":["\\HasNoChildren"],"delimiter":"/","mailbox":"&ZeVnLIqe-","displayName":"日本語"}"#,
                #"{"kind":"status","mailbox":"&ZeVnLIqe-","displayName":"日本語","messages":3}"#,
                #"{"kind":"tagged","tag":"a1","status":"OK","code":{"name":"APPENDUID","value":{"uidValidity":38505,"uids":"3955"}},"text":"done"}"#,
            ])
    }
}
