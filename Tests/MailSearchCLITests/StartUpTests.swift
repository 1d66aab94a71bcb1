import Foundation
import SystemLayer
import TestSupport
import Testing
import Transport

@testable import MailSearchCLI

/// What the tool does before a command's own work: the environment it reads, the threads its
/// blocking work runs on, and which commands start OpenSSL's set-up early.
@Suite(.hangGuard) struct StartUpTests {
    @Test func environmentIsReadAsFoundationReadsIt() {
        let ours = ProcessEnvironment.current()
        #expect(!ours.isEmpty)
        #expect(ours == ProcessInfo.processInfo.environment)
    }

    @Test func environmentEntriesAreSplitAtTheFirstEqualsSign() {
        let entries = ["A=a=b=c é", "EMPTY=", "NOEQUALS", "A=second", "=nameless", "B=2"]
        var list: [UnsafeMutablePointer<CChar>?] = entries.map { strdup($0) } + [nil]
        defer { list.forEach { free($0) } }
        let variables = list.withUnsafeMutableBufferPointer { ProcessEnvironment.variables($0.baseAddress!) }
        // The first of two same names wins, as with getenv(3); an entry without "=" is skipped.
        #expect(variables == ["A": "a=b=c é", "EMPTY": "", "": "nameless", "B": "2"])
    }

    @Test func blockingWorkReturnsAndThrowsFromItsThread() async throws {
        let value = try await BlockingWork.run { () throws(CommandFailure) -> Int in 41 + 1 }
        #expect(value == 42)
        await #expect(throws: CommandFailure("no")) {
            try await BlockingWork.run { () throws(CommandFailure) -> Int in throw CommandFailure("no") }
        }
    }

    /// Parsers recurse: the work gets the main thread's 8 MB, not the 512 KB of an I/O thread.
    @Test func blockingWorkHasRoomToRecurse() async throws {
        let levels = try await BlockingWork.run { () throws(CommandFailure) -> Int in
            // About 4 KB of stack a level: 1,000 levels need about 4 MB.
            func descend(_ level: Int) -> Int {
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4_000) { frame in
                    frame.initialize(repeating: UInt8(truncatingIfNeeded: level))
                    let below = level == 0 ? 0 : descend(level - 1)
                    return below + (frame[level % 4_000] == UInt8(truncatingIfNeeded: level) ? 1 : 0)
                }
            }
            return descend(1_000)
        }
        #expect(levels == 1_001)
    }

    /// Exactly the commands that open the account start OpenSSL's set-up as soon as they are
    /// parsed; explain, history and the rest never load it.
    @Test func connectingCommandsAreTheOnesThatOpenTheAccount() {
        var connecting: Set<String> = []
        for command in CommandRegistry.standard().commands where MailSearchTool.connects(command) {
            connecting.insert(command.configuration.name)
        }
        #expect(
            connecting == [
                "search", "list", "show", "read", "unread", "pin", "unpin", "watch", "mailboxes", "tui", "sync",
            ])
    }

    /// `search --offline` reads the index alone: it does not start OpenSSL's set-up.
    @Test func anOfflineSearchDoesNotConnect() throws {
        let options = SearchCommand.configuration.options
        let arguments = SearchCommand.configuration.arguments
        func parsed(_ words: [String]) throws -> SearchCommand {
            guard
                case .parsed(let parsed) = try ArgumentParser.parse(
                    words, options: options, arguments: arguments, commandName: "mailsearch search")
            else { throw UsageError("not parsed") }
            return try SearchCommand(parsing: parsed)
        }
        #expect(MailSearchTool.connects(try parsed(["from:tanaka"])))
        #expect(MailSearchTool.connects(try parsed(["--server", "from:tanaka"])))
        #expect(!MailSearchTool.connects(try parsed(["--offline", "from:tanaka"])))
    }

    @Test func everyWarmUpCallerIsAnswered() async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    OpenSSLLibrary.beginWarmUp()
                    await OpenSSLLibrary.warmUp()
                }
            }
        }
        // After it is done, a late caller returns at once.
        await OpenSSLLibrary.warmUp()
    }
}
