import Synchronization

/// One line of a session transcript.
public struct TranscriptLine: Hashable, Sendable, CustomStringConvertible {
    /// Who sent the line.
    public enum Direction: Hashable, Sendable {
        /// The client (`C:`).
        case client
        /// The server (`S:`).
        case server
    }

    /// Who sent it.
    public let direction: Direction
    /// The line without its CRLF; LOGIN and AUTHENTICATE arguments and SASL answers are `***`.
    public let text: String

    /// `C: text` or `S: text`.
    public var description: String { (direction == .client ? "C: " : "S: ") + text }
}

/// What a test can see of one session (connection).
public struct SessionInfo: Hashable, Sendable, Identifiable {
    /// A number unique within the server, in connection order from 1.
    public let id: Int
    /// The listener the connection came in on.
    public let listener: MockIMAPServer.Listener.Kind
    /// The logged-in user, once there is one.
    public let user: String?
    /// Whether the connection is still open.
    public let isOpen: Bool
    /// Client and server lines in order (empty when transcripts are off).
    public let transcript: [TranscriptLine]
    /// How many writes the server made to the connection (counted just before each write): a
    /// test hook for `Fault.fragment`.
    package let writeCount: Int
    /// How many bytes those writes carried.
    package let bytesWritten: Int

    /// The transcript as text, one `C:`/`S:` line each.
    public var transcriptText: String { transcript.map(\.description).joined(separator: "\n") }
}

/// The live record of a session, written by its driver, read by tests.
final class SessionRecord: Sendable {
    let id: Int
    let listener: MockIMAPServer.Listener.Kind
    let recordsTranscript: Bool

    private struct State {
        var user: String?
        var isOpen = true
        var lines: [TranscriptLine] = []
        var writeCount = 0
        var bytesWritten = 0
    }

    private let state = Mutex(State())

    /// Longest text kept for one line, and most lines kept for one message (literals can be
    /// megabytes).
    static let maximumLineLength = 2000
    static let maximumLinesPerMessage = 200
    /// Most lines kept for a session, so a client cannot make the server hold an unbounded
    /// transcript.
    static let maximumLines = 100_000

    init(id: Int, listener: MockIMAPServer.Listener.Kind, recordsTranscript: Bool) {
        self.id = id
        self.listener = listener
        self.recordsTranscript = recordsTranscript
    }

    /// Adds the lines of `bytes` (one client frame or one server response).
    func record(_ direction: TranscriptLine.Direction, _ bytes: [UInt8]) {
        guard recordsTranscript, !bytes.isEmpty else { return }
        var lines: [TranscriptLine] = []
        var start = 0
        var count = 0
        var index = 0
        while index <= bytes.count {
            if index == bytes.count || bytes[index] == UInt8(ascii: "\n") {
                var end = index
                if end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                if index < bytes.count || end > start {
                    count += 1
                    if count <= Self.maximumLinesPerMessage {
                        lines.append(TranscriptLine(direction: direction, text: Self.text(bytes[start..<end])))
                    }
                }
                start = index + 1
            }
            index += 1
        }
        if count > Self.maximumLinesPerMessage {
            lines.append(
                TranscriptLine(direction: direction, text: "... (\(count - Self.maximumLinesPerMessage) more lines)"))
        }
        append(lines)
    }

    private func append(_ lines: [TranscriptLine]) {
        state.withLock { state in
            guard state.lines.count < Self.maximumLines else { return }
            state.lines += lines.prefix(Self.maximumLines - state.lines.count)
            if state.lines.count == Self.maximumLines {
                state.lines.append(TranscriptLine(direction: .server, text: "... (transcript truncated)"))
            }
        }
    }

    /// Adds one line as it is.
    func record(_ direction: TranscriptLine.Direction, line: String) {
        guard recordsTranscript else { return }
        append([TranscriptLine(direction: direction, text: line)])
    }

    func loggedIn(_ user: String) { state.withLock { $0.user = user } }

    /// The driver is about to write `count` bytes.
    func writing(_ count: Int) {
        state.withLock { state in
            state.writeCount += 1
            state.bytesWritten += count
        }
    }

    func closed() { state.withLock { $0.isOpen = false } }

    var info: SessionInfo {
        state.withLock { state in
            SessionInfo(
                id: id, listener: listener, user: state.user, isOpen: state.isOpen, transcript: state.lines,
                writeCount: state.writeCount, bytesWritten: state.bytesWritten)
        }
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(maximumLineLength), as: UTF8.self)
        return bytes.count > maximumLineLength ? text + "... (\(bytes.count) bytes)" : text
    }
}
