import Foundation
import IMAPClient
import IMAPCore
import Synchronization
import TestSupport
import Testing
import Transport

/// The built `mailsearch` against a real Dovecot (scripts/dovecot.sh) with 60 generated
/// messages for `erin`: commands, exit codes, flags read back over another connection, and
/// `watch`. Skipped, with this message, only where Dovecot is not installed and
/// `MAILSEARCH_REQUIRE_DOVECOT` is not 1; CI requires it.
@Suite(
    .hangGuard,
    .enabled("Dovecot is not installed (apt-get install dovecot-imapd)") { try DovecotProcess.isAvailable() },
    .timeLimit(.minutes(3)), .serialized)
struct DovecotCommandTests {
    static let messageCount = 60
    static let user = "erin"
    private static let starter = Mutex<Task<DovecotProcess, any Error>?>(nil)
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "mailsearch-cli-dovecot-\(UUID())")

    static func dovecot() async throws -> DovecotProcess {
        let task = starter.withLock { task -> Task<DovecotProcess, any Error> in
            if let task { return task }
            let started = Task { () async throws -> DovecotProcess in
                let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-cli-\(UUID())")
                defer { try? FileManager.default.removeItem(at: work) }
                let maildir = work.appendingPathComponent(user).path
                _ = try await TestProcess.run(
                    "/usr/bin/env",
                    [
                        "python3", DovecotProcess.script("generate-maildir.py"), "--out", maildir, "--count",
                        "\(messageCount)", "--seed", "9",
                    ])
                let dovecot = try await DovecotProcess.start([
                    "--users", "\(user):\(DovecotProcess.password)", "--maildir-from", "\(user)=\(maildir)",
                ])
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try Data(dovecot.certificatePEM).write(to: directory.appendingPathComponent("dovecot.pem"))
                return dovecot
            }
            task = started
            return started
        }
        return try await task.value
    }

    static var certificatePath: String { directory.appendingPathComponent("dovecot.pem").path }

    static func arguments(_ dovecot: DovecotProcess, starttls: Bool = false) -> [String] {
        [
            "--host", "localhost", "--port", "\(starttls ? dovecot.imapPort : dovecot.imapsPort)", "--user", user,
            "--ca-file", certificatePath,
        ] + (starttls ? ["--tls", "starttls"] : [])
    }

    static var environment: [String: String] {
        ToolEnvironment.make(directory.appendingPathComponent("home"), password: DovecotProcess.password)
    }

    static func configuration(_ dovecot: DovecotProcess) -> IMAPConfiguration {
        IMAPConfiguration(
            host: "localhost", port: dovecot.imapsPort,
            security: .implicitTLS(ClientTLSConfiguration(additionalTrustPEM: dovecot.certificatePEM)))
    }

    /// Flags of `uids`, read over an independent connection (EXAMINE).
    static func flagsReadBack(_ dovecot: DovecotProcess, _ uids: [UInt32]) async throws -> [UInt32: Set<Flag>] {
        let session = try await IMAPSession.connect(configuration(dovecot))
        try await session.login(.password(user: user, password: DovecotProcess.password))
        try await session.select("INBOX", readOnly: true)
        var flags: [UInt32: Set<Flag>] = [:]
        for try await message in session.fetch(SequenceSet(numbers: uids), items: [.uid, .flags]) {
            if let uid = message.uid { flags[uid] = Set(message.flags ?? []).subtracting([.recent]) }
        }
        await session.logout()
        return flags
    }

    @Test func listAndSearchOverImplicitTLSAndSTARTTLS() async throws {
        let dovecot = try await Self.dovecot()
        let before = try await Self.flagsReadBack(dovecot, Array(1...UInt32(Self.messageCount)))
        let all = try await ToolProcess.run(
            Self.arguments(dovecot) + ["list", "--json", "--limit", "1000"], environment: Self.environment)
        #expect(all.status == 0, "\(all)")
        #expect(all.lines.count == Self.messageCount)
        for line in all.lines { #expect(topLevelKeys(line) == emailKeys) }
        let objects = try all.lines.map(jsonObject)
        let first = try #require(objects.last)
        let from = try #require(first["from"] as? [String: Any])
        let address = try #require(from["address"] as? String)
        let expected = objects.filter { ($0["from"] as? [String: Any])?["address"] as? String == address }

        for starttls in [false, true] {
            let found = try await ToolProcess.run(
                Self.arguments(dovecot, starttls: starttls) + ["search", "--json", "from:\(address)"],
                environment: Self.environment)
            #expect(found.status == 0, "\(found)")
            #expect(found.lines.count == expected.count, "\(found)")
            let uids = try found.lines.map { try jsonObject($0)["uid"] as? Int ?? 0 }
            #expect(uids == uids.sorted(by: >))
            let rows = try await ToolProcess.run(
                Self.arguments(dovecot, starttls: starttls) + ["search", "from:\(address)"],
                environment: Self.environment)
            #expect(rows.lines.count == expected.count)
            #expect(rows.lines.allSatisfy { $0.contains("  ") && !$0.contains("\u{1B}") })
        }
        // Listing and searching changed no flag.
        #expect(try await Self.flagsReadBack(dovecot, Array(1...UInt32(Self.messageCount))) == before)
    }

    @Test func theMessageCacheFetchesFlagsOnlyAndPrintsWhatDovecotHasNow() async throws {
        let dovecot = try await Self.dovecot()
        // A home of its own: the cache starts empty.
        let environment = ToolEnvironment.make(
            Self.directory.appendingPathComponent("cache-home-\(UUID())"), password: DovecotProcess.password)
        let list = Self.arguments(dovecot) + ["--debug", "list", "--json", "--limit", "1000"]
        let first = try await ToolProcess.run(list, environment: environment)
        #expect(first.status == 0 && first.lines.count == Self.messageCount, "\(first)")
        #expect(first.standardError.contains("ENVELOPE"))
        let uid = UInt32(try #require(jsonObject(first.lines[5])["uid"] as? Int))
        let original = try await Self.flagsReadBack(dovecot, [uid])
        let base = Self.arguments(dovecot)
        let change = original[uid]?.contains(.flagged) == true ? "unpin" : "pin"
        #expect(try await ToolProcess.run(base + [change, "\(uid)"], environment: environment).status == 0)
        let second = try await ToolProcess.run(list, environment: environment)
        let uncached = try await ToolProcess.run(
            base + ["--no-cache", "list", "--json", "--limit", "1000"], environment: environment)
        #expect(
            try await ToolProcess.run(base + [change == "pin" ? "unpin" : "pin", "\(uid)"], environment: environment)
                .status == 0)
        #expect(try await Self.flagsReadBack(dovecot, [uid]) == original)
        #expect(second.status == 0 && uncached.status == 0, "\(second) \(uncached)")
        let fetches = second.standardError.split(separator: "\n").filter { $0.contains(" UID FETCH ") }
        #expect(fetches.count == 1 && fetches[0].hasSuffix(" UID FETCH 1:60 (UID FLAGS MODSEQ)\\r\\n"), "\(fetches)")
        #expect(second.lines == uncached.lines)
        #expect(second.lines != first.lines)
        let changed = try second.lines.map(jsonObject).first { $0["uid"] as? Int == Int(uid) }
        #expect(changed?["pinned"] as? Bool == (change == "pin"))
    }

    @Test func readUnreadPinUnpinReadBack() async throws {
        let dovecot = try await Self.dovecot()
        let uids: [UInt32] = [21, 22, 23]
        let original = try await Self.flagsReadBack(dovecot, uids)
        let base = Self.arguments(dovecot)
        #expect(try await ToolProcess.run(base + ["unread", "21:23"], environment: Self.environment).status == 0)
        #expect(try await Self.flagsReadBack(dovecot, uids).values.allSatisfy { !$0.contains(.seen) })
        let read = try await ToolProcess.run(base + ["read", "21", "23"], environment: Self.environment)
        #expect(read.standardOutput == "Marked 2 messages read: 21,23\n", "\(read)")
        var flags = try await Self.flagsReadBack(dovecot, uids)
        #expect(
            flags[21]?.contains(.seen) == true && flags[22]?.contains(.seen) == false
                && flags[23]?.contains(.seen) == true)
        #expect(try await ToolProcess.run(base + ["pin", "22"], environment: Self.environment).status == 0)
        flags = try await Self.flagsReadBack(dovecot, uids)
        #expect(flags[22]?.contains(.flagged) == true)
        let pinned = try await ToolProcess.run(
            base + ["search", "--json", "is:pinned", "uid:22"], environment: Self.environment)
        #expect(pinned.lines.count == 1)
        #expect(try await ToolProcess.run(base + ["unpin", "22"], environment: Self.environment).status == 0)
        flags = try await Self.flagsReadBack(dovecot, uids)
        #expect(flags[22]?.contains(.flagged) == false)
        // Put them back.
        for uid in uids {
            let wasRead = original[uid]?.contains(.seen) == true
            _ = try await ToolProcess.run(
                base + [wasRead ? "read" : "unread", "\(uid)"], environment: Self.environment)
            if original[uid]?.contains(.flagged) == true {
                _ = try await ToolProcess.run(base + ["pin", "\(uid)"], environment: Self.environment)
            }
        }
        #expect(try await Self.flagsReadBack(dovecot, uids) == original)
    }

    @Test func showDoesNotMarkRead() async throws {
        let dovecot = try await Self.dovecot()
        let base = Self.arguments(dovecot)
        _ = try await ToolProcess.run(base + ["unread", "30"], environment: Self.environment)
        let shown = try await ToolProcess.run(base + ["show", "30"], environment: Self.environment)
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.lines.contains { $0.hasPrefix("From: ") })
        #expect(shown.lines.contains { $0.hasPrefix("Subject: ") })
        #expect(try await Self.flagsReadBack(dovecot, [30])[30]?.contains(.seen) == false)
    }

    @Test func exitCodes() async throws {
        let dovecot = try await Self.dovecot()
        var wrong = Self.environment
        wrong["MAILSEARCH_PASSWORD"] = "not-it"
        let refused = try await ToolProcess.run(Self.arguments(dovecot) + ["list"], environment: wrong)
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.errorLines.count == 1)
        let untrusted = try await ToolProcess.run(
            ["--host", "localhost", "--port", "\(dovecot.imapsPort)", "--user", Self.user, "list"],
            environment: Self.environment)
        #expect(untrusted.status == 69, "\(untrusted)")
        #expect(untrusted.errorLines.count == 1)
        #expect(untrusted.standardError.contains("is not trusted"))
        let missing = try await ToolProcess.run(
            Self.arguments(dovecot) + ["--mailbox", "Nope", "list"], environment: Self.environment)
        #expect(missing.status == 75, "\(missing)")
        #expect(missing.errorLines.count == 1)
        let badQuery = try await ToolProcess.run(
            Self.arguments(dovecot) + ["search", "(a"], environment: Self.environment)
        #expect(badQuery.status == 65)
        let usage = try await ToolProcess.run(
            Self.arguments(dovecot) + ["list", "--limit"], environment: Self.environment)
        #expect(usage.status == 64)
        let mailboxes = try await ToolProcess.run(
            Self.arguments(dovecot) + ["mailboxes"], environment: Self.environment)
        #expect(mailboxes.status == 0, "\(mailboxes)")
        #expect(mailboxes.lines.contains { $0.hasPrefix("INBOX") && $0.contains("\(Self.messageCount) messages") })
    }

    @Test func watchSeesAChangeMadeByAnotherConnection() async throws {
        let dovecot = try await Self.dovecot()
        let base = Self.arguments(dovecot)
        _ = try await ToolProcess.run(base + ["unread", "40"], environment: Self.environment)
        let watch = try ToolProcess.start(base + ["watch"], environment: Self.environment)
        #expect(await watch.waitForLine { $0.hasPrefix("Watching INBOX on localhost") } != nil, "\(watch.outputLines)")
        let session = try await IMAPSession.connect(Self.configuration(dovecot))
        try await session.login(.password(user: Self.user, password: DovecotProcess.password))
        try await session.select("INBOX")
        try await session.store(SequenceSet(numbers: [40]), .add, [.seen])
        await session.logout()
        let changed = await watch.waitForLine { $0.hasPrefix("changed: UID 40 is read") }
        #expect(changed != nil, "\(watch.outputLines)")
        watch.send(SIGINT)
        let result = await watch.finished()
        #expect(result.status == 0, "\(result)")
        #expect(result.standardError.isEmpty)
    }
}
