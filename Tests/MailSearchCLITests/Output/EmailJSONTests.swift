import Foundation
import IMAPCore
import JSONText
import MailSearch
import TestSupport
import Testing

@testable import MailSearchCLI

/// A listing's lines are written straight from each email; they must be byte for byte what
/// `JSONWriter` makes of `EmailJSON.object` (the form `show` and `watch` use).
@Suite(.hangGuard) struct EmailJSONTests {
    static let emails: [Email] = {
        let id = { (uid: UInt32) in Email.ID(mailbox: "INBOX", uidValidity: 7, uid: uid) }
        return [
            Email(
                id: id(1), from: Email.Person(name: "Albus Dumbledore", address: "albus@hogwarts.example"),
                to: [Email.Person(name: nil, address: "alice@example.com"), Email.Person(name: "", address: "b@c")],
                subject: "Quote \" backslash \\ tab\t nul\u{00} del\u{7F}",
                date: Date(timeIntervalSince1970: 1_710_504_000),
                preview: "Søren 会议 📰\nnext line", flags: [.seen, .flagged, .keyword("$Pinned")], pinFlag: .flagged,
                hasAttachment: true, size: 123_456),
            Email(
                id: Email.ID(mailbox: "Archive/2024 \"old\"", uidValidity: 1, uid: 4_294_967_295),
                from: Email.Person(name: nil, address: ""), subject: "", date: Date(timeIntervalSince1970: 0)),
            Email(
                id: id(3), from: Email.Person(name: "Zoë", address: "zoe@example.com"), subject: "read, not pinned",
                date: Date(timeIntervalSince1970: -86_400), flags: [.answered, .seen], pinFlag: .keyword("$Pinned")),
            Email(
                id: id(4), from: Email.Person(name: "Luna", address: "luna@example.com"), subject: "pinned, unread",
                date: Date(timeIntervalSince1970: 1), flags: [.flagged], pinFlag: .flagged),
        ]
    }()

    @Test(arguments: emails)
    func lineIsTheObjectsEncoding(email: Email) {
        var expected: [UInt8] = []
        JSONWriter.write(.object(EmailJSON.object(email)), into: &expected)
        expected.append(UInt8(ascii: "\n"))
        var line: [UInt8] = []
        EmailJSON.appendLine(email, to: &line)
        #expect(String(decoding: line, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }

    @Test func linesOfSeveral() {
        var expected: [UInt8] = []
        for email in Self.emails {
            JSONWriter.write(.object(EmailJSON.object(email)), into: &expected)
            expected.append(UInt8(ascii: "\n"))
        }
        #expect(EmailJSON.lines(Self.emails) == expected)
    }
}
