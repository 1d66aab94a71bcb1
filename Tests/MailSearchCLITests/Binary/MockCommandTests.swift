import Foundation
import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// The built `mailsearch` against the mock server, over TLS (`--ca-file` with its certificate)
/// and over plain text on loopback (`--tls none --insecure-plaintext`): each command's output
/// with colours off, and as JSON.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct MockCommandTests {
    enum Transport: String, CaseIterable, Sendable {
        case tls, plain
    }

    func arguments(_ account: MockAccount, _ transport: Transport) -> [String] {
        transport == .tls ? account.tlsArguments : account.plainArguments
    }

    @Test(arguments: Transport.allCases)
    func searchPrintsRowsAndJSON(transport: Transport) async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let json = try await ToolProcess.run(
            arguments(account, transport) + ["search", "--json", "from:dumbledore"], environment: account.environment)
        #expect(json.status == 0, "\(json)")
        #expect(json.standardError.isEmpty, "\(json)")
        #expect(json.lines.count == 2)
        for line in json.lines { #expect(topLevelKeys(line) == emailKeys, "\(line)") }
        let first = try jsonObject(try #require(json.lines.first))
        #expect(first["subject"] as? String == "About Nicolas Flamel")
        #expect(first["date"] as? String == "2024-03-15T20:25:00Z")
        #expect(first["read"] as? Bool == false)
        #expect(first["pinned"] as? Bool == false)
        #expect(first["flags"] as? [String] == [])
        #expect(first["mailbox"] as? String == "INBOX")
        let from = try #require(first["from"] as? [String: Any])
        #expect(from["name"] as? String == "Albus Dumbledore")
        #expect(from["address"] as? String == "albus.dumbledore@hogwarts.example")
        let to = try #require(first["to"] as? [[String: Any]])
        #expect(to.first?["address"] as? String == "harry.potter@hogwarts.example")
        #expect(
            json.lines[0].contains(#""preview":"To the well-organized mind, death is but the next great adventure.""#))
        let second = try jsonObject(json.lines[1])
        #expect(second["subject"] as? String == "Thing about pain")
        let uids = [first["uid"] as? Int ?? 0, second["uid"] as? Int ?? 0]
        #expect(uids[0] > uids[1])

        let rows = try await ToolProcess.run(
            arguments(account, transport) + ["search", "from:dumbledore"], environment: account.environment)
        #expect(rows.status == 0, "\(rows)")
        #expect(
            rows.lines == [
                "  ● \(uids[0])  2024-03-15  Albus Dumbledore        About Nicolas Flamel  "
                    + "To the well-organized mind, death is but the next great adventure.",
                "  ● \(uids[1])  2024-03-14  Albus Dumbledore        Thing about pain  "
                    + "Numbing the pain for a while will make it worse when you finally feel it",
            ])
        #expect(!rows.standardOutput.contains("\u{1B}"))
    }

    /// The built tool links FoundationEssentials only, where `TimeZone.current` is always GMT:
    /// rows take the local offset from the C library, at each message's own moment. The zone is
    /// a POSIX rule (no zone database needed): UTC in winter, UTC+5 from March to October, so
    /// "About Nicolas Flamel" (20:25 UTC on 15 March 2024) is on the 16th locally, which neither
    /// GMT nor today's (December's) offset would show.
    @Test func rowDatesAreInTheLocalZoneAtEachMessagesMoment() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        var environment = account.environment
        environment["TZ"] = "WIN+0SUM-5,M3.1.0/0,M10.5.0"
        let rows = try await ToolProcess.run(
            account.tlsArguments + ["search", "from:dumbledore"], environment: environment)
        #expect(rows.status == 0, "\(rows)")
        let first = try #require(rows.lines.first)
        #expect(first.contains("  2024-03-16  Albus Dumbledore        About Nicolas Flamel"), "\(first)")
        let json = try await ToolProcess.run(
            account.tlsArguments + ["search", "--json", "subject:Flamel"], environment: environment)
        #expect(json.standardOutput.contains(#""date":"2024-03-15T20:25:00Z""#), "\(json)")
    }

    @Test func severalArgumentsAreOneQueryAndDashDashAllowsALeadingMinus() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let joined = try await ToolProcess.run(
            account.tlsArguments + ["search", "--json", "from:dumbledore", "is:unread", "pain"],
            environment: account.environment)
        #expect(joined.status == 0, "\(joined)")
        #expect(joined.lines.count == 1)
        #expect(joined.standardOutput.contains(#""subject":"Thing about pain""#))

        let negated = try await ToolProcess.run(
            account.tlsArguments + ["search", "--json", "--limit", "500", "--", "-is:read", "from:dumbledore"],
            environment: account.environment)
        #expect(negated.status == 0, "\(negated)")
        #expect(negated.lines.count == 2)

        let withoutDashes = try await ToolProcess.run(
            account.tlsArguments + ["search", "-is:read"], environment: account.environment)
        #expect(withoutDashes.status == 64)
        #expect(withoutDashes.errorLines.count == 1)
        #expect(withoutDashes.standardError.hasPrefix("error: unknown option \"-is:read\""))
    }

    @Test func emptyResultSaysSoAndExitsZero() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let rows = try await ToolProcess.run(
            account.tlsArguments + ["search", "from:nobody-at-all", "  subject:zzz"], environment: account.environment)
        #expect(rows.status == 0, "\(rows)")
        #expect(rows.standardOutput == "No messages match \"from:nobody-at-all subject:zzz\".\n")
        let json = try await ToolProcess.run(
            account.tlsArguments + ["search", "--json", "from:nobody-at-all"], environment: account.environment)
        #expect(json.status == 0)
        #expect(json.standardOutput.isEmpty)
    }

    @Test func listShowsTheNewestWithPinnedFirstAndRespectsTheLimit() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let all = try await ToolProcess.run(
            account.tlsArguments + ["list", "--json", "--limit", "20000"], environment: account.environment)
        #expect(all.status == 0, "\(all)")
        let count = account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").count
        #expect(all.lines.count == count)
        let uids = try all.lines.map { try jsonObject($0)["uid"] as? Int ?? 0 }
        let pinned = try all.lines.filter { try jsonObject($0)["pinned"] as? Bool == true }.count
        // Pinned ones first, then the rest, each newest first (by UID, the arrival order).
        #expect(Array(uids[..<pinned]) == uids[..<pinned].sorted(by: >))
        #expect(Array(uids[pinned...]) == uids[pinned...].sorted(by: >))

        // `-n 5` is the inbox's first five rows, whatever was scrolled past: every pinned message
        // first. Pinned from another connection, the third newest message is among them.
        let newest = uids.sorted(by: >)
        let third = newest[2]
        let session = try await account.otherConnection()
        try await session.select("INBOX")
        try await session.store(SequenceSet(numbers: [UInt32(third)]), .add, [.flagged])
        await session.logout()
        let five = try await ToolProcess.run(
            account.tlsArguments + ["list", "--json", "-n", "5"], environment: account.environment)
        #expect(five.status == 0, "\(five)")
        let shown = try five.lines.map { try jsonObject($0) }
        let pinnedNow = Set(uids[..<pinned] + [third])
        let inboxOrder = newest.filter(pinnedNow.contains) + newest.filter { !pinnedNow.contains($0) }
        #expect(shown.compactMap { $0["uid"] as? Int } == Array(inboxOrder.prefix(5)))
        #expect(shown.allSatisfy { $0["pinned"] as? Bool == true } == (pinnedNow.count >= 5))

        let rows = try await ToolProcess.run(
            account.tlsArguments + ["list", "--limit", "3"], environment: account.environment)
        #expect(rows.status == 0)
        #expect(rows.lines.count == 3)
        #expect(rows.standardError.isEmpty, "no progress bar when stderr is not a terminal")
    }

    @Test func showPrintsHeadersAndTextAndLeavesTheMessageUnread() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let found = try await ToolProcess.run(
            account.tlsArguments + ["search", "--json", "subject:\"About Nicolas Flamel\""],
            environment: account.environment)
        let uid = UInt32(try jsonObject(try #require(found.lines.first))["uid"] as? Int ?? 0)
        let shown = try await ToolProcess.run(
            account.tlsArguments + ["show", "\(uid)"], environment: account.environment)
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.lines.contains("From: Albus Dumbledore <albus.dumbledore@hogwarts.example>"))
        #expect(shown.lines.contains("To: Harry Potter <harry.potter@hogwarts.example>"))
        #expect(shown.lines.contains("Subject: About Nicolas Flamel"))
        #expect(shown.lines.contains { $0.hasPrefix("Date: ") })
        #expect(shown.standardOutput.contains("\n\nTo the well-organized mind, death is but the next great adventure."))
        #expect(try await account.flagsReadBack([uid])[uid] == [])

        let json = try await ToolProcess.run(
            account.tlsArguments + ["show", "--json", "\(uid)"], environment: account.environment)
        #expect(json.status == 0)
        #expect(topLevelKeys(try #require(json.lines.first)) == emailKeys + ["text", "attachments"])
        #expect(
            try jsonObject(json.lines[0])["text"] as? String
                == "To the well-organized mind, death is but the next great adventure.\n")
        #expect((try jsonObject(json.lines[0])["attachments"] as? [Any])?.isEmpty == true)

        let missing = try await ToolProcess.run(
            account.tlsArguments + ["show", "999999"], environment: account.environment)
        #expect(missing.status == 1)
        #expect(
            missing.errorLines == [
                "error: there is no message with UID 999999 in INBOX; \"mailsearch list\" shows the UIDs"
            ])
    }

    @Test(arguments: Transport.allCases)
    func readUnreadPinUnpinAreReadBackOverAnotherConnection(transport: Transport) async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uids = account.server.store.uids(user: MockAccount.user, mailbox: "INBOX")
        let chosen = [uids[3], uids[4], uids[5], uids[9]]
        for uid in chosen { try account.server.store.setFlags([], user: MockAccount.user, mailbox: "INBOX", uid: uid) }
        let set = "\(chosen[0]):\(chosen[2])"
        let base = arguments(account, transport)

        let read = try await ToolProcess.run(base + ["read", set, "\(chosen[3])"], environment: account.environment)
        #expect(read.status == 0, "\(read)")
        #expect(read.standardOutput == "Marked 4 messages read: \(chosen[0]):\(chosen[2]),\(chosen[3])\n")
        var flags = try await account.flagsReadBack(chosen)
        #expect(chosen.allSatisfy { flags[$0] == [.seen] }, "\(flags)")

        let pin = try await ToolProcess.run(base + ["pin", "\(chosen[1])"], environment: account.environment)
        #expect(pin.status == 0, "\(pin)")
        #expect(pin.standardOutput == "Pinned 1 message: \(chosen[1])\n")
        flags = try await account.flagsReadBack(chosen)
        #expect(flags[chosen[1]] == [.seen, .flagged])

        let unread = try await ToolProcess.run(
            base + ["unread", "\(chosen[0]),\(chosen[1])"], environment: account.environment)
        #expect(unread.status == 0, "\(unread)")
        flags = try await account.flagsReadBack(chosen)
        #expect(flags[chosen[0]] == [])
        #expect(flags[chosen[1]] == [.flagged])
        #expect(flags[chosen[2]] == [.seen])

        let unpin = try await ToolProcess.run(base + ["unpin", "\(chosen[1])"], environment: account.environment)
        #expect(unpin.status == 0, "\(unpin)")
        #expect(unpin.standardOutput == "Unpinned 1 message: \(chosen[1])\n")
        flags = try await account.flagsReadBack(chosen)
        #expect(flags[chosen[1]] == [])
    }

    @Test func pinWithAKeywordFromTheCommandLine() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uid = try #require(account.server.store.uids(user: MockAccount.user, mailbox: "INBOX").first)
        let pin = try await ToolProcess.run(
            account.tlsArguments + ["--pin-flag", "$Pinned", "pin", "\(uid)"], environment: account.environment)
        #expect(pin.status == 0, "\(pin)")
        #expect(try await account.flagsReadBack([uid])[uid]?.contains("$Pinned") == true)
        let pinned = try await ToolProcess.run(
            account.tlsArguments + ["--pin-flag", "$Pinned", "search", "--json", "is:pinned"],
            environment: account.environment)
        let store = account.server.store
        let keywordPinned = store.uids(user: MockAccount.user, mailbox: "INBOX").filter {
            store.flags(user: MockAccount.user, mailbox: "INBOX", uid: $0)?.contains("$Pinned") == true
        }
        let objects = try pinned.lines.map(jsonObject)
        #expect(Set(objects.compactMap { $0["uid"] as? Int }) == Set(keywordPinned.map(Int.init)))
        #expect(objects.contains { $0["uid"] as? Int == Int(uid) })
        #expect(objects.allSatisfy { $0["pinned"] as? Bool == true })
    }

    @Test func uidsThatDoNotExistAreAnError() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let result = try await ToolProcess.run(
            account.tlsArguments + ["read", "999999"], environment: account.environment)
        #expect(result.status == 1)
        #expect(
            result.errorLines == [
                "error: there is no message with UID 999999 in INBOX; \"mailsearch list\" shows the UIDs"
            ])
        let malformed = try await ToolProcess.run(
            account.tlsArguments + ["pin", "12-14"], environment: account.environment)
        #expect(malformed.status == 64)
        #expect(malformed.errorLines.count == 1)
        #expect(malformed.standardError.hasPrefix("error: \"12-14\" is not a UID or UID set"))
    }

    @Test func mailboxesWithCounts() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let inbox = account.server.store.uids(user: MockAccount.user, mailbox: "INBOX")
        let unread = inbox.filter {
            !(account.server.store.flags(user: MockAccount.user, mailbox: "INBOX", uid: $0) ?? []).contains(.seen)
        }
        let json = try await ToolProcess.run(
            account.tlsArguments + ["mailboxes", "--json"], environment: account.environment)
        #expect(json.status == 0, "\(json)")
        let objects = try json.lines.map(jsonObject)
        let names = objects.compactMap { $0["name"] as? String }
        #expect(Set(names) == ["INBOX", "Sent", "Drafts", "Trash", "Junk", "Archive"])
        let inboxObject = try #require(objects.first { $0["name"] as? String == "INBOX" })
        #expect(inboxObject["messages"] as? Int == inbox.count)
        #expect(inboxObject["unread"] as? Int == unread.count)
        let rows = try await ToolProcess.run(account.tlsArguments + ["mailboxes"], environment: account.environment)
        #expect(rows.lines.contains("INBOX    \(inbox.count) messages, \(unread.count) unread"), "\(rows)")
    }

    /// Names are shown decoded from modified UTF-7; JSON keeps the wire name beside it.
    @Test func mailboxesShowInternationalNamesDecoded() async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        try account.server.store.createMailbox("Entwürfe", user: MockAccount.user)
        try account.server.store.createMailbox("台北", user: MockAccount.user)
        let rows = try await ToolProcess.run(account.tlsArguments + ["mailboxes"], environment: account.environment)
        #expect(rows.status == 0, "\(rows)")
        #expect(rows.lines.contains { $0.hasPrefix("Entwürfe ") }, "\(rows)")
        #expect(rows.lines.contains { $0.hasPrefix("台北 ") }, "\(rows)")
        #expect(!rows.standardOutput.contains("&APw-"), "\(rows)")
        let json = try await ToolProcess.run(
            account.tlsArguments + ["mailboxes", "--json"], environment: account.environment)
        let objects = try json.lines.map(jsonObject)
        let drafts = try #require(objects.first { $0["displayName"] as? String == "Entwürfe" }, "\(json)")
        #expect(drafts["name"] as? String == "Entw&APw-rfe")
    }

    @Test func oauth2TokenCommandLogsInWithXOAUTH2() async throws {
        let token = "ya29.token-\(UUID().uuidString)"
        let account = try await MockAccount.start(oauth2Token: token)
        defer { Task { await account.stop() } }
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = nil
        let result = try await ToolProcess.run(
            account.tlsArguments + [
                "--oauth2-token-command", "echo \(token)", "--debug", "search", "--json", "from:luna",
            ],
            environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 1)
        #expect(result.standardError.contains("AUTHENTICATE XOAUTH2"))
        #expect(!result.standardError.contains(token))
        #expect(!result.standardOutput.contains(token))
    }
}
