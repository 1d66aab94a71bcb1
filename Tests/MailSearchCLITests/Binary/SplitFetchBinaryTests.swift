import Foundation
import MockIMAPServer
import TestSupport
import Testing

/// A server that sends one message's data in two FETCH responses (RFC 3501 7.4.2): the full
/// answer, then a FLAGS-only FETCH before the tagged OK. `list` prints the message as it is,
/// with its new flags (it printed it with an empty sender, subject and date).
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct SplitFetchBinaryTests {
    @Test func aMessageWhoseFlagsCameInASecondFetchIsListedWhole() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let list = account.tlsArguments + ["--no-cache", "list", "--json", "--limit", "1000"]
        let plain = try await ToolProcess.run(list, environment: account.environment)
        #expect(plain.status == 0, "\(plain)")
        // The newest message, the first row of the list.
        let uids = account.server.store.uids(user: MockAccount.user, mailbox: "INBOX")
        let first = try #require(uids.last)
        _ = account.server.faults.add(
            .command("UID FETCH"), .inject([.line("* \(uids.count) FETCH (UID \(first) FLAGS (\\Seen \\Flagged))")]))
        let split = try await ToolProcess.run(list, environment: account.environment)
        #expect(split.status == 0, "\(split)")
        #expect(split.lines.count == plain.lines.count, "\(split)")
        func row(_ result: ToolResult) throws -> [String: Any] {
            let rows = try result.lines.map(jsonObject).filter { ($0["uid"] as? Int) == Int(first) }
            #expect(rows.count == 1, "\(result)")
            return try #require(rows.first)
        }
        let before = try row(plain)
        let after = try row(split)
        let subject = try #require(before["subject"] as? String)
        #expect(!subject.isEmpty)
        #expect(after["subject"] as? String == subject)
        #expect(after["date"] as? String == before["date"] as? String)
        #expect(
            (after["from"] as? [String: Any])?["address"] as? String == (before["from"] as? [String: Any])?["address"]
                as? String)
        #expect(after["pinned"] as? Bool == true)
        #expect(after["read"] as? Bool == true)
    }
}
