import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// Mailbox commands: LIST, STATUS, CREATE, DELETE, RENAME, SUBSCRIBE, SELECT, EXAMINE, CLOSE,
/// UNSELECT, EXPUNGE, APPEND, COPY, MOVE.
@Suite(.hangGuard) struct MailboxCommandTests {
    @Test func listShowsChildrenNoselectAndSpecialUse() async throws {
        let server = try await startServer()
        try server.store.createMailbox("Projects/Search", user: "alice")
        let client = try await server.rawClient()
        try await client.login()
        let lines = try await client.command("l", "LIST \"\" *")
        #expect(
            lines == [
                #"* LIST (\HasNoChildren) "/" INBOX"#, #"* LIST (\HasNoChildren \Archive) "/" Archive"#,
                #"* LIST (\HasNoChildren \Drafts) "/" Drafts"#, #"* LIST (\HasNoChildren \Junk) "/" Junk"#,
                #"* LIST (\HasChildren) "/" Projects"#, #"* LIST (\HasNoChildren) "/" Projects/Search"#,
                #"* LIST (\HasNoChildren \Sent) "/" Sent"#, #"* LIST (\HasNoChildren \Trash) "/" Trash"#,
                "l OK LIST completed",
            ])
        #expect(try await client.command("m", "LIST \"\" %").count == 8)
        #expect(
            try await client.command("n", "LIST Projects/ %") == [
                #"* LIST (\HasNoChildren) "/" Projects/Search"#, "n OK LIST completed",
            ])
        #expect(
            try await client.command("o", "LIST \"\" \"\"") == [#"* LIST (\Noselect) "/" """#, "o OK LIST completed"])
        #expect(
            try await client.command("p", "LIST \"\" inbox") == [
                #"* LIST (\HasNoChildren) "/" INBOX"#, "p OK LIST completed",
            ])
        let special = try await client.command("q", "LIST (SPECIAL-USE) \"\" *")
        #expect(special.count == 6)
        // Deleting a parent keeps it as \Noselect.
        #expect(try await client.command("r", "DELETE Projects") == ["r OK DELETE completed"])
        #expect(
            try await client.command("s", "LIST \"\" Projects").first
                == #"* LIST (\Noselect \HasChildren) "/" Projects"#)
        #expect(try await client.command("t", "DELETE Projects").tagged.hasPrefix("t NO [INUSE]"))
        #expect(try await client.command("u", "SELECT Projects").tagged.hasPrefix("u NO [NONEXISTENT]"))
        await server.stop()
    }

    @Test func createDeleteRenameSubscribe() async throws {
        let server = try await startServer()
        let client = try await server.rawClient()
        try await client.login()
        #expect(try await client.command("a", "CREATE Lists/swift/") == ["a OK CREATE completed"])
        #expect(try await client.command("b", "CREATE Lists/swift").tagged.hasPrefix("b NO [ALREADYEXISTS]"))
        #expect(try await client.command("c", "CREATE inbox").tagged.hasPrefix("c NO [ALREADYEXISTS]"))
        #expect(server.store.mailboxNames(user: "alice").contains("Lists/swift"))
        #expect(try await client.command("d", "RENAME Lists Mailing") == ["d OK RENAME completed"])
        #expect(server.store.mailboxNames(user: "alice").contains("Mailing/swift"))
        #expect(!server.store.mailboxNames(user: "alice").contains("Lists"))
        #expect(try await client.command("e", "DELETE INBOX").tagged.hasPrefix("e NO [CANNOT]"))
        #expect(try await client.command("f", "DELETE Nope").tagged.hasPrefix("f NO [NONEXISTENT]"))
        #expect(try await client.command("g", "SUBSCRIBE Mailing/swift") == ["g OK SUBSCRIBE completed"])
        #expect(
            try await client.command("h", "LSUB \"\" Mailing/*") == [
                #"* LSUB () "/" Mailing/swift"#, "h OK LSUB completed",
            ])
        #expect(
            try await client.command("i", "LIST \"\" Mailing/swift RETURN (SUBSCRIBED)").first
                == #"* LIST (\HasNoChildren \Subscribed) "/" Mailing/swift"#)
        #expect(try await client.command("j", "UNSUBSCRIBE Mailing/swift") == ["j OK UNSUBSCRIBE completed"])
        #expect(try await client.command("k", "LSUB \"\" Mailing/*") == ["k OK LSUB completed"])
        // Non-ASCII names travel as modified UTF-7.
        #expect(try await client.command("l", "CREATE &AMQ-rger") == ["l OK CREATE completed"])
        #expect(server.store.mailboxNames(user: "alice").contains("Ärger"))
        // Renaming INBOX moves its messages and leaves it empty.
        try server.store.seed(user: "alice", from: .raw(message(subject: "old inbox")))
        #expect(try await client.command("m", "RENAME INBOX Old") == ["m OK RENAME completed"])
        #expect(server.store.uids(user: "alice", mailbox: "INBOX").isEmpty)
        #expect(server.store.uids(user: "alice", mailbox: "Old") == [1])
        await server.stop()
    }

    @Test func statusReportsCounts() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        try server.store.setUIDValidity(777, user: "alice", mailbox: "INBOX")
        let client = try await server.rawClient()
        try await client.login()
        let highest = server.store.highestModificationSequence(user: "alice", mailbox: "INBOX")!
        let lines = try await client.command(
            "s", "STATUS INBOX (MESSAGES RECENT UIDNEXT UIDVALIDITY UNSEEN DELETED HIGHESTMODSEQ)")
        #expect(
            lines == [
                "* STATUS INBOX (MESSAGES 4 RECENT 4 UIDNEXT 5 UIDVALIDITY 777 UNSEEN 3 DELETED 1 HIGHESTMODSEQ \(highest))",
                "s OK STATUS completed",
            ])
        #expect(try await client.command("t", "STATUS Nope (MESSAGES)").tagged.hasPrefix("t NO [NONEXISTENT]"))
        await server.stop()
    }

    @Test func selectAndExamineReportTheMailbox() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        try server.store.setUIDValidity(4242, user: "alice", mailbox: "INBOX")
        let client = try await server.rawClient()
        let highest = server.store.highestModificationSequence(user: "alice", mailbox: "INBOX")!
        let select = try await client.selectInbox()
        #expect(
            select == [
                #"* FLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned)"#,
                #"* OK [PERMANENTFLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned \*)] Flags permitted"#,
                "* 4 EXISTS", "* 4 RECENT", "* OK [UNSEEN 2] First unseen", "* OK [UIDVALIDITY 4242] UIDs valid",
                "* OK [UIDNEXT 5] Predicted next UID", "* OK [HIGHESTMODSEQ \(highest)] Highest",
                "s OK [READ-WRITE] SELECT completed",
            ])
        // A second session sees no \Recent: the first one took it.
        let other = try await server.rawClient()
        let examine = try await other.selectInbox(readOnly: true)
        #expect(examine.contains("* 0 RECENT"))
        #expect(examine.contains(#"* OK [PERMANENTFLAGS ()] No permanent flags permitted"#))
        #expect(examine.tagged == "s OK [READ-ONLY] EXAMINE completed")
        #expect(try await other.command("x", "STORE 1 +FLAGS (\\Seen)").tagged.hasPrefix("x NO [READ-ONLY]"))
        #expect(try await other.command("y", "EXPUNGE").tagged.hasPrefix("y NO [READ-ONLY]"))
        // EXAMINE does not set \Seen on fetch.
        _ = try await other.command("z", "FETCH 2 BODY[TEXT]")
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 2) == [.flagged, "$Pinned"])
        #expect(try await client.command("n", "SELECT Nope").tagged.hasPrefix("n NO [NONEXISTENT]"))
        #expect(try await client.command("f", "FETCH 1 FLAGS").tagged.hasPrefix("f BAD FETCH needs a selected mailbox"))
        await server.stop()
    }

    @Test func closeExpungesDeletedAndUnselectDoesNot() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(try await client.command("k", "CHECK") == ["k OK CHECK completed"])
        #expect(try await client.command("u", "UNSELECT") == ["u OK UNSELECT completed"])
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 2, 3, 4])
        _ = try await client.command("s", "SELECT INBOX")
        #expect(try await client.command("c", "CLOSE") == ["c OK CLOSE completed"])
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 2, 4])
        #expect(try await client.command("f", "FETCH 1 FLAGS").tagged.hasPrefix("f BAD "))
        await server.stop()
    }

    @Test func expungeAndUIDExpunge() async throws {
        let server = try await startServer()
        for index in 1...6 { try server.store.seed(user: "alice", from: .raw(message(subject: "m\(index)"))) }
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        _ = try await client.command("a", "STORE 2,4,5 +FLAGS.SILENT (\\Deleted)")
        #expect(
            try await client.command("b", "UID EXPUNGE 4:6") == [
                "* 5 EXPUNGE", "* 4 EXPUNGE", "b OK EXPUNGE completed",
            ])
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 2, 3, 6])
        #expect(try await client.command("c", "EXPUNGE") == ["* 2 EXPUNGE", "c OK EXPUNGE completed"])
        #expect(try await client.numbers("d", "UID SEARCH ALL") == [1, 3, 6])
        #expect(try await client.numbers("e", "SEARCH ALL") == [1, 2, 3])
        await server.stop()
    }

    @Test func appendWithEveryKindOfLiteral() async throws {
        let server = try await startServer()
        let validity = server.store.uidValidity(user: "alice", mailbox: "Drafts")!
        let client = try await server.rawClient()
        try await client.login()
        let first = message(subject: "synchronizing")
        try await client.send("a APPEND Drafts (\\Draft $Pinned) \"05-Mar-2024 14:05:00 +0100\" {\(first.count)}\r\n")
        #expect(try await client.readLine() == "+ Ready for literal data")
        try await client.sendBytes(first + Array("\r\n".utf8))
        #expect(try await client.lines(until: "a") == ["a OK [APPENDUID \(validity) 1] APPEND completed"])
        let second = message(subject: "non-synchronizing")
        try await client.sendBytes(Array("b APPEND Drafts {\(second.count)+}\r\n".utf8) + second + Array("\r\n".utf8))
        #expect(try await client.lines(until: "b") == ["b OK [APPENDUID \(validity) 2] APPEND completed"])
        #expect(server.store.flags(user: "alice", mailbox: "Drafts", uid: 1) == [.draft, "$Pinned"])
        #expect(
            server.store.internalDate(user: "alice", mailbox: "Drafts", uid: 1)?.description
                == "05-Mar-2024 14:05:00 +0100")
        #expect(server.store.rawMessage(user: "alice", mailbox: "Drafts", uid: 2) == second)
        #expect(
            try await client.command("c", "APPEND Nowhere {2+}\r\nhi").tagged
                == "c NO [TRYCREATE] Mailbox does not exist: Nowhere")
        #expect(try await client.command("d", "APPEND Drafts (\\Recent) {2+}\r\nhi").tagged.hasPrefix("d BAD \\Recent"))
        #expect(try await client.command("e", "APPEND Drafts (bad]flag) {2+}\r\nhi").tagged.hasPrefix("e BAD "))
        // Appending to the selected mailbox shows up as EXISTS.
        _ = try await client.command("s", "SELECT Drafts")
        let append = try await client.command("f", "APPEND Drafts {2+}\r\nhi")
        #expect(append == ["* 3 EXISTS", "* 3 RECENT", "f OK [APPENDUID \(validity) 3] APPEND completed"])
        await server.stop()
    }

    @Test func copyAndMoveReportCopyUID() async throws {
        let server = try await startServer()
        for index in 1...4 {
            try server.store.seed(user: "alice", from: .raw(message(subject: "m\(index)"), flags: [.seen]))
        }
        let archive = server.store.uidValidity(user: "alice", mailbox: "Archive")!
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(
            try await client.command("a", "COPY 1:2 Archive") == ["a OK [COPYUID \(archive) 1:2 1:2] COPY completed"])
        #expect(server.store.flags(user: "alice", mailbox: "Archive", uid: 2) == [.seen])
        #expect(
            try await client.command("b", "UID MOVE 3:4 Archive")
                == ["* OK [COPYUID \(archive) 3:4 3:4] Moved", "* 4 EXPUNGE", "* 3 EXPUNGE", "b OK MOVE completed"])
        #expect(server.store.uids(user: "alice", mailbox: "INBOX") == [1, 2])
        #expect(server.store.uids(user: "alice", mailbox: "Archive") == [1, 2, 3, 4])
        #expect(
            try await client.command("c", "MOVE 1 Nowhere").tagged == "c NO [TRYCREATE] Mailbox does not exist: Nowhere"
        )
        #expect(
            try await client.command("d", "COPY 9 Archive").tagged.hasPrefix("d BAD invalid message sequence number 9"))
        await server.stop()
    }

    @Test func clientSessionListsStatusesAndSelects() async throws {
        let server = try await startServer()
        try Fixture.seed(server)
        let session = try await server.session()
        let names = try await session.list().map(\.name.displayName)
        #expect(names == ["INBOX", "Archive", "Drafts", "Junk", "Sent", "Trash"])
        let status = try await session.status("INBOX")
        #expect(status.messageCount == 4 && status.unseenCount == 3 && status.uidNext == 5)
        let selected = try await session.select("INBOX")
        #expect(selected.messageCount == 4 && selected.permanentFlags.contains(.wildcard))
        #expect(
            selected.highestModificationSequence
                == server.store.highestModificationSequence(user: "alice", mailbox: "INBOX"))
        await session.logout()
        await server.stop()
    }
}
