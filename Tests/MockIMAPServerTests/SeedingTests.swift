import Foundation
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// Seeding from every source, and reading the store back.
@Suite(.hangGuard) struct SeedingTests {
    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mock-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    static func store() -> MailStore {
        MailStore(users: [.init("alice", password: "secret")])
    }

    @Test func rawWithFlagsDatesAndExplicitUIDs() throws {
        let store = Self.store()
        try store.setUIDValidity(99, user: "alice", mailbox: "INBOX")
        let seeded = try store.seed(
            user: "alice",
            from: .raw(message(subject: "a"), flags: [.seen, "$Pinned"], internalDate: dateTime(2023, 12, 1), uid: 40))
        #expect(seeded == [SeededMessage(user: "alice", mailbox: "INBOX", uid: 40)])
        try store.seed(user: "alice", from: .raw(message(subject: "b")))
        #expect(store.uids(user: "alice", mailbox: "INBOX") == [40, 41])
        #expect(store.uidValidity(user: "alice", mailbox: "INBOX") == 99)
        #expect(store.flags(user: "alice", mailbox: "INBOX", uid: 40) == [.seen, "$Pinned"])
        #expect(
            store.internalDate(user: "alice", mailbox: "INBOX", uid: 40)?.description == "01-Dec-2023 12:00:00 +0000")
        // Without a date: the Date header.
        #expect(
            store.internalDate(user: "alice", mailbox: "INBOX", uid: 41)?.description == "05-Mar-2024 14:05:00 +0000")
        #expect(throws: MockServerError.self) { try store.seed(user: "alice", from: .raw(message(), uid: 3)) }
        #expect(throws: MockServerError.self) { try store.seed(user: "nobody", from: .raw(message())) }
        let before = store.highestModificationSequence(user: "alice", mailbox: "INBOX")!
        try store.setFlags([.flagged], user: "alice", mailbox: "INBOX", uid: 41)
        #expect(store.modificationSequence(user: "alice", mailbox: "INBOX", uid: 41) == before + 1)
        try store.createMailbox("Projects/2024", user: "alice", specialUse: .archive, uidValidity: 7)
        #expect(store.uidValidity(user: "alice", mailbox: "Projects/2024") == 7)
        #expect(store.mailboxNames(user: "alice").contains("Projects"))
    }

    @Test func emlDirectoryFlatAndByUser() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.write(
            "Subject: one\nDate: Tue, 05 Mar 2024 14:05:00 +0000\n\nfirst\n",
            to: directory.appendingPathComponent("flat/1.eml"))
        try Self.write("Subject: two\n\nsecond\n", to: directory.appendingPathComponent("flat/2.eml"))
        try Self.write("Subject: sent\n\nthird\n", to: directory.appendingPathComponent("flat/Sent/3.eml"))
        try Self.write("Subject: ignored\n", to: directory.appendingPathComponent("flat/notes.txt"))
        let store = Self.store()
        let seeded = try store.seed(
            user: "alice", mailbox: "INBOX", from: .emlDirectory(directory.appendingPathComponent("flat")))
        #expect(seeded.map(\.mailbox) == ["INBOX", "INBOX", "Sent"])
        #expect(
            store.rawMessage(user: "alice", mailbox: "INBOX", uid: 1)
                == Array("Subject: one\r\nDate: Tue, 05 Mar 2024 14:05:00 +0000\r\n\r\nfirst\r\n".utf8))
        // user/mailbox/*.eml
        try Self.write("Subject: nested\n\nx\n", to: directory.appendingPathComponent("tree/alice/Lists/swift/1.eml"))
        try Self.write("Subject: inbox\n\nx\n", to: directory.appendingPathComponent("tree/alice/INBOX/1.eml"))
        try Self.write("Subject: bob's\n\nx\n", to: directory.appendingPathComponent("tree/bob/INBOX/1.eml"))
        let tree = try store.seed(user: "alice", from: .emlDirectory(directory.appendingPathComponent("tree")))
        #expect(Set(tree.map(\.mailbox)) == ["INBOX", "Lists/swift"])
        #expect(store.uids(user: "alice", mailbox: "Lists/swift") == [1])
        #expect(store.uids(user: "alice", mailbox: "INBOX").count == 3)
    }

    @Test func mboxWithStatusHeadersAndEscapedFromLines() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mbox = directory.appendingPathComponent("mail.mbox")
        try Self.write(
            """
            From grace@apple.com Sat Jan  3 01:05:34 2024
            From: grace@apple.com
            Subject: first
            Status: RO
            X-Status: AF

            Hello
            >From the start
            >>From quoted

            From bob@example.com Mon Feb  5 10:00:00 2024
            From: bob@example.com
            Subject: second

            Bye

            """, to: mbox)
        let store = Self.store()
        let seeded = try store.seed(user: "alice", mailbox: "Archive", from: .mbox(mbox))
        #expect(seeded.map(\.uid) == [1, 2])
        #expect(store.flags(user: "alice", mailbox: "Archive", uid: 1) == [.seen, .answered, .flagged])
        #expect(
            store.internalDate(user: "alice", mailbox: "Archive", uid: 1)?.description == "03-Jan-2024 01:05:34 +0000")
        let first = String(decoding: store.rawMessage(user: "alice", mailbox: "Archive", uid: 1) ?? [], as: UTF8.self)
        #expect(first.hasSuffix("\r\nHello\r\nFrom the start\r\n>From quoted\r\n"))
        let second = String(decoding: store.rawMessage(user: "alice", mailbox: "Archive", uid: 2) ?? [], as: UTF8.self)
        #expect(second == "From: bob@example.com\r\nSubject: second\r\n\r\nBye\r\n")
        try Self.write("Not an mbox\n", to: directory.appendingPathComponent("bad.mbox"))
        #expect(throws: MockServerError.self) {
            try store.seed(user: "alice", from: .mbox(directory.appendingPathComponent("bad.mbox")))
        }
    }

    @Test func maildirFlagsKeywordsFoldersAndDates() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.write("Subject: read\n\nx\n", to: directory.appendingPathComponent("cur/1700000000.1.host:2,RS"))
        try Self.write("Subject: flagged\n\nx\n", to: directory.appendingPathComponent("cur/1700000100.2.host:2,Fa"))
        try Self.write("Subject: new\n\nx\n", to: directory.appendingPathComponent("new/1700000200.3.host"))
        try Self.write("Subject: sent\n\nx\n", to: directory.appendingPathComponent(".Sent/cur/1700000300.4.host:2,S"))
        try Self.write("0 $Pinned\n", to: directory.appendingPathComponent("dovecot-keywords"))
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes(
            [.modificationDate: modified],
            ofItemAtPath: directory.appendingPathComponent("cur/1700000000.1.host:2,RS").path)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let store = Self.store()
        let seeded = try store.seed(user: "alice", from: .maildir(directory))
        #expect(seeded.map(\.mailbox) == ["INBOX", "INBOX", "INBOX", "Sent"])
        #expect(store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [.answered, .seen])
        #expect(store.flags(user: "alice", mailbox: "INBOX", uid: 2) == [.flagged, "$Pinned"])
        #expect(store.flags(user: "alice", mailbox: "INBOX", uid: 3) == [])
        #expect(store.flags(user: "alice", mailbox: "Sent", uid: 1) == [.seen])
        #expect(store.internalDate(user: "alice", mailbox: "INBOX", uid: 1)?.secondsSinceEpoch == 1_700_000_000)
    }

    @Test func jsonWithUsersMailboxesRawAndComposedMessages() async throws {
        let json = """
            {
              "users": [ { "name": "bob", "password": "pw", "oauth2Token": "tok" } ],
              "mailboxes": [
                { "name": "INBOX", "user": "bob", "uidValidity": 4242, "messages": [
                    { "uid": 7, "flags": ["\\\\Seen", "$Pinned"], "internalDate": "2024-03-05T14:05:00Z",
                      "raw": "From: grace@apple.com\\r\\nSubject: Raw\\r\\n\\r\\nHello\\r\\n" },
                    { "from": "Jürgen Müller <juergen@example.de>", "to": ["Bob <bob@example.com>", "carol@example.org"],
                      "subject": "Grüße aus München", "date": "2024-03-06T10:00:00+01:00", "messageId": "<m1@example.de>",
                      "text": "Hallo Bob, schöne Grüße!", "html": "<p>Hallo Bob</p>",
                      "attachments": [ { "filename": "Übersicht.pdf", "contentType": "application/pdf", "base64": "JVBERi0xLjQK" } ] }
                ] },
                { "name": "Projects/Search", "user": "bob", "specialUse": "\\\\Archive", "messages": [] }
              ],
              "messages": [ { "subject": "Top level", "text": "to the seed mailbox" } ]
            }
            """
        let server = try await startServer()
        let seeded = try server.store.seed(user: "alice", mailbox: "Archive", from: .jsonData(Data(json.utf8)))
        #expect(seeded.map(\.user) == ["bob", "bob", "alice"])
        #expect(seeded.map(\.uid) == [7, 8, 1])
        #expect(server.store.uidValidity(user: "bob", mailbox: "INBOX") == 4242)
        #expect(server.store.flags(user: "bob", mailbox: "INBOX", uid: 7) == [.seen, "$Pinned"])
        #expect(
            server.store.internalDate(user: "bob", mailbox: "INBOX", uid: 8)?.description
                == "06-Mar-2024 10:00:00 +0100")
        // Bob can log in and search the composed message by its decoded text.
        let client = try await server.rawClient()
        try await client.login("bob", "pw")
        _ = try await client.command("s", "SELECT INBOX")
        #expect(try await client.numbers("a", "UID SEARCH FROM \"Jürgen\"") == [8])
        #expect(try await client.numbers("b", "UID SEARCH SUBJECT \"grüße aus\"") == [8])
        #expect(try await client.numbers("c", "UID SEARCH BODY \"schöne\"") == [8])
        #expect(try await client.numbers("d", "UID SEARCH TO carol") == [8])
        let structure = try await client.fetch("e", "UID FETCH 8 BODYSTRUCTURE")
        #expect(structure.fetches.first?.bodyStructure?.hasAttachment == true)
        let list = try await client.command("f", "LIST \"\" Projects/*")
        #expect(list.first == #"* LIST (\HasNoChildren \Archive) "/" Projects/Search"#)
        await server.stop()
        #expect(throws: MockServerError.self) {
            try server.store.seed(user: "alice", from: .jsonData(Data("{ not json".utf8)))
        }
        #expect(throws: MockServerError.self) {
            try server.store.seed(user: "alice", from: .jsonData(Data(#"[{"raw": "x", "flags": ["bad flag"]}]"#.utf8)))
        }
    }

    @Test func jsonFileAndArrayShape() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("seed.json")
        try Self.write(#"[{"subject": "one", "date": "05-Mar-2024 14:05:00 +0000"}, {"subject": "two"}]"#, to: file)
        let store = Self.store()
        #expect(try store.seed(user: "alice", mailbox: "Drafts", from: .json(file)).count == 2)
        #expect(
            store.internalDate(user: "alice", mailbox: "Drafts", uid: 1)?.description == "05-Mar-2024 14:05:00 +0000")
    }

    /// `.eml` files go in in the order a file manager lists them: numbers by value, letters
    /// without regard to case.
    @Test func emlFilesGoInInNameOrderWithNumbersByValue() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["10", "9", "B", "a", "009b", "9a"] {
            try Self.write("Subject: \(name)\n\nx\n", to: directory.appendingPathComponent("\(name).eml"))
        }
        let store = Self.store()
        let seeded = try store.seed(user: "alice", mailbox: "INBOX", from: .emlDirectory(directory))
        let subjects = seeded.map { message in
            String(decoding: store.rawMessage(user: "alice", mailbox: "INBOX", uid: message.uid) ?? [], as: UTF8.self)
                .split(separator: "\r\n").first.map { String($0.dropFirst("Subject: ".count)) } ?? ""
        }
        #expect(subjects == ["9", "9a", "009b", "10", "a", "B"])
    }

    /// A seed that is not JSON, or names a UID out of range, is refused with where and why.
    @Test func jsonSeedErrorsSayWhereAndWhy() throws {
        let store = Self.store()
        #expect {
            try store.seed(user: "alice", mailbox: "INBOX", from: .jsonData(Data(#"{"users": [1,}"#.utf8)))
        } throws: { error in
            "\(error)".contains("the JSON seed is not valid JSON: ") && "\(error)".contains(" at byte 13")
        }
        #expect {
            try store.seed(
                user: "alice", mailbox: "INBOX",
                from: .jsonData(Data(#"[{"raw": "Subject: x\n\nx\n", "uid": 0}]"#.utf8)))
        } throws: { error in
            "\(error)".contains("[0].uid must be a whole number from 1 to 4294967295")
        }
        #expect {
            try store.seed(
                user: "alice", mailbox: "INBOX",
                from: .jsonData(Data(#"{"mailboxes": [{"name": "Big", "uidValidity": 1.5}]}"#.utf8)))
        } throws: { error in
            "\(error)".contains("mailboxes[0].uidValidity must be a whole number from 1 to 4294967295")
        }
    }

    @Test func demoMailboxHasTheDesignDocumentsAndVariety() async throws {
        let now = 1_733_000_000
        let messages = DemoMailbox.messages(now: now)
        #expect(messages.count == DemoMailbox.generatedCount + 21)
        #expect(DemoMailbox.messages(now: now).map(\.bytes) == messages.map(\.bytes))  // deterministic
        let server = try await startServer()
        try DemoMailbox.seed(into: server.store, user: "alice", now: now)
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(try await client.numbers("a", "UID SEARCH SUBJECT \"Team meeting at 3 PM\"").count == 1)
        #expect(try await client.numbers("b", "UID SEARCH FROM amazon.com").count >= 2)
        #expect(try await client.numbers("c", "UID SEARCH FROM \"Albus Dumbledore\"").count == 2)
        #expect(try await client.numbers("d", "UID SEARCH SUBJECT \"Battle of Hogwarts\" SEEN").count == 1)
        #expect(try await client.numbers("e", "UID SEARCH FROM \"Jürgen\"").count >= 1)
        #expect(try await client.numbers("f", "UID SEARCH UNSEEN").count >= 10)
        #expect(try await client.numbers("g", "UID SEARCH FLAGGED").count >= 1)
        #expect(try await client.numbers("h", "UID SEARCH CHARSET UTF-8 TEXT {6}\r\n会議").count >= 1)
        let all = try await client.numbers("i", "UID SEARCH ALL")
        #expect(all.count > 150)
        #expect(try await client.numbers("j", "UID SEARCH SINCE 1-Jan-1970 BEFORE 1-Jan-2100").count == all.count)
        for mailbox in ["Sent", "Archive", "Junk"] {
            #expect(!server.store.uids(user: "alice", mailbox: mailbox).isEmpty)
        }
        await server.stop()
    }
}
