import Foundation
import IMAPClient
import IMAPCore
import MailMIME
import MockIMAPServer
import TestSupport
import Testing

/// The client's decoded summaries (ENVELOPE, BODYSTRUCTURE, PREVIEW or the start of the body, over
/// the wire) equal the mock server's summaries of the same stored messages (MailMIME on the
/// message itself): one decoder on both sides.
@Suite(.hangGuard) struct SummaryConsistencyTests {
    /// Messages the tricky corpus lacks: previews that need more than the first 2 KB of a part,
    /// the first bytes of a body cut inside a part (every transfer encoding, multi-byte charsets),
    /// and previews past the ``MessageSummary/previewBodyBytes`` a summary fetch asks for
    /// (`pastTheFirstBytes`: those cost one more FETCH without PREVIEW).
    static let extraMessages: [(name: String, bytes: [UInt8], pastTheFirstBytes: Bool)] = {
        let words = String(repeating: "The quick brown fox jumps over the lazy dog by the river. ", count: 8)
        let n = Int(MessageSummary.previewBodyBytes)
        func text(_ name: String, _ text: String, past: Bool = false) -> (String, [UInt8], Bool) {
            (name, Array(text.utf8), past)
        }
        let shiftJIS = Base64.decode(
            "k/qWe4zqgsyDZYNMg1iDZ4LFgreBQoKxguqCzYN2g4yDcoOFgVuCzIK9gt+CzJK3gqKVto/NgsWBQZNykoaCxZDYgu"
                + "qCxILgkLOCtYKtk8eC34LpgqmC8IptgqmC34LcgreBQpP6lnuM6oLMg2WDTINYg2eCxYK3gUKCsYLqgs2DdoOMg3KD"
                + "hYFbgsyCvYLfgsySt4KilbaPzYLFgUGTcpKGgsWQ2ILqgsSC4JCzgrWCrZPHgt+C6YKpgvCKbYKpgt+C3IK3gUKT+p"
                + "Z7jOqCzINlg0yDWINngsWCt4FCgrGC6oLNg3aDjINyg4WBW4LMgr2C34LMkreCopW2j82CxYFBk3KShoLFkNiC6oLE"
                + "guCQs4K1gq2Tx4LfgumCqYLwim2CqYLfgtyCt4FCk/qWe4zqgsyDZYNMg1iDZ4LFgreBQoKxguqCzYN2g4yDcoOFgV"
                + "uCzIK9gt+CzJK3gqKVto/NgsWBQZNykoaCxZDYguqCxILgkLOCtYKtk8eC34LpgqmC8IptgqmC34LcgreBQpP6lnuM"
                + "6oLMg2WDTINYg2eCxYK3gUKCsYLqgs2DdoOMg3KDhYFbgsyCvYLfgsySt4KilbaPzYLFgUGTcpKGgsWQ2ILqgsSC4J"
                + "CzgrWCrZPHgt+C6YKpgvCKbYKpgt+C3IK3gUI=")
        let iso2022JP = Base64.decode(
            "GyRCRnxLXDhsJE4lRiUtJTklSCRHJDkhIyQzJGwkTyVXJWwlUyVlITwkTiQ/JGEkTkQ5JCRKOD5PJEchIkVTQ2YkR0"
                + "BaJGwkRiRiQDUkNyQvRkkkYSRrJCskcjNOJCskYSReJDkhI0Z8S1w4bCROJUYlLSU5JUgkRyQ5ISMkMyRsJE8lVyVs"
                + "JVMlZSE8JE4kPyRhJE5EOSQkSjg+TyRHISJFU0NmJEdAWiRsJEYkYkA1JDckL0ZJJGEkayQrJHIzTiQrJGEkXiQ5IS"
                + "NGfEtcOGwkTiVGJS0lOSVIJEckOSEjJDMkbCRPJVclbCVTJWUhPCROJD8kYSRORDkkJEo4Pk8kRyEiRVNDZiRHQFok"
                + "bCRGJGJANSQ3JC9GSSRhJGskKyRyM04kKyRhJF4kOSEjRnxLXDhsJE4lRiUtJTklSCRHJDkhIyQzJGwkTyVXJWwlUy"
                + "VlITwkTiQ/JGEkTkQ5JCRKOD5PJEchIkVTQ2YkR0BaJGwkRiRiQDUkNyQvRkkkYSRrJCskcjNOJCskYSReJDkhI0Z8"
                + "S1w4bCROJUYlLSU5JUgkRyQ5ISMkMyRsJE8lVyVsJVMlZSE8JE4kPyRhJE5EOSQkSjg+TyRHISJFU0NmJEdAWiRsJE"
                + "YkYkA1JDckL0ZJJGEkayQrJHIzTiQrJGEkXiQ5ISMbKEI=")
        return [
            text(
                "quote longer than 2 KB before the reply",
                "Subject: long quote\nFrom: Quentin <q@x.example>\nContent-Type: text/plain; charset=utf-8\n\n"
                    + String(repeating: "> an old line of the quoted message\n", count: 80) + "The reply at last."),
            text(
                "HTML with a long style block",
                "Subject: styled\nFrom: Style <s@x.example>\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n"
                    + "<html><head><style>" + String(repeating: "p.c { margin: 0; padding: 0; }\n", count: 100)
                    + "</style></head><body><p>Visible text</p><blockquote>quoted</blockquote><p>after</p></body></html>"
            ),
            text(
                "UTF-8 text cut inside a character at 2 KB",
                "Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\nFrom: =?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <j@x.example>\n"
                    + "Content-Type: text/plain; charset=utf-8\n\n" + "x" + String(repeating: "ü", count: 1500)),
            text(
                "quoted-printable text longer than 2 KB",
                "Subject: qp\nFrom: qp@x.example\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
                    + "Content-Transfer-Encoding: quoted-printable\n\n"
                    + String(
                        repeating: "=E6=97=A5=E6=9C=AC=E8=AA=9E =E3=83=86=E3=82=AD=E3=82=B9=E3=83=88 =\n", count: 60)),
            text(
                "text attachment first, inline image without a name",
                "Subject: parts\nFrom: p@x.example\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"
                    + "--b\nContent-Type: image/png\nContent-Disposition: inline\n\nPNG\n"
                    + "--b\nContent-Type: text/plain\nContent-Disposition: attachment\n\nnotes in an attachment\n--b--\n"
            ),
            text(
                "multipart/alternative, quoted-printable text first",
                "Subject: alt\nFrom: a@x.example\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=\"=_a\"\n\n"
                    + "This is a multi-part message in MIME format.\n--=_a\n"
                    + "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
                    + String(
                        repeating: "Gr=C3=BC=C3=9Fe aus M=C3=BCnchen, sch=C3=B6ne W=C3=BCnsche! =E2=82=AC=\n", count: 8)
                    + "\n--=_a\nContent-Type: text/html; charset=utf-8\n\n<p>HTML</p>\n--=_a--\n"),
            text(
                "nested multipart, base64 text, attachment",
                "Subject: nested\nFrom: n@x.example\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=o\n\n"
                    + "--o\nContent-Type: multipart/alternative; boundary=i\n\n"
                    + "--i\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: base64\n\n"
                    + Base64.encode(Array(String(repeating: "日本語と絵文字 🎉 のプレビュー。", count: 20).utf8), lineLength: 76)
                    + "\n--i\nContent-Type: text/html; charset=UTF-8\n\n<p>html</p>\n--i--\n"
                    + "--o\nContent-Type: application/pdf; name=a.pdf\nContent-Transfer-Encoding: base64\n\n"
                    + Base64.encode(Array(repeating: 0x25, count: 30_000), lineLength: 76) + "\n--o--\n"),
            (
                "Shift_JIS 8-bit text",
                Array(
                    "Subject: sjis\nFrom: s@x.example\nMIME-Version: 1.0\nContent-Type: text/plain; charset=Shift_JIS\n\n"
                        .utf8)
                    + shiftJIS, false
            ),
            (
                "ISO-2022-JP text in multipart/alternative",
                Array(
                    ("Subject: jis\nFrom: j@x.example\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=z\n\n"
                        + "--z\nContent-Type: text/plain; charset=ISO-2022-JP\nContent-Transfer-Encoding: 7bit\n\n")
                        .utf8)
                    + iso2022JP + Array("\n--z--\n".utf8), false
            ),
            (
                "ISO-8859-1 8-bit text",
                Array(
                    "Subject: latin\nFrom: l@x.example\nMIME-Version: 1.0\nContent-Type: text/plain; charset=iso-8859-1\n\n"
                        .utf8)
                    + Array(repeating: [0x43, 0x68, 0xE8, 0x72, 0x65, 0x20, 0x5A, 0x6F, 0xEB, 0x2C, 0x20], count: 30)
                    .flatMap { $0 },
                false
            ),
            text(
                "UTF-8 text longer than the bytes fetched",
                "Subject: long\nFrom: l@x.example\nContent-Type: text/plain; charset=utf-8\n\n"
                    + String(repeating: "Zoë → 日本 ", count: n / 4)),
            text(
                "base64 text longer than the bytes fetched",
                "Subject: long64\nFrom: l@x.example\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
                    + "Content-Transfer-Encoding: base64\n\n"
                    + Base64.encode(Array(String(repeating: "Grüße → 日本 ", count: n / 4).utf8), lineLength: 76)),
            text(
                "text part after an attachment larger than the bytes fetched",
                "Subject: late text\nFrom: t@x.example\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"
                    + "--b\nContent-Type: image/jpeg\nContent-Transfer-Encoding: base64\n\n"
                    + Base64.encode(Array(repeating: 0xAB, count: n), lineLength: 76)
                    + "\n--b\nContent-Type: text/plain\n\n" + words + "\n--b--\n", past: true),
            text(
                "HTML whose head is longer than the bytes fetched",
                "Subject: big head\nFrom: h@x.example\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n"
                    + "<html><head><style>" + String(repeating: "td.c { margin: 0; padding: 0; }\n", count: n / 30)
                    + "</style></head><body><p>At last the visible text.</p></body></html>", past: true),
            text(
                "quote longer than the bytes fetched",
                "Subject: longer quote\nFrom: q@x.example\nContent-Type: text/plain; charset=utf-8\n\n"
                    + String(repeating: "> an old line of the quoted message\n", count: n / 30) + words, past: true),
        ]
    }()

    /// A server whose INBOX holds the tricky corpus, generated mail and the extra messages, some
    /// with flags; and the UIDs of the extra messages whose previews lie past the first bytes.
    static func seededServer() async throws -> (MockIMAPServer, pastTheFirstBytes: [UInt32]) {
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
        var past: [UInt32] = []
        for message in extraMessages {
            let uid = try server.store.append(message.bytes, user: "alice", mailbox: "INBOX")
            if message.pastTheFirstBytes { past.append(uid) }
        }
        return (server, past)
    }

    @Test(arguments: [true, false])
    func clientSummariesEqualTheServerSummaries(serverPreview: Bool) async throws {
        let (server, pastTheFirstBytes) = try await Self.seededServer()
        var configuration = server.clientConfiguration()
        if !serverPreview { configuration.ignoredCapabilities = [.preview] }
        let session = try await IMAPSession.connect(configuration)
        try await session.login(.password(user: "alice", password: "secret"))
        try await session.select("INBOX")
        #expect(await session.capabilities.contains(.preview) == serverPreview)

        let uids = server.store.uids(user: "alice", mailbox: "INBOX")
        #expect(uids.count == 60 + TrickyMessages.all.count + Self.extraMessages.count)
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
        #expect(all.contains { $0.preview.hasPrefix("日本語のテキストです。") })
        #expect(all.contains { $0.preview == "At last the visible text." })
        #expect(all.contains { $0.preview.hasPrefix("Chère Zoë, Chère Zoë,") })
        // One FETCH of every summary; without PREVIEW the first bytes of each body come with it,
        // and only the messages whose previews lie past them cost one more, of their text part.
        let fetches = server.sessions.flatMap(\.transcript).filter { $0.direction == .client }.map(\.text)
            .filter { $0.contains(" FETCH ") }
        if serverPreview {
            #expect(fetches.count == 1 && fetches[0].contains(" PREVIEW") && !fetches[0].contains("BODY.PEEK"))
        } else {
            #expect(fetches.first?.contains("BODY.PEEK[TEXT]<0.\(MessageSummary.previewBodyBytes)>") == true)
            #expect(fetches.first?.contains("PREVIEW") == false)
            // The rest: one FETCH per position of the text part (BODY.PEEK[1], [2]), whole.
            var fetchedWhole: [UInt32] = []
            for line in fetches.dropFirst() {
                let words = line.split(separator: " ").map(String.init)
                #expect(words.count == 6 && words[1] == "UID" && words[2] == "FETCH" && words[4] == "(UID", "\(line)")
                #expect(words.last?.hasPrefix("BODY.PEEK[") == true && !line.contains("TEXT"), "\(line)")
                guard words.count > 3 else { continue }
                for range in words[3].split(separator: ",") {
                    let bounds = range.split(separator: ":").compactMap { UInt32($0) }
                    if let first = bounds.first { fetchedWhole += Array(first...(bounds.last ?? first)) }
                }
            }
            #expect(fetchedWhole.sorted() == pastTheFirstBytes, "\(fetches)")
        }
        await session.logout()
        await server.stop()
    }
}
