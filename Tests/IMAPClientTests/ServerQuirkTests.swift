import IMAPClient
import IMAPCore
import TestSupport
import Testing

/// What real servers do that the RFCs do not quite say (seen on Cyrus IMAP 3.6 and
/// Courier-IMAP 5.0), replayed by scripted servers: the session must take each in its stride.
@Suite(.hangGuard, .timeLimit(.minutes(2))) struct ServerQuirkTests {
    /// A scripted server that answers SELECT, and every other command as `answer` says (nil:
    /// a plain OK).
    static func server(
        capabilities: String = "IMAP4rev1", log: LineLog = LineLog(),
        select: String = "* 3 EXISTS\r\n* OK [UIDVALIDITY 1] ok\r\n",
        answer: @escaping @Sendable (_ tag: String, _ command: String) -> String? = { _, _ in nil }
    ) throws -> ScriptedServer {
        try ScriptedServer(greeting: "* OK [CAPABILITY \(capabilities)] quirky\r\n") { line, connection in
            log.append(line)
            let (tag, command) = ScriptedServer.split(line)
            if let custom = answer(tag, command) {
                await connection.send(custom)
            } else if command.uppercased().hasPrefix("SELECT") {
                await connection.send("\(select)\(tag) OK [READ-WRITE] done\r\n")
            } else {
                await connection.send("\(tag) OK done\r\n")
            }
        }
    }

    static func session(_ server: ScriptedServer) async throws -> IMAPSession {
        let session = try await IMAPSession.connect(SessionBehaviourTests.configuration(port: server.port))
        try await session.select("INBOX")
        return session
    }

    @Test func anUnknownCharsetAnsweredWithBADFailsANonASCIISearchClearly() async throws {
        let server = try Self.server { tag, command in
            command.contains("CHARSET") ? "\(tag) BAD [BADCHARSET] Unrecognized character set\r\n" : nil
        }
        let session = try await Self.session(server)
        await #expect(throws: IMAPError.self) { _ = try await session.search([.subject("Grüße")]) }
        do {
            _ = try await session.search([.subject("Grüße")])
        } catch {
            #expect(error.code == .unsupported)
        }
        // The session is still fine for ASCII.
        #expect(try await session.search([.subject("hello")]).uids == [])
        server.stop()
    }

    @Test func aSortCharsetRefusedWithBADIsRetriedForAnASCIIQuery() async throws {
        let log = LineLog()
        let server = try Self.server(capabilities: "IMAP4rev1 SORT", log: log) { tag, command in
            if command.contains("UTF-8") { return "\(tag) BAD unknown charset UTF-8\r\n" }
            if command.hasPrefix("UID SORT") { return "* SORT 9 4\r\n\(tag) OK done\r\n" }
            return nil
        }
        let session = try await Self.session(server)
        #expect(try await session.search([.from("alice")]).uids == [9, 4])
        #expect(log.lines.contains { $0.hasSuffix("UID SORT (REVERSE ARRIVAL) US-ASCII FROM \"alice\"") })
        server.stop()
    }

    @Test func upperCaseBodyStructureAndFlagsBeforeUIDAreRead() async throws {
        let server = try Self.server { tag, command in
            guard command.hasPrefix("UID FETCH") else { return nil }
            return """
                * 1 FETCH (FLAGS (\\Seen) UID 5 BODYSTRUCTURE ("TEXT" "PLAIN" ("CHARSET" "UTF-8") NIL NIL "7BIT" 12 1 NIL NIL NIL NIL))\r
                \(tag) OK done\r

                """
        }
        let session = try await Self.session(server)
        var messages: [FetchResponse] = []
        for try await message in session.fetch(SequenceSet(5), items: [.uid, .flags, .bodyStructure(extensions: true)])
        {
            messages.append(message)
        }
        #expect(messages.map(\.uid) == [5])
        #expect(messages.first?.flags == [.seen])
        guard case .singlepart(let part)? = messages.first?.bodyStructure else {
            Issue.record("no body structure")
            return
        }
        #expect(part.mediaType.equalsCaseInsensitive("text"))
        server.stop()
    }

    @Test func anUnsolicitedFlagsAfterANewKeywordUpdatesTheMailbox() async throws {
        let server = try Self.server { tag, command in
            guard command.hasPrefix("UID STORE") else { return nil }
            return "* FLAGS (\\Seen \\Flagged $Pinned)\r\n* 2 FETCH (UID 7 FLAGS ($Pinned))\r\n\(tag) OK done\r\n"
        }
        let session = try await Self.session(server)
        let result = try await session.store(SequenceSet(7), .add, ["$Pinned"])
        #expect(result.flags[7] == ["$Pinned"])
        #expect(await session.selectedMailbox?.flags == [.seen, .flagged, "$Pinned"])
        server.stop()
    }

    @Test func idAndEnableAnsweredWithNODoNotFailTheLogin() async throws {
        let log = LineLog()
        let server = try Self.server(capabilities: "IMAP4rev1 ID ENABLE CONDSTORE AUTH=PLAIN SASL-IR", log: log) {
            tag, command in
            let verb = command.split(separator: " ").first?.uppercased() ?? ""
            if verb == "ID" || verb == "ENABLE" { return "\(tag) NO unknown command\r\n" }
            return nil
        }
        let session = try await IMAPSession.connect(SessionBehaviourTests.configuration(port: server.port))
        try await session.login(.password(user: "u", password: "p"))
        #expect(await session.isAuthenticated)
        #expect(await session.enabled.isEmpty)
        #expect(log.lines.contains { $0.contains(" ID (") })
        server.stop()
    }

    @Test func noCharsetIsSentOnceUTF8AcceptIsEnabled() async throws {
        let log = LineLog()
        let server = try Self.server(capabilities: "IMAP4rev1 ENABLE UTF8=ACCEPT", log: log) { tag, command in
            if command.hasPrefix("ENABLE") { return "* ENABLED UTF8=ACCEPT\r\n\(tag) OK done\r\n" }
            if command.contains("CHARSET") { return "\(tag) BAD CHARSET not allowed with UTF8=ACCEPT\r\n" }
            if command.hasPrefix("UID SEARCH") { return "* SEARCH 8\r\n\(tag) OK done\r\n" }
            return nil
        }
        let session = try await IMAPSession.connect(SessionBehaviourTests.configuration(port: server.port))
        try await session.execute(.enable([.utf8Accept]), claims: { if case .enabled = $0 { true } else { false } })
        try await session.select("INBOX")
        #expect(try await session.search([.subject("Grüße")]).uids == [8])
        #expect(log.lines.contains { $0.hasSuffix("UID SEARCH SUBJECT \"Grüße\"") })
        server.stop()
    }

    @Test func aSelectWithoutUIDNextOrUnseenStillWorks() async throws {
        let server = try Self.server(select: "* 2 EXISTS\r\n* 0 RECENT\r\n") { tag, command in
            command.hasPrefix("UID SEARCH") ? "* SEARCH 3 1\r\n\(tag) OK done\r\n" : nil
        }
        let session = try await Self.session(server)
        let mailbox = try #require(await session.selectedMailbox)
        #expect(mailbox.messageCount == 2)
        #expect(mailbox.uidNext == nil && mailbox.firstUnseen == nil && mailbox.uidValidity == nil)
        #expect(try await session.search([.all]).uids == [3, 1])
        server.stop()
    }

    /// Courier shows mail appended by another client only at the next NOOP: the count follows
    /// what the server reports, never a guess.
    @Test func mailAppendedElsewhereShowsWhenANoopReportsIt() async throws {
        let appended = LineLog()
        let server = try Self.server { tag, command in
            if command == "NOOP", !appended.lines.isEmpty { return "* 4 EXISTS\r\n\(tag) OK done\r\n" }
            return nil
        }
        let session = try await Self.session(server)
        #expect(await session.selectedMailbox?.messageCount == 3)
        try await session.noop()
        #expect(await session.selectedMailbox?.messageCount == 3)
        appended.append("appended")
        try await session.noop()
        #expect(await session.selectedMailbox?.messageCount == 4)
        server.stop()
    }

    @Test(arguments: [
        ("* ESEARCH (TAG \"%TAG%\") UID COUNT 2 ALL 4,9", [9, 4] as [UInt32], 2),
        ("* ESEARCH UID ALL 4,9", [9, 4], 2),
        ("* ESEARCH (TAG \"%TAG%\") UID", [], 0),
        ("* ESEARCH (TAG \"%TAG%\") UID COUNT 5 ALL 1:3", [3, 2, 1], 5),
        ("* ESEARCH (TAG \"%TAG%\") UID MIN 4 MAX 9 ALL 4,9 COUNT 2", [9, 4], 2),
    ])
    func everyFormOfESEARCH(response: String, uids: [UInt32], count: Int) async throws {
        let server = try Self.server(capabilities: "IMAP4rev1 ESEARCH") { tag, command in
            guard command.hasPrefix("UID SEARCH") else { return nil }
            return response.replacing("%TAG%", with: tag) + "\r\n\(tag) OK done\r\n"
        }
        let session = try await Self.session(server)
        let found = try await session.search([.from("a")])
        #expect(found.uids == uids)
        #expect(found.count == count)
        server.stop()
    }
}
