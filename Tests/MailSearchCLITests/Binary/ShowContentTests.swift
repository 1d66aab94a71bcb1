import Foundation
import MailMIME
import MailSearch
import MailSearchCLI
import TestSupport
import Testing

/// What `mailsearch show` and the terminal reader show of messages that are not plain text: a
/// message of only attachments, an HTML-only message (the built tool against the mock server),
/// and the reader's lines for a message with attachments.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct ShowContentTests {
    /// A message of two attachments and no text: a PDF (base64, 225 bytes decoded, an RFC 2231
    /// name) and a quoted-printable PNG (5 bytes, an RFC 2047 name).
    static let attachmentOnly = """
        From: Hermione Granger <hermione@hogwarts.example>
        To: alice@example.com
        Subject: Scans
        Date: Fri, 15 Mar 2024 10:00:00 +0000
        MIME-Version: 1.0
        Content-Type: multipart/mixed; boundary="b"

        --b
        Content-Type: application/pdf
        Content-Disposition: attachment; filename*=utf-8''Rechnung%20M%C3%A4rz.pdf
        Content-Transfer-Encoding: base64

        \(String(repeating: String(repeating: "QUJD", count: 15) + "\n", count: 5).dropLast())
        --b
        Content-Type: image/png; name="=?utf-8?q?Foto_=C3=A4.png?="
        Content-Transfer-Encoding: quoted-printable

        ab=3Dc=
        d
        --b--
        """

    static let htmlOnly = """
        From: Daily Prophet <news@prophet.example>
        To: alice@example.com
        Subject: Headlines
        Date: Fri, 15 Mar 2024 11:00:00 +0000
        MIME-Version: 1.0
        Content-Type: text/html; charset=utf-8

        <html><head><style>p { margin: 0 }</style></head><body>
        <h1>Today</h1>
        <p>Two stories:</p>
        <ul><li>Quidditch final</li><li>New minister</li></ul>
        <p>Read more <a href="https://prophet.example/today">online</a>.<br>The editors</p>
        <table><tr><td>Weather</td><td>Rain</td></tr></table>
        </body></html>
        """

    private func append(_ text: String, to account: MockAccount) throws -> UInt32 {
        let raw = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        return try account.server.store.append(Array(raw.utf8), user: MockAccount.user, mailbox: "INBOX")
    }

    @Test func showListsTheAttachmentsOfAMessageWithoutText() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uid = try append(Self.attachmentOnly, to: account)

        let shown = try await ToolProcess.run(
            account.tlsArguments + ["show", "\(uid)"], environment: account.environment)
        #expect(shown.status == 0, "\(shown)")
        let body = try #require(shown.standardOutput.split(separator: "\n\n", maxSplits: 1).last)
        #expect(
            body == """
                Attachments:
                  Rechnung März.pdf  application/pdf  225 bytes
                  Foto ä.png  image/png  5 bytes

                """)

        let json = try await ToolProcess.run(
            account.tlsArguments + ["show", "--json", "\(uid)"], environment: account.environment)
        #expect(json.status == 0, "\(json)")
        let line = try #require(json.lines.first)
        #expect(topLevelKeys(line) == emailKeys + ["text", "attachments"])
        let object = try jsonObject(line)
        #expect(object["text"] as? String == "")
        let attachments = try #require(object["attachments"] as? [[String: Any]])
        #expect(attachments.count == 2)
        #expect(attachments.first?["name"] as? String == "Rechnung März.pdf")
        #expect(attachments.first?["type"] as? String == "application/pdf")
        #expect(attachments.first?["size"] as? Int == 225)
        #expect(attachments.first?["sizeIsApproximate"] as? Bool == false)
        #expect(attachments.last?["name"] as? String == "Foto ä.png")
        #expect(attachments.last?["type"] as? String == "image/png")
        #expect(attachments.last?["size"] as? Int == 5)
    }

    @Test func showLaysOutAnHTMLOnlyMessage() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let uid = try append(Self.htmlOnly, to: account)
        let expected = """
            Today

            Two stories:

            • Quidditch final
            • New minister

            Read more online <https://prophet.example/today>.
            The editors

            Weather  Rain

            """

        let shown = try await ToolProcess.run(
            account.tlsArguments + ["show", "\(uid)"], environment: account.environment)
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.standardOutput.hasSuffix("Subject: Headlines\n\n" + expected), "\(shown.standardOutput)")
        #expect(!shown.standardOutput.contains("Attachments:"))

        let json = try await ToolProcess.run(
            account.tlsArguments + ["show", "--json", "\(uid)"], environment: account.environment)
        #expect(json.status == 0, "\(json)")
        let object = try jsonObject(try #require(json.lines.first))
        #expect(object["text"] as? String == expected)
        #expect((object["attachments"] as? [Any])?.isEmpty == true)
    }

    /// The reader shows what `show` prints: the text, a blank line, the attachments.
    @Test func theReaderListsAttachmentsAfterTheText() {
        let email = Email(
            id: Email.ID(mailbox: "INBOX", uidValidity: 1, uid: 7),
            from: Email.Person(name: "Ann", address: "ann@example.com"), subject: "Report",
            date: Date(timeIntervalSince1970: 1_710_504_000), preview: "See attached", flags: [.seen])
        let content = MessageContent(
            email: email, headers: [.init(name: "Subject", value: "Report")], text: "See attached.\n",
            attachments: [
                MessageAttachment(name: "report.pdf", mimeType: "application/pdf", size: 49_357),
                MessageAttachment(name: nil, mimeType: "image/png", size: 2_000_000, isSizeApproximate: true),
            ], isTruncated: false)
        #expect(
            content.readerLines == [
                "Subject: Report", "", "See attached.", "", "Attachments:",
                "  report.pdf  application/pdf  48.2 KB", "  (no name)  image/png  about 1.9 MB",
            ])
    }
}
