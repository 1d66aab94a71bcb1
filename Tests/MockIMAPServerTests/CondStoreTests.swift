import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// CONDSTORE with ESEARCH (RFC 7162, RFC 4731 3.2), on the messages of the RFCs' own examples:
/// 23 messages, \Draft on 2 5 6 7 11 12 18 19 20 23, whose mod-sequences are set as the examples
/// show them (message 2: 917162488, 12: 917162500, 23: 907162321; the others without \Draft
/// below 620162338).
@Suite(.hangGuard) struct CondStoreTests {
    static let drafts: Set<UInt32> = [2, 5, 6, 7, 11, 12, 18, 19, 20, 23]

    static func server() async throws -> MockIMAPServer {
        let server = try await startServer()
        var values: [UInt32: UInt64] = [:]
        for uid in UInt32(1)...23 {
            try server.store.seed(
                user: "alice", from: .raw(message(subject: "m\(uid)"), flags: drafts.contains(uid) ? [.draft] : []))
            values[uid] = drafts.contains(uid) ? 700_000_000 + UInt64(uid) : 620_162_000 + UInt64(uid)
        }
        values[2] = 917_162_488
        values[12] = 917_162_500
        values[23] = 907_162_321
        try server.store.setModificationSequences(values, user: "alice", mailbox: "INBOX")
        return server
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let command: String
        let answer: [String]
        var testDescription: String { command }
    }

    static let examples: [Case] = [
        // RFC 7162 3.1.5, example 15.
        Case(
            command: #"SEARCH MODSEQ "/flags/\\draft" all 620162338"#,
            answer: ["* SEARCH 2 5 6 7 11 12 18 19 20 23 (MODSEQ 917162500)"]),
        // RFC 4731 3.2: MODSEQ of the message returned; of the two; of all found with COUNT.
        Case(
            command: #"SEARCH RETURN (MIN) MODSEQ "/flags/\\draft" all 620162338"#,
            answer: [#"* ESEARCH (TAG "t") MIN 2 MODSEQ 917162488"#]),
        Case(
            command: #"SEARCH RETURN (MAX) MODSEQ "/flags/\\draft" all 620162338"#,
            answer: [#"* ESEARCH (TAG "t") MAX 23 MODSEQ 907162321"#]),
        Case(
            command: #"SEARCH RETURN (MIN MAX) MODSEQ "/flags/\\draft" all 620162338"#,
            answer: [#"* ESEARCH (TAG "t") MIN 2 MAX 23 MODSEQ 917162488"#]),
        Case(
            command: #"SEARCH RETURN (MIN COUNT) MODSEQ "/flags/\\draft" all 620162338"#,
            answer: [#"* ESEARCH (TAG "t") MIN 2 COUNT 10 MODSEQ 917162500"#]),
        // ALL, UID, entry types, and nothing found (no MODSEQ then).
        Case(
            command: #"UID SEARCH RETURN (ALL) MODSEQ "/flags/\\draft" priv 907162321"#,
            answer: [#"* ESEARCH (TAG "t") UID ALL 2,12,23 MODSEQ 917162500"#]),
        Case(
            command: "UID SEARCH RETURN (MAX) 1:20 MODSEQ 620162338",
            answer: [#"* ESEARCH (TAG "t") UID MAX 20 MODSEQ 700000020"#]),
        Case(command: "SEARCH RETURN (MIN COUNT) MODSEQ 917162501", answer: [#"* ESEARCH (TAG "t") COUNT 0"#]),
        Case(command: "SEARCH MODSEQ 917162501", answer: ["* SEARCH"]),
        // FETCH MODSEQ and CHANGEDSINCE (RFC 7162 3.1.4).
        Case(
            command: "FETCH 2,23 (MODSEQ)",
            answer: ["* 2 FETCH (MODSEQ (917162488))", "* 23 FETCH (MODSEQ (907162321))"]),
        Case(
            command: "FETCH 1:* (UID) (CHANGEDSINCE 907162321)",
            answer: ["* 2 FETCH (UID 2 MODSEQ (917162488))", "* 12 FETCH (UID 12 MODSEQ (917162500))"]),
    ]

    @Test(arguments: examples) func rfcExample(_ example: Case) async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox(readOnly: true)
        let lines = try await client.command("t", example.command)
        // The first CONDSTORE-enabling command in the selected state also brings HIGHESTMODSEQ.
        #expect(lines == ["* OK [HIGHESTMODSEQ 917162500] Highest"] + example.answer + [lines.tagged])
        #expect(lines.tagged.hasPrefix("t OK "))
        await server.stop()
    }

    @Test func highestModificationSequenceComesOnceWhenACommandEnablesCondStore() async throws {
        let server = try await Self.server()
        let client = try await server.rawClient()
        _ = try await client.selectInbox()
        #expect(
            try await client.command("a", "FETCH 1 (FLAGS)") == [
                "* 1 FETCH (FLAGS (\\Recent))", "a OK FETCH completed",
            ])
        #expect(
            try await client.command("b", "FETCH 1 (MODSEQ)") == [
                "* OK [HIGHESTMODSEQ 917162500] Highest", "* 1 FETCH (MODSEQ (620162001))", "b OK FETCH completed",
            ])
        // Enabled now: STORE reports the new mod-sequence, no second HIGHESTMODSEQ.
        #expect(
            try await client.command("c", "STORE 1 +FLAGS (\\Seen)") == [
                "* 1 FETCH (FLAGS (\\Seen \\Recent) MODSEQ (917162501))", "c OK STORE completed",
            ])
        // SELECT (CONDSTORE) carries it in its own answer, once.
        let select = try await client.command("d", "SELECT INBOX (CONDSTORE)")
        #expect(select.filter { $0.contains("HIGHESTMODSEQ") } == ["* OK [HIGHESTMODSEQ 917162501] Highest"])
        await server.stop()
    }
}
