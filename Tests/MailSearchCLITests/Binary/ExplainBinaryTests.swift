import Foundation
import TestSupport
import Testing

/// `mailsearch explain` prints exactly the lines of every example of docs/query-language.md
/// (the table the library's tests use), or its error with exit code 65.
@Suite(.hangGuard) struct ExplainBinaryTests {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-explain")

    @Test(arguments: QueryLanguageExamples.rows)
    func specExample(_ example: QueryLanguageExample) async throws {
        let result = try await ToolProcess.run(
            [
                "explain", "--capabilities", example.capabilities, "--today", QueryLanguageExamples.today, "--",
                example.query,
            ],
            environment: ToolEnvironment.make(Self.directory))
        if let lines = example.lines {
            #expect(result.status == 0, "\(result)")
            #expect(result.lines == lines)
            #expect(result.standardError.isEmpty)
        } else {
            #expect(result.status == 65, "\(result)")
            #expect(result.standardOutput.isEmpty)
            #expect(result.errorLines == ["error: " + (example.error ?? "")])
        }
    }

    @Test func capabilitiesChooseTheCommand() async throws {
        let environment = ToolEnvironment.make(Self.directory)
        let sort = try await ToolProcess.run(
            ["explain", "--capabilities", "IMAP4rev1 SORT ESEARCH", "from:bob"], environment: environment)
        #expect(
            sort.lines == [
                #"UID SORT (REVERSE ARRIVAL) UTF-8 FROM "bob" UNDELETED"#,
                "# if the server refuses the charset (BADCHARSET), instead:",
                #"UID SORT (REVERSE ARRIVAL) US-ASCII FROM "bob" UNDELETED"#,
            ])
        let utf8 = try await ToolProcess.run(
            ["explain", "--capabilities", "IMAP4rev1 ENABLE UTF8=ACCEPT", "from:Müller"], environment: environment)
        #expect(utf8.lines == [#"UID SEARCH FROM "Müller" UNDELETED"#])
        let gmail = try await ToolProcess.run(
            ["explain", "--capabilities", "IMAP4rev1 X-GM-EXT-1", "has:attachment"], environment: environment)
        #expect(gmail.lines == [#"UID SEARCH X-GM-RAW "has:attachment" UNDELETED"#])
        let keyword = try await ToolProcess.run(
            ["explain", "--pin-flag", "$Pinned", "is:pinned"], environment: environment)
        #expect(keyword.lines == ["UID SEARCH KEYWORD $Pinned UNDELETED"])
        let words = try await ToolProcess.run(["explain", "from:alice", "is:unread"], environment: environment)
        #expect(words.lines == [#"UID SEARCH FROM "alice" UNSEEN UNDELETED"#])
        let badDate = try await ToolProcess.run(["explain", "--today", "2024-13-01", "x"], environment: environment)
        #expect(badDate.status == 64)
    }
}
