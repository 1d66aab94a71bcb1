import Foundation

/// The `test-probe` executable (Tests/Support/TestProbe), built next to the test bundle: it runs
/// situations that cannot be set up inside the test process without harming the tests beside
/// it (a process exiting while its threads are in OpenSSL).
public enum TestProbe {
    /// Its path, or nil when it is not built.
    public static var path: String? {
        [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
        ]
        .map { $0.appendingPathComponent("test-probe").path }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `test-probe <name>` to its end; its standard output, or an error when it failed
    /// (with its exit status or signal). A crash ends it at once: the Swift backtracer, which
    /// waited for threads it could not suspend, is off.
    public static func run(_ name: String) async throws -> String {
        guard let path else { throw TestProcessError("test-probe is not built next to the tests") }
        return try await TestProcess.run(path, [name], environment: ["SWIFT_BACKTRACE": "enable=no"])
    }
}
