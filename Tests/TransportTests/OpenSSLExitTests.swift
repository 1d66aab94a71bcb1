import Foundation
import TestSupport
import Testing

/// A process that exits while its threads are still in OpenSSL ends cleanly: OpenSSL's `atexit`
/// clean-up, which freed its global state under those threads (a double free, "corrupted size
/// vs. prev_size", or a segmentation fault), is never registered.
@Suite(.timeLimit(.minutes(2)))
struct OpenSSLExitTests {
    /// `openssl-exit-probe`, built next to the test bundle.
    static var probe: String? {
        [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
        ]
        .map { $0.appendingPathComponent("openssl-exit-probe").path }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func exitingWhileThreadsUseOpenSSLDoesNotCrash() async throws {
        let probe = try #require(Self.probe, "openssl-exit-probe is not built next to the tests")
        // With the clean-up registered, most runs of the probe crash (88 of 100 for the same
        // pattern in C); 30 runs without one show it is gone.
        var failures: [String] = []
        for _ in 0..<30 {
            do {
                // A crash ends the probe at once instead of starting the backtracer, which could
                // not suspend the crashed process's threads and waited.
                _ = try await TestProcess.run(probe, [], environment: ["SWIFT_BACKTRACE": "enable=no"])
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 30 runs failed: \(failures.first ?? "")")
    }
}
