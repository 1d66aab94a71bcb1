import Foundation
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// `sync`, `search --offline` and `index status|drop` from the built binary against the mock
/// server's demo mailbox: offline answers are the server's rows, the index is private, a drop
/// leaves nothing behind, and the errors name what to do.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct IndexCommandTests {
    static func run(_ arguments: [String], environment: [String: String]) async throws -> ToolResult {
        try await ToolProcess.run(arguments, environment: environment, timeout: .seconds(90))
    }

    /// `search` of `query` (JSON, 500 rows) prints what `--server` prints, its `--debug` shows
    /// `caughtUp` (the index fed or caught up) and never `sent` (the server's search of it).
    static func expectAnsweredLocally(
        _ query: String, _ arguments: [String], _ environment: [String: String], caughtUp: String, sent: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let local = try await run(
            arguments + ["--debug", "search", "--json", "--limit", "500", "--", query], environment: environment)
        let server = try await run(
            arguments + ["search", "--server", "--json", "--limit", "500", "--", query], environment: environment)
        #expect(local.status == 0 && server.status == 0, "\(query): \(local) \(server)", sourceLocation: sourceLocation)
        #expect(local.standardOutput == server.standardOutput, "\(query)", sourceLocation: sourceLocation)
        #expect(local.standardError.contains(caughtUp), "\(query): not caught up", sourceLocation: sourceLocation)
        #expect(!local.standardError.contains(sent), "\(query): the server searched", sourceLocation: sourceLocation)
    }

    @Test func syncThenOfflineSearchGivesTheServersRows() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let environment = account.environment
        let arguments = account.plainArguments

        let missing = try await Self.run(
            arguments + ["search", "--offline", "from:dumbledore"], environment: environment)
        #expect(missing.status == 1 && missing.standardError.contains("run \"mailsearch sync"), "\(missing)")

        let sync = try await Self.run(arguments + ["sync", "--json"], environment: environment)
        #expect(sync.status == 0, "\(sync)")
        #expect(sync.lines.count == 1 && sync.lines[0].contains("\"added\":"), "\(sync)")
        let again = try await Self.run(arguments + ["sync", "--json"], environment: environment)
        #expect(
            again.lines.first?.contains("\"added\":0") == true
                && again.lines.first?.contains("\"inStep\":true") == true, "\(again)")

        for query in ["from:dumbledore", "is:unread", "potion OR quidditch", "-is:read subject:about", "larger:5k"] {
            let server = try await Self.run(
                arguments + ["search", "--json", "--limit", "500", "--", query], environment: environment)
            // No password and a closed port would not matter: offline never connects.
            var offlineEnvironment = environment
            offlineEnvironment["MAILSEARCH_PASSWORD"] = nil
            let offline = try await Self.run(
                [
                    "--host", "127.0.0.1", "--port", "1", "--user", MockAccount.user, "--tls", "none",
                    "--insecure-plaintext",
                ]
                    + ["search", "--offline", "--json", "--limit", "500", "--", query],
                environment: offlineEnvironment)
            #expect(server.status == 0 && offline.status == 0, "\(query): \(server) \(offline)")
            #expect(offline.standardOutput == server.standardOutput, "\(query)")
            #expect(offline.standardError.contains("answered from the local index"), "\(offline)")
        }

        let status = try await Self.run(arguments + ["index", "status"], environment: environment)
        #expect(status.status == 0 && status.standardOutput.contains("INBOX: "), "\(status)")
        let path = account.directory.appendingPathComponent(
            ".cache/mailsearch/index-\(MockAccount.user)@127.0.0.1.sqlite"
        ).path
        let file = try FileManager.default.attributesOfItem(atPath: path)
        let folder = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((file[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)

        let drop = try await Self.run(arguments + ["index", "drop"], environment: environment)
        #expect(drop.status == 0, "\(drop)")
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix)")
        }
    }

    /// `in:all` offline searches every mailbox of the index: the rows, their order across the
    /// mailboxes and their `Archive:32` labels are the server's own `in:all` answer's.
    @Test func offlineInAllSearchesEveryIndexedMailboxAsTheServerDoes() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let (environment, arguments) = (account.environment, account.plainArguments)
        let sync = try await Self.run(arguments + ["sync", "--all"], environment: environment)
        #expect(sync.status == 0, "\(sync)")
        var labelled = 0
        for query in ["in:all", "in:all potion", "in:all -is:read", "in:all from:dumbledore OR subject:re"] {
            for format in [["--json"], []] {
                let server = try await Self.run(
                    arguments + ["search", "--server"] + format + ["--limit", "500", "--", query],
                    environment: environment)
                let offline = try await Self.run(
                    arguments + ["search", "--offline"] + format + ["--limit", "500", "--", query],
                    environment: environment)
                #expect(server.status == 0 && offline.status == 0, "\(query): \(server) \(offline)")
                #expect(offline.standardOutput == server.standardOutput, "\(query) \(format)")
                #expect(offline.standardError.contains("Archive, "), "\(offline)")
                labelled += offline.lines.filter { $0.contains("Archive:") }.count
            }
        }
        #expect(labelled > 0, "no row of another mailbox was printed")

        // Online, with every mailbox indexed: caught up, then answered from the index.
        for query in ["in:all potion", "in:Archive -is:read", "in:all from:dumbledore OR subject:re"] {
            try await Self.expectAnsweredLocally(
                query, arguments, environment, caughtUp: "EXAMINE Archive", sent: "UID SEARCH")
        }
    }

    /// The demo without an index file indexes its mailbox in memory and answers from it (`search`
    /// and `search --offline`): the server's rows, the index fed on the wire (whole messages fetched), no search of the
    /// query sent, and no file left.
    @Test func theDemoIndexesItsMailboxInMemory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-demo-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ToolEnvironment.make(directory)
        for query in ["potion", "in:all from:dumbledore", "is:unread"] {
            // Fed on the wire: whole messages fetched.
            try await Self.expectAnsweredLocally(
                query, ["--demo"], environment, caughtUp: "BODY.PEEK[]", sent: "UID SORT")
        }
        // --offline too: the mailboxes searched indexed in memory, then answered from there.
        for query in ["potion", "in:all from:dumbledore", "in:Archive -is:read"] {
            let offline = try await Self.run(
                ["--demo", "search", "--offline", "--json", "--limit", "500", "--", query], environment: environment)
            let server = try await Self.run(
                ["--demo", "search", "--server", "--json", "--limit", "500", "--", query], environment: environment)
            #expect(offline.status == 0 && server.status == 0, "\(query): \(offline) \(server)")
            #expect(offline.standardOutput == server.standardOutput, "\(query)")
            #expect(offline.standardError.contains("answered from the local index"), "\(offline)")
        }
        let file = directory.appendingPathComponent(".cache/mailsearch/index-demo.sqlite").path
        #expect(!FileManager.default.fileExists(atPath: file), "the demo's index was written to \(file)")
    }

    /// With an index, `search` catches it up on its own connection, from what its SELECT
    /// reported, and answers from it: the same rows as `--server`, no UID SORT or SEARCH of the
    /// query on the wire, and the changes another client made since the last sync (a flag, an
    /// expunge, an arrival) in the answer. When nothing changed, no command follows the SELECT.
    @Test func searchWithAnIndexAnswersFromItAfterCatchingUp() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let (environment, arguments) = (account.environment, account.plainArguments)
        let (store, user) = (account.server.store, MockAccount.user)
        #expect(try await Self.run(arguments + ["sync"], environment: environment).status == 0)
        let uids = store.uids(user: user, mailbox: "INBOX")
        let unread = uids.filter { !(store.flags(user: user, mailbox: "INBOX", uid: $0) ?? []).contains(.seen) }
        let changed = try #require(unread.first)
        try store.setFlags([.seen], user: user, mailbox: "INBOX", uid: changed)
        let expunged = try #require(uids.last { $0 != changed })
        try store.expunge(user: user, mailbox: "INBOX", uids: [expunged])
        let arrived = try store.append(
            Array("From: Minerva <minerva@example.org>\r\nSubject: transfiguration\r\n\r\nA lesson.\r\n".utf8),
            user: user, mailbox: "INBOX")

        // The first search finds the changes (CONDSTORE: the UIDs and the flags changed since).
        try await Self.expectAnsweredLocally(
            "is:unread", arguments, environment, caughtUp: "CHANGEDSINCE", sent: "UID SORT")
        for query in ["is:unread", "from:dumbledore", "potion OR quidditch", "from:minerva"] {
            try await Self.expectAnsweredLocally(
                query, arguments, environment, caughtUp: "SELECT INBOX", sent: "UID SORT")
        }
        let rows = try await Self.run(
            arguments + ["search", "--json", "--limit", "500", "is:unread OR from:minerva"], environment: environment)
        #expect(!rows.standardOutput.contains("\"uid\":\(changed),"), "UID \(changed) was read by another client")
        #expect(!rows.standardOutput.contains("\"uid\":\(expunged),"), "UID \(expunged) was expunged")
        #expect(rows.standardOutput.contains("\"uid\":\(arrived),"), "UID \(arrived) arrived")

        // Nothing changed since: the SELECT the search needs anyway is the whole catch-up, on
        // the one connection (one login, no EXAMINE).
        let quiet = try await Self.run(
            arguments + ["--debug", "search", "--json", "from:dumbledore"], environment: environment)
        let sent = quiet.standardError.split(separator: "\n").filter { $0.contains("C: ") }.map {
            $0.split(separator: " ").dropFirst(3).first.map { String($0.prefix { $0 != "\\" }) } ?? ""
        }
        #expect(sent == ["AUTHENTICATE", "ID", "ENABLE", "SELECT", "LOGOUT"], "\(quiet.standardError)")
    }

    @Test func offlineAndServerContradict() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-index-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.run(
            ["--demo", "search", "--offline", "--server", "x"], environment: ToolEnvironment.make(directory))
        #expect(result.status == 64 && result.standardError.contains("contradict"), "\(result)")
    }
}
