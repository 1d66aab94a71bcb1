import Synchronization
import SystemLayer

/// Where a command writes its output: standard output and standard error, or memory in tests.
public protocol OutputSink: AnyObject, Sendable {
    /// Writes `bytes` completely.
    func write(_ bytes: [UInt8])
    /// Whether a person reads it on a terminal (rows get colours, progress is shown).
    var isTerminal: Bool { get }
    /// The terminal's width in columns, when it is one and says.
    var terminalWidth: Int? { get }
}

extension OutputSink {
    /// Writes the UTF-8 of `text`.
    public func write(_ text: String) { write(Array(text.utf8)) }

    public var isTerminal: Bool { false }
    public var terminalWidth: Int? { nil }
}

/// Writes to a file descriptor with write(2), unbuffered: callers write in large pieces.
public final class FileOutput: OutputSink {
    private let descriptor: Int32

    /// Writes to `descriptor`, which the caller keeps owning.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    public static func standardOutput() -> FileOutput { FileOutput(descriptor: StandardDescriptor.output) }
    public static func standardError() -> FileOutput { FileOutput(descriptor: StandardDescriptor.error) }

    /// Whether the descriptor is a terminal.
    public var isTerminal: Bool { SystemLayer.isTerminal(descriptor) }

    /// The terminal's width (TIOCGWINSZ), when it is one.
    public var terminalWidth: Int? { terminalColumns(descriptor) }

    public func write(_ bytes: [UInt8]) {
        var written = 0
        while written < bytes.count {
            do throws(SystemCallError) {
                written += try writeSome(descriptor, bytes[written...])
            } catch {
                // A closed pipe or full disk: nothing useful can be done with the rest of the output.
                return
            }
        }
    }
}

/// Collects output in memory (for tests and for callers that post-process it).
public final class BufferOutput: OutputSink {
    private let storage = Mutex<[UInt8]>([])

    /// Everything written so far.
    public var bytes: [UInt8] { storage.withLock { $0 } }

    public init() {}

    public func write(_ bytes: [UInt8]) { storage.withLock { $0.append(contentsOf: bytes) } }

    /// The output decoded as UTF-8.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The output split into lines (without their newlines; no empty last line).
    public var lines: [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
