import Foundation
import TestSupport
import Testing

/// Runs the built `mailsearch` executable as a subprocess: exit codes and the split between
/// standard output and standard error as a shell sees them.
@Suite(.hangGuard) struct ExecutableTests {
    /// The executable sits next to the test bundle in the build products directory.
    static var executable: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Fixtures.packageRoot.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("mailsearch") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    struct SetupError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func run(_ arguments: [String], standardInput: String? = nil) async throws -> TestProcess.Result {
        guard let executable = Self.executable else { throw SetupError("mailsearch is not built next to the tests") }
        if let standardInput, !FileManager.default.isReadableFile(atPath: standardInput) {
            throw SetupError("cannot open \(standardInput)")
        }
        return try await TestProcess.collect(
            executable.path, arguments, standardInput: standardInput, timeout: .seconds(90))
    }

    @Test func parsesStandardInput() async throws {
        let result = try await run(["debug", "parse", "-"], standardInput: Fixtures.path("session.server.txt"))
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 132)
        #expect(lines.contains(#"{"kind":"exists","count":20001}"#))
    }

    @Test func malformedFileExitsOneWithTheOffset() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("malformed-\(UUID()).txt").path
        try Data("* OK hello\r\n* 12 FETCH (FLAGS (\\Seen) UID )\r\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await run(["debug", "parse", path])
        #expect(result.status == 1)
        #expect(result.standardOutput == #"{"kind":"condition","status":"OK","code":null,"text":"hello"}"# + "\n")
        #expect(result.standardError.hasPrefix("error: \(path): IMAP protocol error at byte 42: "))
    }

    @Test func usageErrorExits64() async throws {
        let result = try await run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("error: unknown command \"frobnicate\""))
    }

    @Test func helpExitsZero() async throws {
        let result = try await run(["help", "debug", "parse"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: mailsearch debug parse <file>"))
    }

    /// The tool links FoundationEssentials, not the whole of Foundation: the rest (ICU and its
    /// data, about 35,000 more relocations) cost every start about 2 ms. One `import Foundation`
    /// in a module the tool uses would bring it back; `ldd` on the (dynamically linked) debug
    /// build shows which libraries it loads.
    @Test func linksFoundationEssentialsOnly() async throws {
        guard let executable = Self.executable else { throw SetupError("mailsearch is not built next to the tests") }
        let result = try await TestProcess.collect("/usr/bin/ldd", [executable.path], timeout: .seconds(30))
        #expect(result.status == 0, "\(result)")
        let libraries = result.standardOutput.split(separator: "\n").compactMap {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first
        }
        if libraries.contains("libFoundationEssentials.so") {
            #expect(!libraries.contains("libFoundation.so"), "\(result.standardOutput)")
            #expect(!libraries.contains("libFoundationInternationalization.so"), "\(result.standardOutput)")
            #expect(!libraries.contains("lib_FoundationICU.so"), "\(result.standardOutput)")
        } else {
            // Statically linked (a release build with --static-swift-stdlib): by its symbols.
            let symbols = try await TestProcess.collect("/usr/bin/nm", [executable.path], timeout: .seconds(60))
            #expect(!symbols.standardOutput.contains("FoundationInternationalization"))
        }
    }

    /// OpenSSL is loaded when a process first needs TLS (COpenSSLLoader), not at exec: libssl and
    /// libcrypto cost every start about a millisecond, and an offline search, help or explain
    /// never use them. A direct call to an OpenSSL function would link them again.
    @Test func doesNotLoadOpenSSLAtStart() async throws {
        guard let executable = Self.executable else { throw SetupError("mailsearch is not built next to the tests") }
        let result = try await TestProcess.collect("/usr/bin/ldd", [executable.path], timeout: .seconds(30))
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("libsqlite3"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("libssl"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("libcrypto"), "\(result.standardOutput)")
    }
}
