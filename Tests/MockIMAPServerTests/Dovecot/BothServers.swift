import Foundation
import IMAPCore
import MockIMAPServer
import Testing
import Transport

/// The same messages served by the mock server and by a throwaway Dovecot, each with a raw
/// client logged in as alice, for comparing answers line by line.
struct BothServers {
    let ours: RawClient
    let theirs: RawClient

    /// Writes `messages` into a Maildir (cur/, in order, received a minute apart from
    /// 2024-01-01), seeds it into a mock server and a Dovecot, runs `body` with a logged-in raw
    /// client on each (nothing selected), and stops both whatever happens.
    static func with(
        messages: [[UInt8]], flags: [String] = [], _ body: (BothServers) async throws -> Void
    ) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-both-\(UUID())")
        defer { try? FileManager.default.removeItem(at: work) }
        try writeMaildir(messages, flags: flags, to: work)
        let server = try await MockIMAPServer.start(
            .init(
                listeners: [.plain(port: 0)], profile: .full, users: [.init("alice", password: "secret")],
                allowPlainTextAuthentication: true))
        let dovecot: DovecotMailbox
        do {
            try server.store.seed(user: "alice", mailbox: "INBOX", from: .maildir(work))
            dovecot = try await DovecotMailbox.start(maildir: work.path)
        } catch {
            await server.stop()
            throw error
        }
        do {
            let ours = RawClient(
                connection: try await NetworkConnection.connect(
                    host: "127.0.0.1", port: server.port(for: .plain)!, security: .plainText))
            let theirs = RawClient(
                connection: try await NetworkConnection.connect(
                    host: "127.0.0.1", port: dovecot.imapPort, security: .plainText))
            _ = try await ours.readLine()
            _ = try await theirs.readLine()
            try await ours.login("alice", "secret")
            try await theirs.login("alice", DovecotMailbox.password)
            try await body(BothServers(ours: ours, theirs: theirs))
            ours.close()
            theirs.close()
        } catch {
            await dovecot.stop()
            await server.stop()
            throw error
        }
        await dovecot.stop()
        await server.stop()
    }

    /// A Maildir with `messages` in cur/ (file names sort in message order; `flags[i]` is the
    /// `:2,` info of message i, none when missing).
    static func writeMaildir(_ messages: [[UInt8]], flags: [String] = [], to directory: URL) throws {
        let files = FileManager.default
        for folder in ["cur", "new", "tmp"] {
            try files.createDirectory(at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for (index, bytes) in messages.enumerated() {
            let base = 1_704_067_200 + index * 60
            let info = index < flags.count ? flags[index] : ""
            let url = directory.appendingPathComponent(
                "cur/\(base).\(String(format: "%05d", index + 1)).host:2,\(info)")
            try Data(bytes).write(to: url)
            try files.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: Double(base))], ofItemAtPath: url.path)
        }
    }

    /// `command` on both servers: the untagged lines of each (with literals inline) and the
    /// tagged status word (OK, NO, BAD; the texts differ).
    func ask(_ tag: String, _ command: String) async throws -> (ours: [String], theirs: [String]) {
        (try await Self.answer(ours, tag, command), try await Self.answer(theirs, tag, command))
    }

    private static func answer(_ client: RawClient, _ tag: String, _ command: String) async throws -> [String] {
        try await client.send("\(tag) \(command)\r\n")
        var lines: [String] = []
        while true {
            let frame = String(decoding: try await client.readFrame(), as: UTF8.self)
            if frame.hasPrefix(tag + " ") {
                lines.append(String(frame.dropFirst(tag.count + 1).prefix { $0 != " " }))
                return lines
            }
            // "\r\n" is one Character.
            lines.append(frame.hasSuffix("\r\n") ? String(frame.dropLast()) : frame)
        }
    }
}
