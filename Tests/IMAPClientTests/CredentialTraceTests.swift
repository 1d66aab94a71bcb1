import IMAPClient
import IMAPCore
import Synchronization
import TestSupport
import Testing
import Transport

/// The `--debug` trace never shows a credential, whatever chunks a command is written in: a
/// LOGIN whose password (or user name) is a literal is written as a line and then the literal's
/// bytes on their own, and each of them is hidden.
@Suite(.hangGuard, .timeLimit(.minutes(1))) struct CredentialTraceTests {
    /// The lines a server read, and the command whose literals it is reading.
    final class Lines: Sendable {
        private let storage = Mutex<(lines: [String], literalCommand: String?)>(([], nil))
        /// Keeps `line`; returns the verb and tag of the command it ends, or nil while the
        /// command goes on (it ends with a literal's announcement).
        func append(_ line: String) -> (tag: String, verb: String)? {
            storage.withLock { state in
                state.lines.append(line)
                let first = state.literalCommand ?? line
                state.literalCommand = line.hasSuffix("}") ? first : nil
                guard state.literalCommand == nil else { return nil }
                let (tag, command) = ScriptedServer.split(first)
                return (tag, command.split(separator: " ").first.map { $0.uppercased() } ?? "")
            }
        }
        var all: [String] { storage.withLock { $0.lines } }
    }

    /// A LOGIN-only server (no AUTH=PLAIN, so the session must send LOGIN), that asks for each
    /// literal with `+` and accepts any login. It keeps every line it read.
    static func loginOnlyServer(lines: Lines) throws -> ScriptedServer {
        try ScriptedServer(greeting: "* OK [CAPABILITY IMAP4rev1] login only\r\n") { line, connection in
            guard let (tag, verb) = lines.append(line) else {
                await connection.send("+ go on\r\n")
                return
            }
            guard ["LOGIN", "NOOP", "LOGOUT", "CAPABILITY", "ID", "ENABLE"].contains(verb) else { return }
            if verb == "LOGOUT" { await connection.send("* BYE bye\r\n") }
            await connection.send("\(tag) OK \(verb) done\r\n")
        }
    }

    static let credentials: [(user: String, password: String)] = [
        ("alice", "pässwörd-SECRET"),
        ("alice", "a long passphrase with spaces SECRET"),
        ("ålice-SECRET", "plain"),
        ("alice", "quote\"and\\backslash SECRET"),
    ]

    @Test(arguments: 0..<credentials.count) func aLoginWrittenAsLiteralsShowsNoneOfItsChunks(index: Int) async throws {
        let (user, password) = Self.credentials[index]
        let lines = Lines()
        let server = try Self.loginOnlyServer(lines: lines)
        defer { server.stop() }
        let memory = MemoryLogHandler()
        let session = try await IMAPSession.connect(
            IMAPConfiguration(
                host: "127.0.0.1", port: server.port, security: .plainTextOnLoopback,
                logger: Logger(label: "test", level: .trace, handler: memory)))
        try await session.login(Credentials.password(user: user, password: password))
        try await session.noop()
        await session.logout()
        let wire = lines.all.joined(separator: "\n")
        let trace = memory.messages.joined(separator: "\n")
        // The server did get the secret: the test would pass vacuously otherwise.
        #expect(wire.contains("SECRET"))
        #expect(!trace.contains("SECRET"))
        #expect(!trace.contains(user == "alice" ? password : user))
        #expect(trace.contains("LOGIN ***"))
        // What follows the login is traced as before.
        #expect(trace.contains("NOOP"))
    }
}
