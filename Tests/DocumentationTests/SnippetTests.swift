import Foundation
import TestSupport
import Testing

/// The documentation cannot rot: every Swift block of README.md and docs/ compiles in a scratch
/// package outside the repository that depends on this one by path, as a user's package does;
/// the README's programs run against `mock-imap-server --demo`, and its test passes
/// (`scripts/check-snippets.py`, which says which Markdown line broke).
///
/// The first run builds the package again in the scratch package's own build folder (about a
/// minute on two cores); `MAILSEARCH_SKIP_SNIPPETS=1` leaves it out of a quick local run (shown
/// as skipped; CI never sets it).
@Suite(.hangGuard, .timeLimit(.minutes(20)))
struct SnippetTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `mock-imap-server`, built beside the test bundle.
    static var mockServer: String? {
        [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            packageRoot.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("mock-imap-server").path }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    @Test(.disabled(if: ProcessInfo.processInfo.environment["MAILSEARCH_SKIP_SNIPPETS"] == "1"))
    func everySwiftBlockOfTheREADMEAndDocsCompilesAndTheProgramsRun() async throws {
        let server = try #require(Self.mockServer, "mock-imap-server is not built beside the tests")
        let script = Self.packageRoot.appendingPathComponent("scripts/check-snippets.py").path
        let result = try await TestProcess.collect(
            "/usr/bin/python3", [script, "--mock-server", server], timeout: .seconds(18 * 60))
        #expect(
            result.status == 0,
            "scripts/check-snippets.py failed:\n\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("OK: "), "\(result.standardOutput)")
    }
}
