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
        let newestFirst = [SortCriterion(.arrival, reversed: true)]
        let keys: [SearchKey] = [.from("bob"), .undeleted]
        #expect(
            compiled.plan(for: Server.sort.context).steps
                == [
                    SearchPlan.Step(
                        command: .uidSort(criteria: newestFirst, charset: "UTF-8", keys: keys),
                        whenCharsetRefused: .retry(.uidSort(criteria: newestFirst, charset: "US-ASCII", keys: keys)))
                ])
        #expect(
            compiled.plan(for: Server.esearch.context).steps
                == [
                    SearchPlan.Step(
                        command: .uidSearch(charset: nil, returnOptions: [.count, .all], keys: keys),
                        whenCharsetRefused: nil)
                ])
        #expect(
            compiled.plan(for: Server.rev1.context).steps
                == [SearchPlan.Step(command: .uidSearch(keys: keys), whenCharsetRefused: nil)])
        let nonASCII = try QueryCompiler.compile("from:Müller", context: Server.rev1.context)
        #expect(
            nonASCII.plan(for: Server.rev1.context).steps
                == [
                    SearchPlan.Step(
                        command: .uidSearch(charset: "UTF-8", keys: [.from("Müller"), .undeleted]),
                        whenCharsetRefused: .fails)
                ])
    }

    @Test func synchronizingLiteralWaits() throws {
        let context = Server.rev1.context
        let plan = try QueryCompiler.compile("from:Müller", context: context).plan(for: context)
        let chunks = plan.encode(plan.steps[0].command, tag: "a1")
        #expect(chunks.map(\.waitsForContinuation) == [true, false])
        #expect(chunks.first?.bytes == Array("a1 UID SEARCH CHARSET UTF-8 FROM {7}\r\n".utf8))
        #expect(chunks.last?.bytes == Array("Müller UNDELETED\r\n".utf8))
    }

    @Test func aUIDSetTooLongForOneLineIsSearchedInParts() throws {
        let numbers = Array(stride(from: UInt32(2), through: 4000, by: 2))
        let query = "uid:" + numbers.map(String.init).joined(separator: ",")
        let context = Server.rev1.context
        let plan = try QueryCompiler.compile(query, context: context).plan(for: context)
        #expect(plan.steps.count == 2)
        var covered: [UInt32] = []
        for step in plan.steps {
            guard case .uidSearch(nil, nil, let keys) = step.command, case .uid(let part)? = keys.first else {
                Issue.record("not a UID search of a part: \(step.command)")
                continue
            }
            #expect(keys.dropFirst() == [.undeleted])
            covered += part.numbers ?? []
            let line = plan.encode(step.command, tag: "A1").flatMap(\.bytes)
            #expect(line.count <= IMAPConfiguration.defaultMaximumCommandLength)
        }
        #expect(covered == numbers)
        // explain shows each part's command, as the session sends them.
        let lines = plan.explanation
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("UID SEARCH UID ") && $0.hasSuffix(" UNDELETED") })
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
