import Foundation
import Synchronization
import Transport

/// A tiny IMAP server that misbehaves on purpose, for what the mock server will not do: just
/// enough IMAP4rev1 to log in (LOGIN), select and search, then at the chosen point it sends
/// something no client should have to accept (to UID FETCH unless another command is named).
final class ScriptedServer: Sendable {
    /// What goes wrong.
    enum Misbehaviour: Sendable {
        /// Instead of a greeting, these bytes (then the connection stays open).
        case greeting([UInt8])
        /// To the command: a literal announced at a size no client should buffer, then bytes
        /// until the client hangs up.
        case enormousLiteral
        /// To the command: a line that never ends, until the client hangs up.
        case endlessLine
        /// To the command: bytes that are not IMAP.
        case notIMAP
        /// To the command: this text after the command's tag (`NO ...`, or `BYE ...` sent
        /// untagged), then the connection is closed.
        case answer(String)
    }

    let listener: NetworkListener
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    var port: Int { listener.port }

    init(_ misbehaviour: Misbehaviour, to misbehavingCommand: String = "UID FETCH") throws {
        listener = try NetworkListener(host: "127.0.0.1", port: 0, tls: nil)
        let connections = listener.connections
        let task = Task {
            await withDiscardingTaskGroup { group in
                for await connection in connections {
                    group.addTask { await Self.serve(connection, misbehaviour, to: misbehavingCommand) }
                }
            }
        }
        self.task.withLock { $0 = task }
    }

    func stop() {
        listener.stop()
        task.withLock { $0?.cancel() }
    }

    private static func serve(
        _ connection: NetworkConnection, _ misbehaviour: Misbehaviour, to misbehavingCommand: String
    ) async {
        defer { connection.close() }
        do {
            if case .greeting(let bytes) = misbehaviour {
                try await connection.write(bytes)
                // Keep the connection open until the client gives up.
                while !(try await connection.read(timeout: .seconds(60))).isEmpty {}
                return
            }
            try await connection.write(Array("* OK [CAPABILITY IMAP4rev1] scripted server ready\r\n".utf8))
            var buffer: [UInt8] = []
            while true {
                guard let end = buffer.firstRange(of: [13, 10]) else {
                    let bytes = try await connection.read(timeout: .seconds(60))
                    if bytes.isEmpty { return }
                    buffer += bytes
                    continue
                }
                let line = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard words.count >= 2 else { continue }
                let tag = words[0]
                var command = words[1].uppercased()
                if command == "UID", words.count > 2 {
                    command += " " + (words[2].split(separator: " ").first ?? "").uppercased()
                }
                if command == misbehavingCommand {
                    try await misbehave(misbehaviour, connection, tag: tag)
                    return
                }
                switch command {
                case "CAPABILITY":
                    try await connection.write(Array("* CAPABILITY IMAP4rev1\r\n\(tag) OK done\r\n".utf8))
                case "LOGIN":
                    try await connection.write(Array("\(tag) OK logged in\r\n".utf8))
                case "SELECT", "EXAMINE":
                    try await connection.write(
                        Array(
                            ("* 3 EXISTS\r\n* FLAGS (\\Seen \\Flagged)\r\n* OK [UIDVALIDITY 7] ok\r\n"
                                + "* OK [UIDNEXT 4] ok\r\n\(tag) OK [READ-WRITE] selected\r\n").utf8))
                case "UID SEARCH":
                    try await connection.write(Array("* SEARCH 1 2 3\r\n\(tag) OK searched\r\n".utf8))
                case "LOGOUT":
                    try await connection.write(Array("* BYE bye\r\n\(tag) OK done\r\n".utf8))
                    return
                default:
                    try await connection.write(Array("\(tag) OK done\r\n".utf8))
                }
            }
        } catch {
            return
        }
    }

    private static func misbehave(
        _ misbehaviour: Misbehaviour, _ connection: NetworkConnection, tag: String
    ) async throws {
        let filler = [UInt8](repeating: UInt8(ascii: "A"), count: 64 * 1024)
        switch misbehaviour {
        case .greeting: return
        case .enormousLiteral:
            try await connection.write(Array("* 1 FETCH (UID 1 BODY[] {99999999999}\r\n".utf8))
            for _ in 0..<4096 { try await connection.write(filler) }
        case .endlessLine:
            try await connection.write(Array("* 1 FETCH (UID 1 FLAGS (".utf8))
            for _ in 0..<4096 { try await connection.write(filler) }
        case .notIMAP:
            try await connection.write(
                Array("HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\n\r\n<html>nope</html>\r\n".utf8))
            _ = try? await connection.read(timeout: .seconds(30))
        case .answer(let text):
            try await connection.write(Array(text.replacingOccurrences(of: "TAG", with: tag).utf8))
        }
    }
}
