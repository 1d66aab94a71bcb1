import IMAPCore
import JSONText

/// `mailsearch debug parse <file>`: parses raw server bytes (a capture, a fixture, or a pipe from
/// `openssl s_client`) and prints each response as one JSON line.
///
/// The bytes are fed to `ResponseParser` in 64 KiB chunks as they are read, exactly as a socket
/// would deliver them, so a file of any size is parsed in constant memory and the output shows
/// what a client would see.
public struct DebugParseCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        name: "debug parse",
        abstract: "Parse raw server bytes; print each response as one JSON line.",
        discussion: """
            Reads bytes exactly as an IMAP server sent them and prints one JSON object per
            response (JSON Lines). Every object has a "kind" (tagged, condition, capability,
            fetch, esearch, ...); FETCH objects have a key only for the items the server sent.
            A protocol error stops the parse with exit code 1 and names its byte offset; the
            responses before it have been printed.
            """,
        arguments: [fileArgument.definition])

    static let fileArgument = PositionalArgument("file", help: "A file of raw server bytes, or - for standard input.")

    /// How many bytes are read and handed to the parser at a time.
    public static let chunkSize = 64 * 1024

    /// The path, or `-` for standard input.
    public var file: String

    public init(file: String) { self.file = file }

    public init(parsing arguments: ParsedArguments) throws(UsageError) {
        file = try Self.fileArgument.read(from: arguments)
    }

    public func validate() throws(UsageError) {
        if file.isEmpty { throw UsageError("the file name is empty", hint: "pass a path, or - for standard input") }
    }

    public func run(context: CommandContext) throws(CommandFailure) {
        let reader: any ByteReader
        let displayName: String
        if file == "-" {
            reader = context.standardInput
            displayName = "<stdin>"
        } else {
            do {
                reader = try FileReader(path: file)
            } catch {
                throw CommandFailure(
                    "cannot read \(file): \(error.reason); check the path, or pass - to read standard input")
            }
            displayName = file
        }
        try Self.parse(reader, name: displayName, output: context.standardOutput)
    }

    /// Reads `reader` to its end, printing each response to `output` as a JSON line.
    ///
    /// - Parameter name: the input as messages name it.
    /// - Throws: `CommandFailure` (exit code 1) for a read error, a protocol error, or input that
    ///   ends inside a response; everything before it has been written.
    public static func parse(_ reader: any ByteReader, name: String, output: any OutputSink) throws(CommandFailure) {
        var parser = ResponseParser()
        var chunk: [UInt8] = []
        var lines: [UInt8] = []
        lines.reserveCapacity(2 * chunkSize)
        var bytesRead = 0
        defer { if !lines.isEmpty { output.write(lines) } }
        while true {
            let count: Int
            do {
                count = try reader.read(into: &chunk, maximumCount: chunkSize)
            } catch {
                throw CommandFailure(
                    bytesRead == 0
                        ? "cannot read \(name): \(error.reason)"
                        : "reading \(name) failed after \(bytesRead) bytes: \(error.reason)")
            }
            if count == 0 { break }
            bytesRead += count
            parser.append(chunk[0..<count])
            do {
                while let response = try parser.next() {
                    JSONWriter.write(.object(ResponseJSON.object(for: response)), into: &lines)
                    lines.append(UInt8(ascii: "\n"))
                    if lines.count >= chunkSize {
                        output.write(lines)
                        lines.removeAll(keepingCapacity: true)
                    }
                }
            } catch {
                throw CommandFailure("\(name): \(error.description)")
            }
        }
        let unfinished = parser.bufferedByteCount
        if unfinished > 0 {
            throw CommandFailure(
                "\(name): the input ends in the middle of a response that starts at byte \(bytesRead - unfinished) "
                    + "(only \(unfinished) bytes of it arrived; was the capture cut short?)")
        }
    }
}
