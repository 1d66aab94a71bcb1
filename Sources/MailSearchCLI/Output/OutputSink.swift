#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes its output: standard output and standard error, or memory in tests.
public protocol OutputSink: AnyObject {
    /// Writes `bytes` completely.
    func write(_ bytes: [UInt8])
}

extension OutputSink {
    /// Writes the UTF-8 of `text`.
    public func write(_ text: String) { write(Array(text.utf8)) }
}

/// Writes to a file descriptor with write(2), unbuffered: callers write in large pieces.
public final class FileOutput: OutputSink {
    private let descriptor: Int32

    /// Writes to `descriptor`, which the caller keeps owning.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    public static func standardOutput() -> FileOutput { FileOutput(descriptor: STDOUT_FILENO) }
    public static func standardError() -> FileOutput { FileOutput(descriptor: STDERR_FILENO) }

    /// Whether the descriptor is a terminal.
    public var isTerminal: Bool { isatty(descriptor) == 1 }

    public func write(_ bytes: [UInt8]) {
        var written = 0
        while written < bytes.count {
            let descriptor = self.descriptor
            let result = try? systemCall("write") {
                bytes.withUnsafeBytes { raw in writeBytes(descriptor, raw.baseAddress! + written, raw.count - written) }
            }
            // A closed pipe or full disk: nothing useful can be done with the rest of the output.
            guard let result, result > 0 else { return }
            written += result
        }
    }
}

private func writeBytes(_ descriptor: Int32, _ start: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, start, count)
}

/// Collects output in memory (for tests and for callers that post-process it).
public final class BufferOutput: OutputSink {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public func write(_ bytes: [UInt8]) { self.bytes.append(contentsOf: bytes) }

    /// The output decoded as UTF-8.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The output split into lines (without their newlines; no empty last line).
    public var lines: [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
