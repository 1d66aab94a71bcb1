import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// The grammar at its edges (RFC 3501 9, RFC 9051 9): every ATOM-CHAR in tags, atoms and
/// astrings, `]` where an astring allows it, list-mailbox with `~`, `%` and `*`; LIST and LSUB
/// wildcards, and LSUB's `\Noselect` parent of a subscribed mailbox that `%` stops short of
/// (RFC 3501 6.3.9).
@Suite(.hangGuard) struct GrammarEdgeTests {
    /// ATOM-CHAR = <any CHAR except atom-specials>: every printable ASCII character but
    /// `( ) { SP % * " \ ]`. Without `/`, the hierarchy delimiter.
    static let atomCharacters = "!#$&'+,-.0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ^_`abcdefghijklmnopqrstuvwxyz|}~"

    @Test func everyAtomCharacterInTagsMailboxesKeywordsAndFieldNames() async throws {
        let server = try await startServer()
        try server.store.seed(
            user: "alice", from: .raw(message(subject: "x", extraHeaders: "X-~!#$&'+-.^_`|}: odd\r\n")))
        let client = try await server.rawClient()
        try await client.login()
        // tag = 1*<any ASTRING-CHAR except "+">: every ATOM-CHAR but "+", and "]".
        let tag = Self.atomCharacters.replacingOccurrences(of: "+", with: "") + "]"
        #expect(try await client.command(tag, "NOOP") == ["\(tag) OK NOOP completed"])
        // mailbox = astring: every ATOM-CHAR and "]", unquoted; list-mailbox: with wildcards.
        let mailbox = "~" + Self.atomCharacters + "]"
        #expect(try await client.command("c", "CREATE \(mailbox)") == ["c OK CREATE completed"])
        let listed = #"* LIST (\HasNoChildren) "/" "# + mailbox
        #expect(try await client.command("l1", "LIST \"\" \(mailbox)").first == listed)
        #expect(try await client.command("l2", "LIST \"\" ~!#*]").first == listed)
        #expect(try await client.command("l3", "LIST ~!# %]").first == listed)
        #expect(try await client.command("s", "STATUS \(mailbox) (MESSAGES)").tagged == "s OK STATUS completed")
        #expect(try await client.command("e", "EXAMINE \(mailbox)").tagged.hasPrefix("e OK [READ-ONLY]"))
        // flag-keyword = atom.
        _ = try await client.command("i", "SELECT INBOX")
        let keyword = Self.atomCharacters
        let stored = try await client.command("k", "STORE 1 +FLAGS (\(keyword))")
        #expect(stored.contains("* 1 FETCH (FLAGS (\(keyword) \\Recent))"), "\(stored)")
        #expect(try await client.numbers("f", "SEARCH KEYWORD \(keyword)") == [1])
        #expect(try await client.numbers("g", "SEARCH UNKEYWORD \(keyword)") == [])
        // header-fld-name = astring.
        #expect(try await client.numbers("h", "SEARCH HEADER X-~!#$&'+-.^_`|} odd") == [1])
        try await client.send("b FETCH 1 (BODY.PEEK[HEADER.FIELDS (X-~!#$&'+-.^_`|})])\r\n")
        let field = "X-~!#$&'+-.^_`|}: odd\r\n\r\n"
        let frame = String(decoding: try await client.readFrame(), as: UTF8.self)
        #expect(frame == "* 1 FETCH (BODY[HEADER.FIELDS (X-~!#$&'+-.^_`|})] {\(field.utf8.count)}\r\n\(field))\r\n")
        // What an atom does not allow.
        for (index, bad) in ["a]b", "a%b", "a*b", "a\\\\b"].enumerated() {
            #expect(try await client.command("x\(index)", "STORE 1 +FLAGS (\(bad))").tagged.hasPrefix("x\(index) BAD"))
        }
        await server.stop()
    }

    /// box, box/test, box/test2 (unsubscribed, with box/test2/test), box/test3 (unsubscribed,
    /// with box/test3/test3), ~user/mail; subscribed: box/test, box/test2/test, box/test3/test3,
    /// ~user/mail, and gone/child (which does not exist).
    static func hierarchy() async throws -> (MockIMAPServer, RawClient) {
        let server = try await startServer()
        let client = try await server.rawClient()
        try await client.login()
        for name in ["box/", "box/test", "box/test2/", "box/test3/", "box/test2/test", "box/test3/test3", "~user/mail"]
        {
            #expect(try await client.command("c", "CREATE \(name)").tagged == "c OK CREATE completed", "\(name)")
        }
        for name in ["box/test", "box/test2/test", "box/test3/test3", "~user/mail"] {
            #expect(try await client.command("s", "SUBSCRIBE \(name)").tagged == "s OK SUBSCRIBE completed")
        }
        _ = try await client.command("c", "CREATE gone/child")
        _ = try await client.command("s", "SUBSCRIBE gone/child")
        _ = try await client.command("d", "DELETE gone/child")
        return (server, client)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let command: String
        let lines: [String]
        var testDescription: String { command }
    }

    /// The mailboxes every account starts with, subscribed.
    static let defaultSubscriptions = ["INBOX", "Archive", "Drafts", "Junk", "Sent", "Trash"].map {
        #"* LSUB () "/" "# + $0
    }

    static let listings: [Case] = [
        // %: one level; the parents that % stops at, \Noselect when not subscribed themselves.
        Case(
            command: #"LSUB "" box/%"#,
            lines: [
                #"* LSUB () "/" box/test"#, #"* LSUB (\Noselect) "/" box/test2"#, #"* LSUB (\Noselect) "/" box/test3"#,
            ]
        ),
        Case(
            command: #"LSUB "" %"#,
            lines: defaultSubscriptions + [
                #"* LSUB (\Noselect) "/" box"#, #"* LSUB (\Noselect) "/" gone"#, #"* LSUB (\Noselect) "/" ~user"#,
            ]),
        Case(command: #"LSUB box/ %/%"#, lines: [#"* LSUB () "/" box/test2/test"#, #"* LSUB () "/" box/test3/test3"#]),
        // *: every level, no parents; a subscribed name that is gone is \Noselect.
        Case(
            command: #"LSUB "" *test"#, lines: [#"* LSUB () "/" box/test"#, #"* LSUB () "/" box/test2/test"#]),
        Case(
            command: #"LSUB "" *"#,
            lines: defaultSubscriptions + [
                #"* LSUB () "/" box/test"#, #"* LSUB () "/" box/test2/test"#, #"* LSUB () "/" box/test3/test3"#,
                #"* LSUB (\Noselect) "/" gone/child"#, #"* LSUB () "/" ~user/mail"#,
            ]),
        Case(command: #"LSUB "" ~user/%"#, lines: [#"* LSUB () "/" ~user/mail"#]),
        Case(command: #"LSUB "" nothing%"#, lines: []),
        // LIST: % does not cross the delimiter, * does; the reference is prefixed.
        Case(
            command: #"LIST "" box/%"#,
            lines: [
                #"* LIST (\HasNoChildren) "/" box/test"#, #"* LIST (\HasChildren) "/" box/test2"#,
                #"* LIST (\HasChildren) "/" box/test3"#,
            ]),
        Case(
            command: #"LIST "" box/%/%"#,
            lines: [#"* LIST (\HasNoChildren) "/" box/test2/test"#, #"* LIST (\HasNoChildren) "/" box/test3/test3"#]),
        Case(
            command: #"LIST box/ *3"#,
            lines: [#"* LIST (\HasChildren) "/" box/test3"#, #"* LIST (\HasNoChildren) "/" box/test3/test3"#]),
        Case(command: #"LIST "" box/%3/%3"#, lines: [#"* LIST (\HasNoChildren) "/" box/test3/test3"#]),
        Case(command: #"LIST "" box/%t*2"#, lines: [#"* LIST (\HasChildren) "/" box/test2"#]),
        Case(command: #"LIST "" ~%"#, lines: [#"* LIST (\HasChildren) "/" ~user"#]),
        Case(command: #"LIST "" "~user/*""#, lines: [#"* LIST (\HasNoChildren) "/" ~user/mail"#]),
        Case(command: #"LIST "" """#, lines: [#"* LIST (\Noselect) "/" """#]),
    ]

    @Test(arguments: listings) func listAndLsubWildcards(_ listing: Case) async throws {
        let (server, client) = try await Self.hierarchy()
        let lines = try await client.command("t", listing.command)
        #expect(Array(lines.dropLast()) == listing.lines)
        #expect(lines.tagged.hasPrefix("t OK"))
        await server.stop()
    }
}
