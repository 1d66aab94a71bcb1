import Foundation
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// A sync killed with SIGKILL, between two windows and at seeded random moments, resumes with
/// nothing lost and nothing twice, and SQLite's integrity check stays ok; two syncs at once
/// leave one good index.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct IndexCrashTests {
    static func run(_ arguments: [String], environment: [String: String]) async throws -> ToolResult {
        try await ToolProcess.run(arguments, environment: environment, timeout: .seconds(90))
    }

    static func indexPath(_ account: MockAccount) -> String {
        account.directory.appendingPathComponent(".cache/mailsearch/index-\(MockAccount.user)@127.0.0.1.sqlite").path
    }

    /// `PRAGMA integrity_check`, the message count and the distinct rowids, read by Python's
    /// sqlite3 (another reader of the file than the tool), which also checks that every message
    /// has its content, that the mailbox rows' counts are the messages', and that the FTS5 tables
    /// pass their own integrity check.
    static func inspect(_ path: String) async throws -> (integrity: String, messages: Int, distinct: Int) {
        let script = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            print(c.execute("PRAGMA integrity_check").fetchone()[0])
            print(c.execute("SELECT count(*) FROM message").fetchone()[0])
            print(c.execute("SELECT count(DISTINCT rowid) FROM message").fetchone()[0])
            content = c.execute("SELECT count(*) FROM message_content").fetchone()[0]
            assert content == c.execute("SELECT count(*) FROM message").fetchone()[0], "a message without content"
            counted = c.execute("SELECT coalesce(sum(message_count), 0) FROM mailbox").fetchone()[0]
            assert counted == content, f"the mailbox row counts {counted} messages, the table holds {content}"
            for table in ("message_address", "message_header", "message_body"):
                c.execute(f"INSERT INTO {table}({table}) VALUES('integrity-check')")
            """
        let output = try await TestProcess.run("/usr/bin/env", ["python3", "-c", script, path])
        let lines = output.split(separator: "\n").map(String.init)
        return (lines.first ?? "", Int(lines.dropFirst().first ?? "") ?? -1, Int(lines.dropFirst(2).first ?? "") ?? -1)
    }

    @Test func aKilledSyncResumesWithNothingLostOrTwice() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let (environment, arguments) = (account.environment, account.plainArguments)
        let path = Self.indexPath(account)
        let total = account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").count

        // Killed between windows: the second window's UID FETCH is held. A window is stored
        // while the next is fetched, so the first is committed while the second hangs (the
        // test waits for that commit, read by another process), and the second is never asked for.
        let hold = account.server.faults.add(.command("UID FETCH", occurrence: 2), .delay(.seconds(120)))
        let held = try ToolProcess.start(arguments + ["sync"], environment: environment)
        #expect(await account.server.faults.waitUntilFired(count: 1))
        var firstCommitted = false
        for _ in 0..<200 where !firstCommitted {
            if FileManager.default.fileExists(atPath: path) {
                firstCommitted = try await Self.inspect(path).messages == 250
            }
            if !firstCommitted { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(firstCommitted, "the first window was not committed while the second was fetched")
        held.send(SIGKILL)
        let killed = await held.finished()
        #expect(killed.status != 0, "\(killed)")
        _ = account.server.faults.remove(hold)
        let between = try await Self.inspect(path)
        #expect(between.integrity == "ok")
        #expect(between.messages == 250 && between.distinct == 250, "\(between)")

        // Killed at seeded random moments, anywhere in connecting, fetching or committing.
        var random = SeededGenerator(seed: 27)
        for _ in 0..<4 {
            let process = try ToolProcess.start(arguments + ["sync"], environment: environment)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...400, using: &random)))
            process.send(SIGKILL)
            _ = await process.finished()
            let state = try await Self.inspect(path)
            #expect(state.integrity == "ok", "\(state)")
            #expect(state.messages == state.distinct && state.messages >= 250 && state.messages <= total, "\(state)")
        }

        let resumed = try await Self.run(arguments + ["sync", "--json"], environment: environment)
        #expect(resumed.status == 0, "\(resumed)")
        let done = try await Self.inspect(path)
        #expect(done.integrity == "ok" && done.messages == total && done.distinct == total, "\(done)")
        for query in ["from:dumbledore", "is:unread", "potion OR quidditch"] {
            let server = try await Self.run(
                arguments + ["search", "--json", "--limit", "500", query], environment: environment)
            let offline = try await Self.run(
                arguments + ["search", "--offline", "--json", "--limit", "500", query], environment: environment)
            #expect(offline.standardOutput == server.standardOutput, "\(query)")
        }
    }

    @Test func twoSyncsAtOnceLeaveOneGoodIndex() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let (environment, arguments) = (account.environment, account.plainArguments)
        let path = Self.indexPath(account)
        let total = account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").count
        async let first = Self.run(arguments + ["sync"], environment: environment)
        async let second = Self.run(arguments + ["sync"], environment: environment)
        let results = try await [first, second]
        for result in results { #expect(result.status == 0 || result.status == 75, "\(result)") }
        #expect(results.contains { $0.status == 0 })
        let state = try await Self.inspect(path)
        #expect(state.integrity == "ok" && state.messages == total && state.distinct == total, "\(state)")
    }
}
