import Foundation
import Testing

/// Runs the built `mailsearch` executable as a subprocess: exit codes and the split between
/// standard output and standard error as a shell sees them.
@Suite struct ExecutableTests {
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

    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    func run(_ arguments: [String], standardInput: String? = nil) throws -> Result {
        let process = Process()
        guard let executable = Self.executable else { throw SetupError("mailsearch is not built next to the tests") }
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let errorOutput = Pipe()
        process.standardOutput = output
        process.standardError = errorOutput
        if let standardInput {
            guard let handle = FileHandle(forReadingAtPath: standardInput) else {
                throw SetupError("cannot open \(standardInput)")
            }
            process.standardInput = handle
        } else {
            // A handle of its own: the shared FileHandle.nullDevice is suspected in Foundation crashes.
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        }
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errorOutput.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }

    @Test func parsesStandardInput() throws {
        let result = try run(["debug", "parse", "-"], standardInput: Fixtures.path("session.server.txt"))
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 132)
        #expect(lines.contains(#"{"kind":"exists","count":20001}"#))
    }

    @Test func malformedFileExitsOneWithTheOffset() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("malformed-\(UUID()).txt").path
        try Data("* OK hello\r\n* 12 FETCH (FLAGS (\\Seen) UID )\r\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try run(["debug", "parse", path])
        #expect(result.status == 1)
        #expect(result.standardOutput == #"{"kind":"condition","status":"OK","code":null,"text":"hello"}"# + "\n")
        #expect(result.standardError.hasPrefix("error: \(path): IMAP protocol error at byte 42: "))
    }

    @Test func usageErrorExits64() throws {
        let result = try run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("error: unknown command \"frobnicate\""))
    }

    @Test func helpExitsZero() throws {
        let result = try run(["help", "debug", "parse"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: mailsearch debug parse <file>"))
    }
}
