import Foundation
import IMAPClient
import IMAPCore
import MailMIME
import MailSearch
import MockIMAPServer
import TestSupport
import Testing
import Transport

/// A message with the attachments mail has: a PDF-like file in base64, an inline image
/// without a name, a quoted-printable text file with an RFC 2231 name, a forwarded message.
enum AttachmentFixture {
    /// Every byte value, so that base64 must be undone exactly.
    static let pdf: [UInt8] = Array("%PDF-1.4\n".utf8) + (0..<3000).map { UInt8($0 % 256) }
    static let image: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<500).map { UInt8(($0 * 7) % 256) }
    static let note =
        "Grüße aus dem März = 100 % sicher.\r\nZweite Zeile, sehr lang: " + String(repeating: "x", count: 90)
        + "\r\n"
    static let forwarded: [UInt8] = Array(
        "From: Bob <bob@example.com>\r\nSubject: Das Protokoll\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nSiehe unten.\r\n"
            .utf8)

    static func message(subject: String) -> [UInt8] {
        let noteEncoded = QuotedPrintable.encode(Array(note.utf8))
        let text =
            "From: Alice <alice@example.com>\r\nTo: dana@example.com\r\nSubject: \(subject)\r\n"
            + "Date: Mon, 4 Mar 2024 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"
            + "Content-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n"
            + "--outer\r\nContent-Type: multipart/related; boundary=\"rel\"\r\n\r\n"
            + "--rel\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThe body text, not an attachment.\r\n"
            + "--rel\r\nContent-Type: image/png\r\nContent-Disposition: inline\r\nContent-ID: <logo@x>\r\n"
            + "Content-Transfer-Encoding: base64\r\n\r\n" + Base64.encode(image, lineLength: 76) + "\r\n--rel--\r\n"
            + "--outer\r\nContent-Type: application/pdf; name=\"report.pdf\"\r\n"
            + "Content-Disposition: attachment; filename=\"report.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + Base64.encode(pdf, lineLength: 76) + "\r\n"
            + "--outer\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Disposition: attachment; filename*=utf-8''Notiz%20M%C3%A4rz.txt\r\n"
            + "Content-Transfer-Encoding: quoted-printable\r\n\r\n" + noteEncoded + "\r\n"
            + "--outer\r\nContent-Type: message/rfc822\r\n\r\n" + String(decoding: forwarded, as: UTF8.self)
            + "\r\n--outer--\r\n"
        return Array(text.utf8)
    }

    /// What `attachments(of:)` must give for ``message(subject:)``.
    static let expected: [AttachmentContent] = [
        AttachmentContent(name: nil, mimeType: "image/png", data: image, part: [1, 2]),
        AttachmentContent(name: "report.pdf", mimeType: "application/pdf", data: pdf, part: [2]),
        AttachmentContent(name: "Notiz März.txt", mimeType: "text/plain", data: Array(note.utf8), part: [3]),
        // The body of a message/rfc822 part is the message; the line break before the boundary
        // belongs to the boundary.
        AttachmentContent(name: "Das Protokoll", mimeType: "message/rfc822", data: forwarded, part: [4]),
    ]
}

@Suite(.hangGuard, .timeLimit(.minutes(2))) struct AttachmentServiceTests {
    @Test func attachmentsOfTheOpenMailboxAndAnotherComeDecodedWithoutTheRestOfTheMessage() async throws {
        let server = try await ServiceFixture.start(count: 2)
        defer { Task { await server.stop() } }
        let message = AttachmentFixture.message(subject: "quarterly report")
        let inboxUID = try server.store.append(message, user: "alice", mailbox: "INBOX")
        try server.store.createMailbox("Projects", user: "alice")
        let projectsUID = try server.store.append(message, user: "alice", mailbox: "Projects")
        let service = ServiceFixture.service(server)
        let mailbox = try await service.open()

        let inboxID = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: inboxUID)
        let inInbox = try #require(try await service.attachments(of: inboxID))
        #expect(inInbox == AttachmentFixture.expected)
        // Only the attachments' parts were fetched, not the whole message nor its text.
        let fetches = ServiceFixture.clientCommands(server).filter { $0.contains("FETCH") }
        #expect(fetches.contains { $0.contains("BODY.PEEK[2]") && $0.contains("BODY.PEEK[4.MIME]") })
        #expect(!fetches.contains { $0.contains("BODY.PEEK[]") || $0.contains("BODY.PEEK[1.1]") })

        let projects = try #require(server.store.uidValidity(user: "alice", mailbox: "Projects"))
        let projectsID = Email.ID(mailbox: "Projects", uidValidity: projects, uid: projectsUID)
        #expect(try await service.attachments(of: projectsID) == AttachmentFixture.expected)

        // The same parts `show` lists, under the same names.
        let shown = try #require(try await service.message(inboxID)).attachments
        #expect(shown.map(\.name) == inInbox.map(\.name))
        #expect(shown.map(\.mimeType) == inInbox.map(\.mimeType))
        #expect(shown.map(\.size) == inInbox.map(\.data.count))

        #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: inboxUID) == [])
        #expect(server.store.flags(user: "alice", mailbox: "Projects", uid: projectsUID) == [])
        await service.close()
    }

    @Test func aMessageWithoutAttachmentsHasNoneAndAMissingMessageIsNil() async throws {
        let server = try await ServiceFixture.start(count: 3, mime: true)
        defer { Task { await server.stop() } }
        let service = ServiceFixture.service(server)
        let mailbox = try await service.open()
        let plain = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 1)
        #expect(try await service.attachments(of: plain) == [])
        // Message 3 carries a PDF (see ServiceFixture.mimeMessage).
        let withPDF = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 3)
        let pdf = try #require(try await service.attachments(of: withPDF))
        #expect(pdf.map(\.name) == ["a.pdf"])
        #expect(pdf.first?.data == Array(repeating: 0x25, count: 40_000))
        let missing = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: 99)
        #expect(try await service.attachments(of: missing) == nil)
        let stale = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity &+ 1, uid: 1)
        do {
            _ = try await service.attachments(of: stale)
            Issue.record("a message of another UIDVALIDITY was fetched")
        } catch {
            #expect(error.code == .mailboxChanged)
        }
        await service.close()
    }
}

/// The same against Dovecot, the message in a mailbox of its own (dana's INBOX, which
/// `DovecotServiceTests` counts, is not touched).
@Suite(
    .hangGuard,
    .enabled("Dovecot is not installed (apt-get install dovecot-imapd)") { try DovecotProcess.isAvailable() },
    .timeLimit(.minutes(2)))
struct AttachmentDovecotTests {
    @Test func dovecotGivesTheSameAttachmentsAndTheMessageStaysUnread() async throws {
        let dovecot = try await DovecotServiceTests.dovecot()
        let session = try await IMAPSession.connect(DovecotServiceTests.configuration(dovecot))
        try await session.login(.password(user: "dana", password: DovecotProcess.password))
        try await session.execute(.create("Attachments"))
        let appended = try #require(
            try await session.append(AttachmentFixture.message(subject: "Dovecot attachments"), to: "Attachments"))

        let service = DovecotServiceTests.service(dovecot)
        _ = try await service.open()
        let id = Email.ID(mailbox: "Attachments", uidValidity: appended.uidValidity, uid: appended.uid)
        #expect(try await service.attachments(of: id) == AttachmentFixture.expected)
        await service.close()

        try await session.select("Attachments", readOnly: true)
        var flags: [Flag]?
        for try await message in session.fetch(SequenceSet(appended.uid), items: [.uid, .flags]) {
            flags = message.flags
        }
        #expect(try #require(flags).contains(.seen) == false)
        await session.logout()
    }
}
