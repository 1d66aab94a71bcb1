import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import TestSupport
import Testing

@Suite(.hangGuard) struct CompileTests {
    @Test func scopeAndDeletedAndKeys() throws {
        let context = Server.rev1.context
        let compiled = try QueryCompiler.compile("in:Archive is:deleted from:bob", context: context)
        #expect(compiled.scope == .mailbox("Archive"))
        #expect(compiled.keys == [.deleted, .from("bob")])
        #expect(!compiled.excludesDeleted)
        #expect(compiled.programKeys == [.deleted, .from("bob")])
        let all = try QueryCompiler.compile("in:all", context: context)
        #expect(all.scope == .allMailboxes)
        #expect(all.programKeys == [.all, .undeleted])
        #expect(try QueryCompiler.compile("x", context: context).scope == .current)
    }

    @Test func commandChoice() throws {
        let compiled = try QueryCompiler.compile("from:bob", context: Server.rev1.context)
        #expect(
            compiled.command(for: Server.sort.context)
                == .uidSort(
                    criteria: [SortCriterion(.arrival, reversed: true)], charset: "UTF-8",
                    keys: [.from("bob"), .undeleted]))
        #expect(
            compiled.command(for: Server.esearch.context)
                == .uidSearch(charset: nil, returnOptions: [.count, .all], keys: [.from("bob"), .undeleted]))
        #expect(compiled.command(for: Server.rev1.context) == .uidSearch(keys: [.from("bob"), .undeleted]))
    }

    @Test func synchronizingLiteralWaits() throws {
        let context = Server.rev1.context
        let chunks = try QueryCompiler.compile("from:Müller", context: context).encode(tag: "a1", for: context)
        #expect(chunks.map(\.waitsForContinuation) == [true, false])
        #expect(chunks.first?.bytes == Array("a1 UID SEARCH CHARSET UTF-8 FROM {7}\r\n".utf8))
        #expect(chunks.last?.bytes == Array("Müller UNDELETED\r\n".utf8))
    }

    @Test func pinWarningOnlyWhenPinIsUsed() throws {
        let refused = Server.pinKeywordRefused.context
        let pinned = try QueryCompiler.compile("is:pinned", context: refused)
        #expect(pinned.keys == [.flagged])
        #expect(pinned.warnings == [FlagPolicyWarning(keyword: "$Pinned")])
        #expect(try QueryCompiler.compile("is:read", context: refused).warnings.isEmpty)
        #expect(try QueryCompiler.compile("is:pinned", context: Server.pinKeyword.context).warnings.isEmpty)
    }

    @Test func todayFollowsTheTimeZone() {
        // 2024-03-15 23:30 UTC is already the 16th in Tokyo and still the 15th in New York.
        let moment = Date(timeIntervalSince1970: 1_710_545_400)
        #expect(
            SearchContext.day(of: moment, in: TimeZone(identifier: "UTC")!) == IMAPDate(year: 2024, month: 3, day: 15))
        #expect(
            SearchContext.day(of: moment, in: TimeZone(identifier: "Asia/Tokyo")!)
                == IMAPDate(year: 2024, month: 3, day: 16))
        #expect(
            SearchContext.day(of: Date(timeIntervalSince1970: -1), in: TimeZone(identifier: "UTC")!)
                == IMAPDate(year: 1969, month: 12, day: 31))
    }

    @Test func contextFromTheSelectedMailbox() {
        var mailbox = SelectedMailbox(name: "INBOX", isReadOnly: false)
        mailbox.flags = [.seen, "$Pinned"]
        let policy = FlagPolicy(pinKeyword: "$Pinned")
        let unsent = SearchContext(
            capabilities: [.imap4rev1], enabledCapabilities: [], mailbox: mailbox, flagPolicy: policy,
            today: Server.today)
        #expect(unsent.permanentFlags == nil)
        #expect(unsent.pinFlag.flag == "$Pinned")
        mailbox.isReadOnly = true
        let readOnly = SearchContext(
            capabilities: [.imap4rev1], enabledCapabilities: [], mailbox: mailbox, flagPolicy: policy,
            today: Server.today)
        #expect(readOnly.pinFlag.flag == .flagged)
    }
}
