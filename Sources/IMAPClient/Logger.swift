import Synchronization

/// How much a log message matters.
public enum LogLevel: Int, Comparable, Sendable {
    case trace, debug, info, warning, error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where log messages go. Implementations must be thread-safe.
public protocol LogHandler: Sendable {
    /// Receives one message at or above the logger's level.
    func log(level: LogLevel, message: String, label: String)
}

/// A logger passed in through initializers; by default it drops everything.
///
/// Messages are autoclosures, so a disabled level costs nothing. The protocol trace it receives
/// (`C:`/`S:` lines) has LOGIN and AUTHENTICATE arguments replaced by `***` before it is built:
/// passwords and tokens never reach a handler.
public struct Logger: Sendable {
    public let label: String
    public let level: LogLevel
    private let handler: (any LogHandler)?

    /// A logger that writes nothing.
    public static let disabled = Logger(label: "", level: .error, handler: nil)

    public init(label: String, level: LogLevel = .info, handler: (any LogHandler)?) {
        self.label = label
        self.level = level
        self.handler = handler
    }

    /// Whether messages at `level` reach the handler.
    public func isEnabled(_ messageLevel: LogLevel) -> Bool { handler != nil && messageLevel >= level }

    public func log(_ messageLevel: LogLevel, _ message: @autoclosure () -> String) {
        guard let handler, messageLevel >= level else { return }
        handler.log(level: messageLevel, message: message(), label: label)
    }

    public func trace(_ message: @autoclosure () -> String) { log(.trace, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// A handler that keeps messages in memory (for tests and transcripts).
public final class MemoryLogHandler: LogHandler {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func log(level: LogLevel, message: String, label: String) {
        storage.withLock { $0.append(message) }
    }

    /// Every message so far.
    public var messages: [String] { storage.withLock { $0 } }
}
