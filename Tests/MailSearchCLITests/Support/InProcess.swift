import Foundation
import MailSearchCLI

/// Finds the shared fixtures: `$MAILSEARCH_FIXTURES`, else `../shared/fixtures` beside the
/// package root.
enum Fixtures {
    static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["MAILSEARCH_FIXTURES"] {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }()

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The path of `name` under `dovecot-2.3/`.
    static func path(_ name: String) -> String {
        directory.appendingPathComponent("dovecot-2.3").appendingPathComponent(name).path
    }

    /// The bytes of `name` under `dovecot-2.3/`.
    static func dovecot(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }
}

/// What one run of the tool printed and returned.
struct ToolRun {
    var status: ExitCode
    var output: BufferOutput
    var errorOutput: BufferOutput

    var standardOutput: String { output.text }
    var standardError: String { errorOutput.text }
    var lines: [String] { output.lines }
}

/// Runs `arguments` through the same entry point as the executable, with output captured and
/// `standardInput` as the bytes of standard input.
func runTool(
    _ arguments: [String], standardInput: [UInt8] = [], chunkSize: Int = .max,
    tool: MailSearchTool = .standard(), environment: [String: String] = [:]
) async -> ToolRun {
    let output = BufferOutput()
    let errorOutput = BufferOutput()
    let context = CommandContext(
        standardOutput: output, standardError: errorOutput,
        standardInput: MemoryReader(standardInput, chunkSize: chunkSize), environment: environment)
    let status = await tool.main(arguments: arguments, context: context)
    return ToolRun(status: status, output: output, errorOutput: errorOutput)
}

/// A line of JSON as a dictionary (Foundation's parser, independent of ours).
func jsonObject(_ line: String) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
    guard let object = value as? [String: Any] else { throw JSONShapeError(line: line) }
    return object
}

struct JSONShapeError: Error {
    var line: String
}
