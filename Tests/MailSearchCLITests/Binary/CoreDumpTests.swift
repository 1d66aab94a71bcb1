import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The process that holds the password (`watch` and the terminal screen hold it for hours)
/// cannot write it to disk in a core file.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct CoreDumpTests {
    /// No core file at any size (`RLIMIT_CORE` 0, soft and hard), and the process not dumpable:
    /// the kernel then shows its /proc files as root's, whoever runs it. As root the test runs
    /// the tool as nobody, from a copy nobody can reach, so that the two owners differ.
    @Test func theProcessHoldingThePasswordCannotDumpCore() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        var launcher: [String] = []
        var copy: URL?
        if geteuid() == 0 {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-\(UUID())")
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            let tool = directory.appendingPathComponent("mailsearch")
            try FileManager.default.copyItem(atPath: try ToolProcess.executable, toPath: tool.path)
            copy = tool
            launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", tool.path]
        }
        defer { if let copy { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) } }
        let watch = try ToolProcess.start(
            account.plainArguments + ["--no-cache", "watch"], environment: account.environment,
            launcher: launcher)
        let watching = await watch.waitForLine { $0.hasPrefix("Watching INBOX") }
        let limits = try String(contentsOfFile: "/proc/\(watch.pid)/limits", encoding: .utf8)
        let status = try String(contentsOfFile: "/proc/\(watch.pid)/status", encoding: .utf8)
        let owner = try #require(
            try FileManager.default.attributesOfItem(atPath: "/proc/\(watch.pid)/status")[.ownerAccountID] as? Int)
        watch.send(SIGINT)
        let result = await watch.finished()
        #expect(watching != nil, "\(result)")
        #expect(result.status == 0, "\(result)")

        let core = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        let coreLimits = core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2)
        #expect(coreLimits == ["0", "0"], "\(core)")
        let uid = try #require(status.split(separator: "\n").first { $0.hasPrefix("Uid:") })
        #expect(!uid.split(separator: "\t").dropFirst().contains("0"), "the tool ran as root: \(uid)")
        #expect(owner == 0, "the tool is dumpable: its /proc files belong to uid \(owner)")
    }
}
