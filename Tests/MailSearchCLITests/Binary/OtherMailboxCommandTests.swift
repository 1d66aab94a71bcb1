import Foundation
import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// The built `mailsearch` acting on messages of another mailbox than the open one: rows of an
/// `in:all` search name their mailbox (`Archive:32`), and `pin`, `read` and `show` take that
/// form and act in that mailbox, never on the open mailbox's message with the same UID.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct OtherMailboxCommandTests {
    /// A UID that Archive, INBOX and Sent all hold, none of the three flagged.
    func sharedUID(_ account: MockAccount) throws -> UInt32 {
        let store = account.server.store
        let user = MockAccount.user
        let uid = store.uids(user: user, mailbox: "Archive").first { uid in
            ["Archive", "INBOX", "Sent"].allSatisfy { mailbox in
                store.flags(user: user, mailbox: mailbox, uid: uid).map { !$0.contains(.flagged) } ?? false
            }
        }
        return try #require(uid)
    }

    func flags(_ account: MockAccount, _ mailbox: String, _ uid: UInt32) -> Set<Flag> {
        account.server.store.flags(user: MockAccount.user, mailbox: mailbox, uid: uid) ?? []
    }

    @Test func rowsNameTheirMailboxAndPinReadAndShowActThere() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uid = try sharedUID(account)
        let run = { (words: [String]) in
            try await ToolProcess.run(account.tlsArguments + words, environment: account.environment)
        }

        let rows = try await run(["search", "in:all", "uid:\(uid)"])
        #expect(rows.status == 0, "\(rows)")
        // The open mailbox's row shows the UID alone, right-aligned in the wider column.
        #expect(rows.lines.filter { $0.hasPrefix("  ") && $0.contains(" Archive:\(uid)  ") }.count == 1, "\(rows)")
        #expect(rows.lines.filter { $0.contains(" Sent:\(uid)  ") }.count == 1, "\(rows)")
        let inboxColumn = String(repeating: " ", count: "Archive:".count) + "\(uid)  "
        #expect(rows.lines.filter { $0.contains(inboxColumn) }.count == 1, "\(rows)")
        let json = try await run(["search", "--json", "in:all", "uid:\(uid)"])
        let mailboxes = try json.lines.map(jsonObject).compactMap { $0["mailbox"] as? String }
        #expect(Set(mailboxes).isSuperset(of: ["INBOX", "Sent", "Archive"]))
        #expect(rows.lines.count == mailboxes.count, "\(rows)")
        // Every other mailbox's row names it; only INBOX's shows the UID alone.
        for mailbox in mailboxes where mailbox != "INBOX" {
            #expect(rows.lines.filter { $0.contains(" \(mailbox):\(uid)  ") }.count == 1, "\(rows)")
        }

        let pin = try await run(["pin", "Archive:\(uid)"])
        #expect(pin.status == 0, "\(pin)")
        #expect(pin.lines == ["Pinned 1 message: Archive:\(uid)"])
        #expect(flags(account, "Archive", uid).contains(.flagged))
        #expect(!flags(account, "INBOX", uid).contains(.flagged))
        #expect(!flags(account, "Sent", uid).contains(.flagged))

        // Several mailboxes in one command, each changed in its own.
        let read = try await run(["read", "Archive:\(uid)", "Sent:\(uid)"])
        #expect(read.status == 0, "\(read)")
        #expect(read.lines == ["Marked 2 messages read: Archive:\(uid) Sent:\(uid)"])
        #expect(flags(account, "Archive", uid).contains(.seen) && flags(account, "Sent", uid).contains(.seen))
        let unpin = try await run(["unpin", "Archive:\(uid),\(uid + 100_000)"])
        #expect(unpin.status == 1, "\(unpin)")
        #expect(unpin.lines == ["Unpinned 1 message: Archive:\(uid)"])
        #expect(
            unpin.errorLines == [
                "error: there is no message with UID \(uid + 100_000) in Archive; the others were changed"
            ])
        #expect(!flags(account, "Archive", uid).contains(.flagged))

        let raw = try #require(account.server.store.rawMessage(user: MockAccount.user, mailbox: "Archive", uid: uid))
        let subjectLine = try #require(
            String(decoding: raw, as: UTF8.self).split(separator: "\r\n").first { $0.hasPrefix("Subject: ") })
        let show = try await run(["show", "Archive:\(uid)"])
        #expect(show.status == 0, "\(show)")
        #expect(show.lines.contains(String(subjectLine)), "\(show)")
        let inboxShow = try await run(["show", "\(uid)"])
        #expect(!inboxShow.lines.contains(String(subjectLine)), "\(inboxShow)")

        let unknown = try await run(["pin", "Archve:\(uid)"])
        #expect(unknown.status == 64)
        #expect(
            unknown.errorLines == [
                "error: there is no mailbox named \"Archve\" (in \"Archve:\(uid)\"); \"mailsearch mailboxes\" lists them"
            ])
    }

    /// Archive re-created between finding the message and changing it (the fault renews its
    /// UIDVALIDITY as the STORE's SELECT arrives): refused, and nothing changed.
    @Test func aMailboxRecreatedMeanwhileRefusesTheChange() async throws {
        let account = try await MockAccount.start(faults: [
            // The first SELECT is the open mailbox's; the second, Archive's for the STORE
            // (searching EXAMINEs it).
            FaultRule(trigger: .command("SELECT", occurrence: 2), fault: .changeUIDValidity)
        ])
        defer { Task { await account.stop() } }
        let uid = try sharedUID(account)
        let pin = try await ToolProcess.run(
            account.tlsArguments + ["pin", "Archive:\(uid)"], environment: account.environment)
        #expect(pin.status == 75, "\(pin)")
        #expect(pin.standardOutput.isEmpty)
        #expect(
            pin.errorLines == [
                "error: UID Archive:\(uid) was not changed: Archive was re-created on the server; reload it and try again"
            ])
        #expect(!flags(account, "Archive", uid).contains(.flagged))
    }
}
