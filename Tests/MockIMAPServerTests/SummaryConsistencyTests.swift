import Foundation
import IMAPClient
import IMAPCore
import MailMIME
import MockIMAPServer
import Testing

/// The client's decoded summaries (ENVELOPE, BODYSTRUCTURE, PREVIEW or the first text part, over
/// the wire) equal the mock server's summaries of the same stored messages (MailMIME on the
/// message itself): one decoder on both sides.
@Suite struct SummaryConsistencyTests {
    /// Messages the tricky corpus lacks: previews that need more than the first 2 KB of a part.
    static let longMessages: [(name: String, text: String)] = [
        (
            "quote longer than 2 KB before the reply",
            "Subject: long quote\nFrom: Quentin <q@x.example>\nContent-Type: text/plain; charset=utf-8\n\n"
                + String(repeating: "> an old line of the quoted message\n", count: 80) + "The reply at last."
        ),
        (
            "HTML with a long style block",
            "Subject: styled\nFrom: Style <s@x.example>\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n"
                + "<html><head><style>" + String(repeating: "p.c { margin: 0; padding: 0; }\n", count: 100)
                + "</style></head><body><p>Visible text</p><blockquote>quoted</blockquote><p>after</p></body></html>"
        ),
        (
            "UTF-8 text cut inside a character at 2 KB",
            "Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\nFrom: =?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <j@x.example>\n"
                + "Content-Type: text/plain; charset=utf-8\n\n" + "x" + String(repeating: "ü", count: 1500)
        ),
        (
            "quoted-printable text longer than 2 KB",
            "Subject: qp\nFrom: qp@x.example\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
                + "Content-Transfer-Encoding: quoted-printable\n\n"
                + String(repeating: "=E6=97=A5=E6=9C=AC=E8=AA=9E =E3=83=86=E3=82=AD=E3=82=B9=E3=83=88 =\n", count: 60)
        ),
        (
            "text attachment first, inline image without a name",
            "Subject: parts\nFrom: p@x.example\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"
                + "--b\nContent-Type: image/png\nContent-Disposition: inline\n\nPNG\n"
                + "--b\nContent-Type: text/plain\nContent-Disposition: attachment\n\nnotes in an attachment\n--b--\n"
        ),
    ]

    /// A server whose INBOX holds the tricky corpus, generated mail and the long messages, some
    /// with flags.
    static func seededServer() async throws -> MockIMAPServer {
        let server = try await startServer()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("summary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let maildir = work.appendingPathComponent("box")
        _ = try await DovecotMailbox.run(
            "/usr/bin/env",
            [
                "python3", DovecotMailbox.script("generate-maildir.py"), "--out", maildir.path, "--count", "60",
                "--seed", "5",
            ])
        try server.store.seed(user: "alice", from: .maildir(maildir))
        let flagSets: [[Flag]] = [[], [.seen], [.flagged, "$Pinned"], [.answered, .seen]]
        for (index, message) in TrickyMessages.all.enumerated() {
            try server.store.append(
                message.bytes, user: "alice", mailbox: "INBOX", flags: flagSets[index % flagSets.count])
        }
        for message in longMessages {
            try server.store.append(Array(message.text.utf8), user: "alice", mailbox: "INBOX")
        }
        return server
    }

    @Test(arguments: [true, false])
    func clientSummariesEqualTheServerSummaries(serverPreview: Bool) async throws {
        let server = try await Self.seededServer()
        var configuration = server.clientConfiguration()
        if !serverPreview { configuration.ignoredCapabilities = [.preview] }
        let session = try await IMAPSession.connect(configuration)
        try await session.login(.password(user: "alice", password: "secret"))
        try await session.select("INBOX")
        #expect(await session.capabilities.contains(.preview) == serverPreview)

        let uids = server.store.uids(user: "alice", mailbox: "INBOX")
        #expect(uids.count == 60 + TrickyMessages.all.count + Self.longMessages.count)
        var received: [UInt32: MailSummary] = [:]
        for try await summary in session.fetchSummaries(SequenceSet(numbers: uids)) {
            received[summary.uid] = summary.decoded
        }
        #expect(received.count == uids.count)
        for uid in uids {
            let expected = try #require(server.store.summary(user: "alice", mailbox: "INBOX", uid: uid))
            let decoded = try #require(received[uid])
            // Field by field, so a failure says what differs.
            #expect(decoded.subject == expected.subject, "UID \(uid)")
            #expect(decoded.from == expected.from, "UID \(uid) \(expected.subject)")
            #expect(decoded.to == expected.to, "UID \(uid) \(expected.subject)")
            #expect(decoded.cc == expected.cc, "UID \(uid) \(expected.subject)")
            #expect(decoded.date == expected.date, "UID \(uid) \(expected.subject)")
            #expect(decoded.hasAttachment == expected.hasAttachment, "UID \(uid) \(expected.subject)")
            #expect(decoded.preview == expected.preview, "UID \(uid) \(expected.subject)")
            #expect(decoded.size == expected.size, "UID \(uid) \(expected.subject)")
            #expect(decoded.flags == expected.flags, "UID \(uid) \(expected.subject)")
            #expect(decoded == expected, "UID \(uid) \(expected.subject)")
        }
        // The corpus exercises what it should (so equality is not of empty values).
        let all = Array(received.values)
        #expect(all.filter(\.hasAttachment).count >= 5)
        #expect(all.filter { !$0.hasAttachment }.count >= 5)
        #expect(all.filter { $0.preview.unicodeScalars.count == PreviewText.maximumLength }.count >= 3)
        #expect(all.contains { $0.subject == "Grüße" && $0.from.first?.initials == "JM" })
        #expect(all.contains { $0.preview == "The reply at last." })
        #expect(all.contains { $0.preview == "Visible text after" })
        #expect(all.filter { $0.date == nil }.count >= 1)
        #expect(all.contains { $0.flags == ["$Pinned", "\\Flagged"] })
        await session.logout()
        await server.stop()
    }
}
