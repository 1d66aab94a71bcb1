import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// Keywords (RFC 3501 2.3.2, 7.2.6): a session hears of a keyword in `* FLAGS` (and
/// `* OK [PERMANENTFLAGS ...]`) before any FETCH shows it, whoever introduced it (its own STORE,
/// another session's STORE or APPEND, the test API) and whenever it hears (a command's answer,
/// NOOP, IDLE); SELECT and EXAMINE list every keyword in use.
@Suite(.hangGuard) struct KeywordTests {
    /// What one session has been told: the flags of the last `* FLAGS`.
    struct Listener {
        var known: Set<String> = []
        var problems: [String] = []

        /// Reads `lines` in order; notes a FETCH whose FLAGS hold a keyword not announced, and a
        /// `* FLAGS` not followed by PERMANENTFLAGS.
        mutating func read(_ lines: [String]) {
            for (index, line) in lines.enumerated() {
                if line.hasPrefix("* FLAGS (") {
                    known = Set(Self.flags(in: line, after: "* FLAGS ("))
                    let next = index + 1 < lines.count ? lines[index + 1] : ""
                    if !next.hasPrefix("* OK [PERMANENTFLAGS (") { problems.append("no PERMANENTFLAGS after \(line)") }
                } else if line.hasPrefix("* "), line.contains(" FETCH ("), line.contains("FLAGS (") {
                    for flag in Self.flags(in: line, after: "FLAGS (")
                    where !flag.hasPrefix("\\") && !known.contains(flag) {
                        problems.append("\(flag) used before a FLAGS listed it: \(line)")
                    }
                }
            }
        }

        static func flags(in line: String, after marker: String) -> [String] {
            guard let start = line.range(of: marker) else { return [] }
            let rest = line[start.upperBound...]
            return rest.prefix { $0 != ")" }.split(separator: " ").map(String.init)
        }
    }

    @Test func selectListsEveryKeywordInUse() async throws {
        let server = try await startServer()
        try server.store.seed(user: "alice", from: .raw(message(subject: "a"), flags: ["$Pinned", .seen]))
        try server.store.seed(user: "alice", from: .raw(message(subject: "b"), flags: ["Work", "$Pinned"]))
        let client = try await server.rawClient()
        let select = try await client.selectInbox()
        #expect(select.contains(#"* FLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned Work)"#))
        #expect(
            select.contains(
                #"* OK [PERMANENTFLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned Work \*)] Flags permitted"#))
        let examine = try await client.command("e", "EXAMINE INBOX")
        #expect(examine.contains(#"* FLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned Work)"#))
        #expect(examine.contains("* OK [PERMANENTFLAGS ()] No permanent flags permitted"))
        await server.stop()
    }

    @Test func ownStoreAnnouncesANewKeywordBeforeItsFetch() async throws {
        let server = try await startServer()
        try server.store.seed(user: "alice", from: .raw(message(subject: "a")))
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(
            try await client.command("a", "STORE 1 +FLAGS ($Todo)") == [
                #"* FLAGS (\Answered \Flagged \Deleted \Seen \Draft $Todo)"#,
                #"* OK [PERMANENTFLAGS (\Answered \Flagged \Deleted \Seen \Draft $Todo \*)] Flags permitted"#,
                #"* 1 FETCH (FLAGS ($Todo \Recent))"#, "a OK STORE completed",
            ])
        // Known now: no second announcement.
        #expect(
            try await client.command("b", "STORE 1 FLAGS ($Todo \\Seen)") == [
                #"* 1 FETCH (FLAGS ($Todo \Seen \Recent))"#, "b OK STORE completed",
            ])
        await server.stop()
    }

    /// Two sessions on INBOX, one of them read-only, one idling; keywords arrive by STORE, APPEND
    /// and the test API. Every line each session reads passes the `Listener`.
    @Test func everySessionHearsOfAKeywordBeforeAFetchShowsIt() async throws {
        let server = try await startServer()
        try server.store.seed(user: "alice", from: .raw(message(subject: "a")))
        try server.store.seed(user: "alice", from: .raw(message(subject: "b"), flags: ["Old"]))
        let writer = try await server.rawClient()
        let reader = try await server.rawClient()
        let idler = try await server.rawClient()
        var readerView = Listener()
        var idlerView = Listener()
        _ = try await writer.selectInbox()
        readerView.read(try await reader.selectInbox(readOnly: true))
        idlerView.read(try await idler.selectInbox())
        #expect(readerView.known.contains("Old"))
        try await idler.send("i IDLE\r\n")
        #expect(try await idler.readLine() == "+ idling")

        // Another session's STORE: the idler hears FLAGS, PERMANENTFLAGS, then the FETCH.
        _ = try await writer.command("w1", "STORE 1 +FLAGS (Urgent)")
        var idled = [try await idler.readLine(), try await idler.readLine(), try await idler.readLine()]
        #expect(idled.last == "* 1 FETCH (UID 1 FLAGS (Urgent))")
        // The reader's FETCH answers with the keyword: FLAGS comes first, read-only PERMANENTFLAGS.
        let fetched = try await reader.command("r1", "FETCH 1 FLAGS")
        #expect(fetched.first == #"* FLAGS (\Answered \Flagged \Deleted \Seen \Draft Old Urgent)"#)
        #expect(fetched.dropFirst().first == "* OK [PERMANENTFLAGS ()] No permanent flags permitted")
        readerView.read(fetched)

        // APPEND with a new keyword.
        _ = try await writer.command("w2", "APPEND INBOX (Later) {2+}\r\nhi")
        for _ in 0..<4 { idled.append(try await idler.readLine()) }
        #expect(idled.suffix(4).first == #"* FLAGS (\Answered \Flagged \Deleted \Seen \Draft Old Urgent Later)"#)
        readerView.read(try await reader.command("r2", "FETCH 1:* FLAGS"))

        // The test API, as another client.
        try server.store.setFlags(["Api"], user: "alice", mailbox: "INBOX", uid: 2)
        for _ in 0..<3 { idled.append(try await idler.readLine()) }
        readerView.read(try await reader.command("r3", "NOOP"))
        try await idler.send("DONE\r\n")
        idled += try await idler.lines(until: "i")
        idled += try await idler.command("i2", "FETCH 1:* FLAGS")
        idlerView.read(idled)
        #expect(readerView.known.isSuperset(of: ["Old", "Urgent", "Later", "Api"]))
        #expect(idlerView.known.isSuperset(of: ["Old", "Urgent", "Later", "Api"]))
        #expect(readerView.problems == [])
        #expect(idlerView.problems == [])
        await server.stop()
    }
}
