import IMAPClient
import IMAPCore
import MailMIME
import MockIMAPServer
import TestSupport
import Testing

/// FETCH of every item and STORE of flags and keywords, with CONDSTORE.
@Suite(.hangGuard) struct FetchStoreTests {
    static let multipart = Array(
        """
        From: Grace Jones <grace@apple.com>\r
        To: alice@example.com\r
        Subject: Report\r
        Date: Tue, 05 Mar 2024 14:05:00 +0000\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="outer"\r
        \r
        --outer\r
        Content-Type: text/plain; charset=utf-8\r
        Content-Transfer-Encoding: quoted-printable\r
        \r
        Gr=C3=BC=C3=9Fe, here is the report.\r
        --outer\r
        Content-Type: application/octet-stream; name="data.bin"\r
        Content-Disposition: attachment; filename="data.bin"\r
        Content-Transfer-Encoding: base64\r
        \r
        AAECAwQFBgc=\r
        --outer--\r

        """.utf8)

    static func server() async throws -> MockIMAPServer {
        let server = try await startServer()
        try server.store.seed(user: "alice", from: .raw(multipart, internalDate: dateTime(2024, 3, 6, 9)))
        try server.store.seed(user: "alice", from: .raw(Fixture.grace, flags: [.seen]))
        return server
    }

    @Test func simpleItems() async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        let size = IndexedMessage(bytes: Self.multipart).size
        #expect(
            try await client.command("a", "FETCH 1 (UID FLAGS INTERNALDATE RFC822.SIZE)")
                == [
                    #"* 1 FETCH (UID 1 FLAGS (\Recent) INTERNALDATE "06-Mar-2024 09:00:00 +0000" RFC822.SIZE \#(size))"#,
                    "a OK FETCH completed",
                ])
        // UID FETCH always carries the UID; FAST is a macro.
        let fast = try await client.command("b", "UID FETCH 2 FAST")
        #expect(fast.first?.hasPrefix("* 2 FETCH (UID 2 FLAGS (\\Seen \\Recent) INTERNALDATE ") == true)
        let envelope = try await client.fetch("c", "FETCH 1 ENVELOPE")
        let value = envelope.fetches.first?.envelope
        #expect(value?.subject == "Report")
        #expect(value?.from.first?.emailAddress == "grace@apple.com")
        #expect(value?.from.first?.name == "Grace Jones")
        await server.stop()
    }

    @Test func bodyStructureFromTheRealMIMETree() async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        let result = try await client.fetch("a", "FETCH 1 (BODYSTRUCTURE BODY)")
        guard case .multipart(let multipart)? = result.fetches.first?.bodyStructure else {
            Issue.record("no multipart BODYSTRUCTURE: \(result)")
            return
        }
        #expect(multipart.mediaSubtype.string.lowercased() == "mixed")
        #expect(multipart.parts.count == 2)
        #expect(multipart.extension != nil)
        #expect(result.fetches.first?.bodyStructure?.hasAttachment == true)
        let body = result.fetches.first?.attributes.first { if case .body = $0 { true } else { false } }
        if case .body(.multipart(let plain))? = body {
            #expect(plain.extension == nil)
        } else {
            Issue.record("no BODY")
        }
        await server.stop()
    }

    @Test func sectionsPartialsAndBinary() async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        let result = try await client.fetch(
            "a",
            "FETCH 1 (BODY.PEEK[HEADER.FIELDS (Subject From)] BODY.PEEK[HEADER.FIELDS.NOT (To Date From Subject MIME-Version Content-Type)] "
                + "BODY.PEEK[1] BODY.PEEK[1.MIME] BODY.PEEK[2] BODY.PEEK[TEXT]<0.10> BINARY.PEEK[1] BINARY.PEEK[2] "
                + "BINARY.SIZE[2] BODY.PEEK[3])")
        guard let fetch = result.fetches.first else {
            Issue.record("no FETCH")
            return
        }
        func section(_ specifier: SectionSpecifier) -> String? { fetch.bodySection(specifier)?.string }
        #expect(
            section(SectionSpecifier(kind: .headerFields(["Subject", "From"])))
                == "From: Grace Jones <grace@apple.com>\r\nSubject: Report\r\n\r\n")
        #expect(
            section(
                SectionSpecifier(
                    kind: .headerFieldsNot(["To", "Date", "From", "Subject", "MIME-Version", "Content-Type"])))
                == "\r\n")
        #expect(section(SectionSpecifier(part: [1])) == "Gr=C3=BC=C3=9Fe, here is the report.")
        #expect(section(SectionSpecifier(part: [1], kind: .mime))?.hasPrefix("Content-Type: text/plain") == true)
        #expect(section(SectionSpecifier(part: [2])) == "AAECAwQFBgc=")
        #expect(section(.text) == "This is a ".prefix(0) + "--outer\r\nC")
        var binaries: [[UInt32]: [UInt8]] = [:]
        var binarySize: UInt32?
        var origin: UInt32?
        for attribute in fetch.attributes {
            switch attribute {
            case .binary(let part, _, let data): binaries[part] = data.map { Array($0.bytes) }
            case .binarySize(_, let size): binarySize = size
            case .bodySection(.text, let start, _): origin = start
            default: break
            }
        }
        #expect(binaries[[1]] == Array("Grüße, here is the report.".utf8))
        #expect(binaries[[2]] == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(binarySize == 8)
        #expect(origin == 0)
        // A part that does not exist is "" (as Dovecot answers), not NIL.
        #expect(fetch.bodySection(SectionSpecifier(part: [3])) == "")
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [])  // PEEK: still unseen
        await server.stop()
    }

    @Test func bodyWithoutPeekSetsSeenAndReportsFlags() async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        let before = server.store.modificationSequence(user: "alice", mailbox: "INBOX", uid: 1)!
        let result = try await client.fetch("a", "FETCH 1 BODY[HEADER]")
        #expect(result.fetches.first?.flags == [.seen, .recent])
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [.seen])
        #expect(server.store.modificationSequence(user: "alice", mailbox: "INBOX", uid: 1)! > before)
        // RFC822 and RFC822.TEXT set it too; RFC822.HEADER does not.
        try server.store.setFlags([], user: "alice", mailbox: "INBOX", uid: 2)
        let header = try await client.fetch("b", "FETCH 2 RFC822.HEADER")
        #expect(header.fetches.first?.flags == nil)
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 2) == [])
        let whole = try await client.fetch("c", "FETCH 2 RFC822")
        let rfc822 = whole.fetches.first?.attributes.compactMap { if case .rfc822(let data) = $0 { data } else { nil } }
        #expect(rfc822?.first?.bytes.elementsEqual(Fixture.grace) == true)
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 2) == [.seen])
        await server.stop()
    }

    @Test func previewModseqAndChangedSince() async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        let result = try await client.fetch("a", "FETCH 1:2 (PREVIEW MODSEQ)")
        #expect(result.fetches.first?.preview?.string.hasPrefix("Grüße, here is the report.") == true)
        let first = result.fetches.first?.modificationSequence ?? 0
        #expect(first == server.store.modificationSequence(user: "alice", mailbox: "INBOX", uid: 1))
        try await client.command("b", "STORE 2 +FLAGS.SILENT (\\Flagged)")
        let changed = try await client.fetch("c", "UID FETCH 1:* (FLAGS) (CHANGEDSINCE \(first))")
        #expect(changed.fetches.map(\.uid) == [2])
        #expect(
            changed.fetches.first?.modificationSequence
                == server.store.modificationSequence(user: "alice", mailbox: "INBOX", uid: 2))
        await server.stop()
    }

    @Test func storeFlagsAndKeywords() async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(
            try await client.command("a", "STORE 1 +FLAGS (\\Flagged $Pinned)")
                == [
                    #"* FLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned)"#,
                    #"* OK [PERMANENTFLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned \*)] Flags permitted"#,
                    #"* 1 FETCH (FLAGS (\Flagged $Pinned \Recent))"#,
                    "a OK STORE completed",
                ])
        #expect(
            try await client.command("b", "UID STORE 1 -FLAGS ($Pinned)")
                == [#"* 1 FETCH (UID 1 FLAGS (\Flagged \Recent))"#, "b OK STORE completed"])
        #expect(
            try await client.command("c", "STORE 1:2 FLAGS (\\Answered)")
                == [
                    #"* 1 FETCH (FLAGS (\Answered \Recent))"#, #"* 2 FETCH (FLAGS (\Answered \Recent))"#,
                    "c OK STORE completed",
                ])
        #expect(try await client.command("d", "STORE 1 +FLAGS.SILENT (\\Seen)") == ["d OK STORE completed"])
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [.answered, .seen])
        #expect(try await client.command("e", "STORE 1 +FLAGS (\\Recent)").tagged.hasPrefix("e BAD \\Recent"))
        #expect(
            try await client.command("f", "STORE 1 +FLAGS (\\Bogus)").tagged.hasPrefix(
                "f BAD \\Bogus is not a system flag"))
        #expect(try await client.command("g", "STORE 1 +FLAGS (a]b)").tagged.hasPrefix("g BAD "))
        #expect(
            try await client.command("h", "STORE 5 +FLAGS (x)").tagged.hasPrefix(
                "h BAD invalid message sequence number 5"))
        // A new keyword is announced with FLAGS and PERMANENTFLAGS.
        let keyword = try await client.command("i", "STORE 2 +FLAGS (Work)")
        #expect(keyword.contains(#"* FLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned Work)"#))
        await server.stop()
    }

    @Test func everyChangeBumpsTheModificationSequence() async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        _ = try await client.command("e", "ENABLE CONDSTORE")
        var last = server.store.highestModificationSequence(user: "alice", mailbox: "INBOX")!
        for (index, command) in ["STORE 1 +FLAGS (\\Seen)", "STORE 1 -FLAGS (\\Seen)", "STORE 1:2 +FLAGS (x1)"]
            .enumerated()
        {
            let lines = try await client.command("s\(index)", command)
            let highest = server.store.highestModificationSequence(user: "alice", mailbox: "INBOX")!
            #expect(highest == last + 1, "\(command)")
            #expect(lines.first { $0.contains(" FETCH ") }?.contains("MODSEQ (\(highest))") == true, "\(lines)")
            last = highest
        }
        // A STORE that changes nothing changes no mod-sequence.
        _ = try await client.command("n", "STORE 1 +FLAGS (x1)")
        #expect(server.store.highestModificationSequence(user: "alice", mailbox: "INBOX") == last)
        await server.stop()
    }

    @Test func unchangedSinceRefusesMessagesChangedSince() async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        let first = server.store.modificationSequence(user: "alice", mailbox: "INBOX", uid: 1)!
        // Another client changes message 2 after we read its mod-sequence.
        let stale = server.store.modificationSequence(user: "alice", mailbox: "INBOX", uid: 2)!
        try server.store.setFlags([.flagged], user: "alice", mailbox: "INBOX", uid: 2)
        let lines = try await client.command("a", "UID STORE 1:2 (UNCHANGEDSINCE \(max(first, stale))) +FLAGS (\\Seen)")
        #expect(lines.tagged == "a OK [MODIFIED 2] Conditional STORE failed")
        #expect(lines.contains { $0.hasPrefix("* 1 FETCH (UID 1 FLAGS (\\Seen \\Recent) MODSEQ (") })
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 2) == [.flagged])
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [.seen])
        // IMAPClient's store reports the refused UIDs.
        let session = try await server.session()
        let result = try await session.store(SequenceSet(numbers: [1, 2]), .add, ["$Done"], unchangedSince: 1)
        #expect(result.refused == SequenceSet(numbers: [1, 2]))
        await session.logout()
        await server.stop()
    }

    @Test func clientFetchStreamsMessages() async throws {
        let server = try await Self.server()
        let session = try await server.session()
        var seen: [UInt32: ByteString?] = [:]
        for try await fetch in session.fetch(
            SequenceSet(numbers: [1, 2]),
            items: [.envelope, .bodySection(peek: false, section: .complete, partial: nil)])
        {
            seen[fetch.uid ?? 0] = fetch.bodySection(.complete)
        }
        #expect(seen.count == 2)
        #expect(seen[2]??.bytes.elementsEqual(Fixture.grace) == true)
        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 1) == [])  // IMAPClient peeks
        await session.logout()
        await server.stop()
    }
}
