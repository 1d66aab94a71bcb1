import Foundation
import TestSupport
import Testing

/// `--debug` through the built `mailsearch`: the trace starts where the conversation starts.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct DebugTraceTests {
    /// The server's greeting, with the capabilities it announces, is the first line of the trace:
    /// it is what a person debugging a server needs first.
    @Test func theTraceBeginsWithTheServersGreeting() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let result = try await ToolProcess.run(
            account.tlsArguments + ["--debug", "list", "--limit", "1"], environment: account.environment)
        #expect(result.status == 0, "\(result)")
        let conversation = result.standardError.split(separator: "\n").filter {
            $0.hasPrefix("debug: S: ") || $0.hasPrefix("debug: C: ")
        }
        let first = try #require(conversation.first, "\(result)")
        // Untagged responses are traced without their `* `, as every other server line.
        #expect(first.hasPrefix("debug: S: OK [CAPABILITY IMAP4rev1 "), "\(result)")
        #expect(first.hasSuffix("MockIMAPServer ready"), "\(result)")
    }
}
