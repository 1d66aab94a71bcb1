import MailSearch
import TestSupport
import Testing

@testable import MailSearchCLI

/// `MAILBOX:UIDS` arguments (`pin Archive:32`, `show Archive:42`): how each is read, how a name
/// with `:` in it is told from a UID range, and the one sentence a wrong one gets.
@Suite(.hangGuard) struct MessageArgumentsTests {
    typealias Group = MessageArguments.Group

    static let mailboxes = ["INBOX", "Archive", "Lists:2024", "Lists", "Old Mail", "Entw&APw-rfe", "a:b"].map {
        MailboxSummary(name: $0, attributes: [], messageCount: nil, unreadCount: nil)
    }

    static func uids(_ ranges: ClosedRange<UInt32>...) -> UIDSet { UIDSet(ranges: ranges) }

    @Test(arguments: [
        (["12"], [Group(mailbox: nil, uids: uids(12...12))]),
        (["12,15:20"], [Group(mailbox: nil, uids: uids(12...12, 15...20))]),
        (["Archive:32"], [Group(mailbox: "Archive", uids: uids(32...32))]),
        (["Archive:32,40:45"], [Group(mailbox: "Archive", uids: uids(32...32, 40...45))]),
        (
            ["Archive:32", "7", "Archive:40"],
            [
                Group(mailbox: nil, uids: uids(7...7)), Group(mailbox: "Archive", uids: uids(32...32, 40...40)),
            ]
        ),
        // The open mailbox named, in any case for INBOX: its plain UIDs.
        (["inbox:5", "INBOX:6"], [Group(mailbox: nil, uids: uids(5...5, 6...6))]),
        // Shown names (modified UTF-7 decoded) and names with spaces or ':'.
        (["Entwürfe:3"], [Group(mailbox: "Entw&APw-rfe", uids: uids(3...3))]),
        (["Old Mail:3"], [Group(mailbox: "Old Mail", uids: uids(3...3))]),
        (["a:b:3"], [Group(mailbox: "a:b", uids: uids(3...3))]),
        // Only one reading names a mailbox: Lists:2024 has no UID range "2024:5" reading of its own.
        (["Lists:2024:5:6"], [Group(mailbox: "Lists:2024", uids: uids(5...6))]),
    ])
    func readsEachForm(arguments: [String], groups: [Group]) throws {
        let parsed = try MessageArguments(arguments: arguments)
        #expect(try parsed.groups(mailboxes: Self.mailboxes, open: "INBOX") == groups)
    }

    @Test func plainUIDsNeedNoMailboxList() throws {
        #expect(try !MessageArguments(arguments: ["12", "15:20,3"]).namesMailboxes)
        #expect(try MessageArguments(arguments: ["12", "Archive:3"]).namesMailboxes)
    }

    @Test(arguments: [
        (
            "12-14",
            #""12-14" is not a UID or UID set; write UIDs as search and list show them, like 12, 12,15:20 or Archive:32"#
        ),
        (
            "Archive:",
            #""Archive:" is not a UID or UID set; write UIDs as search and list show them, like 12, 12,15:20 or Archive:32"#
        ),
        (
            ":12",
            #"":12" is not a UID or UID set; write UIDs as search and list show them, like 12, 12,15:20 or Archive:32"#
        ),
        (
            "Archive:0",
            #""Archive:0" is not a UID or UID set; write UIDs as search and list show them, like 12, 12,15:20 or Archive:32"#
        ),
        (
            "Archive:x",
            #""Archive:x" is not a UID or UID set; write UIDs as search and list show them, like 12, 12,15:20 or Archive:32"#
        ),
    ])
    func malformedArgumentsAreOneSentence(argument: String, message: String) {
        #expect(throws: UsageError.self) { try MessageArguments(arguments: [argument]) }
        do {
            _ = try MessageArguments(arguments: [argument])
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func showTakesOneMessage() throws {
        let one = try MessageArguments(arguments: ["Archive:42"], single: true)
        #expect(
            try one.groups(mailboxes: Self.mailboxes, open: "INBOX") == [
                Group(mailbox: "Archive", uids: Self.uids(42...42))
            ])
        // A range is no reading for one message: Lists:2024:5 can only be UID 5 of Lists:2024.
        let named = try MessageArguments(arguments: ["Lists:2024:5"], single: true)
        #expect(
            try named.groups(mailboxes: Self.mailboxes, open: "INBOX") == [
                Group(mailbox: "Lists:2024", uids: Self.uids(5...5))
            ])
        // Archive:40:45 reads as UID 45 of a mailbox "Archive:40", which the account lacks.
        let range = try MessageArguments(arguments: ["Archive:40:45"], single: true)
        #expect(throws: CommandFailure.self) { try range.groups(mailboxes: Self.mailboxes, open: "INBOX") }
        for argument in ["42,43", "Archive:4,5", "x"] {
            do {
                _ = try MessageArguments(arguments: [argument], single: true)
                Issue.record("\(argument) was taken for one message")
            } catch {
                #expect(
                    error.description
                        == "\"\(argument)\" is not a UID; give the number search or list shows, like 42 or Archive:42")
            }
        }
    }

    @Test func anUnknownOrAmbiguousMailboxIsRefused() throws {
        let unknown = try MessageArguments(arguments: ["Archve:32"])
        do {
            _ = try unknown.groups(mailboxes: Self.mailboxes, open: "INBOX")
            Issue.record("an unknown mailbox was accepted")
        } catch {
            #expect(
                error.message
                    == #"there is no mailbox named "Archve" (in "Archve:32"); "mailsearch mailboxes" lists them"#)
            #expect(error.exitCode == .usageError)
        }
        // UIDs 2024:5 of Lists, or UID 5 of Lists:2024: both mailboxes exist.
        let ambiguous = try MessageArguments(arguments: ["Lists:2024:5"])
        do {
            _ = try ambiguous.groups(mailboxes: Self.mailboxes, open: "INBOX")
            Issue.record("an ambiguous argument was accepted")
        } catch {
            #expect(
                error.message
                    == #""Lists:2024:5" could be UIDs 5:2024 of Lists or UIDs 5 of Lists:2024; open the mailbox with --mailbox and give its UIDs alone"#
            )
        }
    }

    @Test func labelsNameOtherMailboxesOnly() {
        let inbox = Email.ID(mailbox: "INBOX", uidValidity: 1, uid: 7)
        let archived = [32, 40, 41, 42].map { Email.ID(mailbox: "Archive", uidValidity: 2, uid: $0) }
        let drafts = Email.ID(mailbox: "Entw&APw-rfe", uidValidity: 3, uid: 3)
        #expect(MessageArguments.label(inbox, open: "INBOX") == "7")
        #expect(MessageArguments.label(archived[0], open: "INBOX") == "Archive:32")
        #expect(MessageArguments.label(drafts, open: "INBOX") == "Entwürfe:3")
        #expect(MessageArguments.labels(archived + [inbox, drafts], open: "INBOX") == "7 Archive:32,40:42 Entwürfe:3")
    }
}
