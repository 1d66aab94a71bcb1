import IMAPCore
import Transport

/// A tiny scripted IMAP server on loopback: it reads client lines and answers as `respond` says.
/// For the client behaviours no real server shows on demand (injected bytes, stalls, cut-off
/// literals).
final class ScriptedServer: Sendable {
    let listener: NetworkListener
    var port: Int { listener.port }

    /// `respond` gets each complete client line (without CRLF) and the connection, and writes
    /// whatever it wants. The greeting is written first.
    init(
        greeting: String = "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR IDLE] scripted ready\r\n",
        tls: ServerTLSConfiguration? = nil,
        respond: @escaping @Sendable (String, NetworkConnection) async -> Void
    ) throws {
        listener = try NetworkListener(host: "127.0.0.1", port: 0, tls: tls)
        let listener = self.listener
        Task {
            for await connection in listener.connections {
                Task {
                    try? await connection.write(Array(greeting.utf8))
                    var pending: [UInt8] = []
                    while let bytes = try? await connection.read() {
                        pending += bytes
                        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                            var line = Array(pending[..<newline])
                            pending.removeFirst(newline + 1)
                            if line.last == UInt8(ascii: "\r") { line.removeLast() }
                            await respond(String(decoding: line, as: UTF8.self), connection)
                        }
                    }
                }
            }
        }
    }

    func stop() { listener.stop() }

    /// The tag and the rest of a command line.
    static func split(_ line: String) -> (tag: String, command: String) {
        guard let space = line.firstIndex(of: " ") else { return (line, "") }
        return (String(line[..<space]), String(line[line.index(after: space)...]))
    }
}

extension NetworkConnection {
    func send(_ text: String) async { try? await write(Array(text.utf8)) }
}
