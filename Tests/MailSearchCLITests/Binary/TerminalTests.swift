import Foundation
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// What a person at a terminal sees that a pipe does not: colours (never with NO_COLOR) and a
/// progress bar on stderr for a long listing.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct TerminalTests {
    @Test func colorsOnlyOnATerminalAndNeverWithNoColor() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let arguments = account.tlsArguments + ["search", "from:dumbledore"]
        let terminal = try await ToolProcess.start(arguments, environment: account.environment, terminals: [1])
            .finished()
        #expect(terminal.status == 0, "\(terminal)")
        #expect(terminal.standardOutput.contains("\u{1B}[2mTo the well-organized mind"), "\(terminal)")
        #expect(terminal.standardOutput.contains("\u{1B}[34m●\u{1B}[0m"))
        #expect(terminal.standardOutput.contains("\u{1B}[1mAbout Nicolas Flamel\u{1B}[0m"))

        var noColor = account.environment
        noColor["NO_COLOR"] = "1"
        let plain = try await ToolProcess.start(arguments, environment: noColor, terminals: [1]).finished()
        #expect(plain.status == 0)
        #expect(!plain.standardOutput.contains("\u{1B}"), "\(plain)")
        #expect(plain.standardOutput.contains("About Nicolas Flamel  To the well-organized mind"))

        let piped = try await ToolProcess.run(arguments, environment: account.environment)
        #expect(!piped.standardOutput.contains("\u{1B}"))
    }

    @Test func progressOnAStderrTerminalOnly() async throws {
        // 3,000 messages fetched in pages of 1,000, each page slowed down: more than a second.
        let account = try await MockAccount.start(
            demo: false, faults: [FaultRule(trigger: .command("UID FETCH"), fault: .delay(.milliseconds(700)))])
        defer { Task { await account.stop() } }
        for number in 1...3000 {
            let bytes = Array(
                "From: Sender \(number) <s\(number)@example.com>\r\nSubject: Message \(number)\r\n\r\nBody \(number)\r\n"
                    .utf8)
            try account.server.store.append(bytes, user: MockAccount.user, mailbox: "INBOX")
        }
        let arguments = account.tlsArguments + ["list", "--json", "--limit", "20000"]
        let terminal = try await ToolProcess.start(arguments, environment: account.environment, terminals: [2])
            .finished()
        #expect(terminal.status == 0, "\(terminal.standardError)")
        #expect(terminal.lines.count == 3000)
        #expect(terminal.standardError.contains("/3,000 messages"), "\(terminal.standardError.debugDescription)")
        #expect(terminal.standardError.hasSuffix("\r\u{1B}[K"), "the bar is erased at the end")

        let piped = try await ToolProcess.run(arguments, environment: account.environment)
        #expect(piped.status == 0)
        #expect(piped.lines.count == 3000)
        #expect(piped.standardError.isEmpty)
    }
}
