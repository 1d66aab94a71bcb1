import Foundation
import IMAPClient
import IMAPCore
import MockIMAPServer
import Testing
import Transport

/// Tests run in parallel with everything else on a shared machine: waits are generous, so a
/// slow moment is not a failure (a hang still is).
///
/// A server for one test, on free loopback ports, with alice (password and token) and bob.
func startServer(
    profile: Profile = .full, allowPlainText: Bool = false, loginTimeout: Duration = .seconds(60),
    limits: ParserOptions = ParserOptions(maximumLineLength: 64 * 1024, maximumLiteralSize: 1 << 20),
    maximumConnections: Int = 100
) async throws -> MockIMAPServer {
    try await MockIMAPServer.start(
        .init(
            listeners: [.plain(), .implicitTLS()], tls: .selfSigned(hosts: ["localhost", "127.0.0.1"]),
            profile: profile,
            users: [
                .init("alice", password: "secret", oauth2Token: "ya29.alice-token"), .init("bob", password: "hunter2"),
            ],
            allowPlainTextAuthentication: allowPlainText, loginTimeout: loginTimeout, limits: limits,
            maximumConnections: maximumConnections))
}

extension MockIMAPServer {
    /// A client configuration for this server.
    func clientConfiguration(implicitTLS: Bool = true) -> IMAPConfiguration {
        let tls = ClientTLSConfiguration(additionalTrustPEM: certificatePEM, usesSystemTrustStore: false)
        return IMAPConfiguration(
            host: "localhost", port: port(for: implicitTLS ? .implicitTLS : .plain),
            security: implicitTLS ? .implicitTLS(tls) : .startTLS(tls),
            timeouts: .init(connect: .seconds(30), tlsHandshake: .seconds(30), commandInactivity: .seconds(60)))
    }

    /// A logged-in IMAPClient session, INBOX selected.
    func session(user: String = "alice", password: String = "secret") async throws -> IMAPSession {
        let session = try await IMAPSession.connect(clientConfiguration())
        try await session.login(.password(user: user, password: password))
        try await session.select("INBOX")
        return session
    }

    /// A raw line client on the plain or TLS port.
    func rawClient(tls: Bool = true) async throws -> RawClient {
        let connection: NetworkConnection
        if tls {
            connection = try await NetworkConnection.connect(
                host: "127.0.0.1", port: port(for: .implicitTLS)!,
                security: .tls(ClientTLSConfiguration(additionalTrustPEM: certificatePEM, usesSystemTrustStore: false)))
        } else {
            connection = try await NetworkConnection.connect(
                host: "127.0.0.1", port: port(for: .plain)!, security: .plainText)
        }
        let client = RawClient(connection: connection)
        _ = try await client.readLine()  // greeting
        return client
    }
}

/// Speaks IMAP by hand: sends lines, reads lines (literals included as raw text).
final class RawClient: @unchecked Sendable {
    // Used by one test task at a time.
    let connection: NetworkConnection
    private var buffer: [UInt8] = []

    init(connection: NetworkConnection) { self.connection = connection }

    /// Whether any byte arrived that the test has not read (buffered here, or read from the
    /// socket by the connection and not yet handed over).
    var hasReceivedBytes: Bool { !buffer.isEmpty || connection.unreadByteCount > 0 }

    func send(_ text: String) async throws {
        try await connection.write(Array(text.utf8))
    }

    func sendBytes(_ bytes: [UInt8]) async throws {
        try await connection.write(bytes)
    }

    /// The next line without CRLF.
    func readLine(timeout: Duration = .seconds(60)) async throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            buffer += try await connection.read(timeout: timeout)
        }
    }

    /// Sends `tag command` and returns every line up to and including the tagged response.
    @discardableResult
    func command(_ tag: String, _ command: String) async throws -> [String] {
        try await send("\(tag) \(command)\r\n")
        return try await lines(until: tag)
    }

    /// Lines up to and including the one tagged `tag`.
    func lines(until tag: String) async throws -> [String] {
        var lines: [String] = []
        while true {
            let line = try await readLine()
            lines.append(line)
            if line.hasPrefix(tag + " ") { return lines }
        }
    }

    /// The bytes of the next response, with its literals.
    func readFrame(timeout: Duration = .seconds(60)) async throws -> [UInt8] {
        var frame: [UInt8] = []
        while true {
            while buffer.firstIndex(of: UInt8(ascii: "\n")) == nil {
                buffer += try await connection.read(timeout: timeout)
            }
            let newline = buffer.firstIndex(of: UInt8(ascii: "\n"))!
            let line = Array(buffer[...newline])
            buffer.removeFirst(newline + 1)
            frame += line
            // A line ending in {n} is followed by n bytes of literal.
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasSuffix("}"), let open = text.lastIndex(of: "{"),
                let size = Int(text[text.index(after: open)..<text.index(before: text.endIndex)])
            else { return frame }
            while buffer.count < size { buffer += try await connection.read(timeout: timeout) }
            frame += buffer.prefix(size)
            buffer.removeFirst(size)
        }
    }

    /// Sends `tag command` and parses every response up to the tagged one.
    func responses(_ tag: String, _ command: String) async throws -> [Response] {
        try await send("\(tag) \(command)\r\n")
        var responses: [Response] = []
        while true {
            let response = try ResponseParser.parseAll(try await readFrame())
            responses += response
            if case .tagged(let tagged)? = response.last, tagged.tag == tag { return responses }
        }
    }

    /// The FETCH responses of a command, and its tagged response.
    func fetch(_ tag: String, _ command: String) async throws -> (fetches: [FetchResponse], tagged: TaggedResponse?) {
        let all = try await responses(tag, command)
        var fetches: [FetchResponse] = []
        var tagged: TaggedResponse?
        for response in all {
            if case .untagged(.fetch(let fetch)) = response { fetches.append(fetch) }
            if case .tagged(let value) = response { tagged = value }
        }
        return (fetches, tagged)
    }

    /// Logs in as alice.
    func login(_ user: String = "alice", _ password: String = "secret") async throws {
        let lines = try await command("l1", "LOGIN \(user) \(password)")
        #expect(lines.last?.hasPrefix("l1 OK") == true, "\(lines)")
    }

    func close() { connection.close() }
}

extension Array where Element == String {
    /// The tagged line.
    var tagged: String { last ?? "" }
}

/// A message with the given fields, CRLF line ends.
func message(
    from: String = "Grace Jones <grace@apple.com>", to: String = "Alice <alice@example.com>",
    subject: String = "Hello", date: String = "Tue, 05 Mar 2024 14:05:00 +0000", body: String = "Hello there.",
    extraHeaders: String = ""
) -> [UInt8] {
    Array(
        ("From: \(from)\r\nTo: \(to)\r\nSubject: \(subject)\r\nDate: \(date)\r\nMessage-ID: <\(UUID())@example.com>\r\n"
            + extraHeaders + "\r\n\(body)\r\n").utf8)
}
