import IMAPCore
import MockIMAPServer
import Testing

/// A date-time in UTC.
func dateTime(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 12) -> IMAPDateTime {
    IMAPDateTime(date: IMAPDate(year: year, month: month, day: day)!, hour: hour, minute: 0, second: 0, zoneMinutes: 0)!
}

/// Four messages with known headers, bodies, flags and dates, for SEARCH, SORT and FETCH:
///
/// 1. Grace Jones (apple.com), Cc Bob, "Invoice #1364", sent 5 Mar, received 6 Mar; \Seen \Answered
/// 2. Jürgen Müller (RFC 2047), "Rechnung für März" (encoded), quoted-printable body "Grüße aus
///    München", sent 9 Mar 23:30 -0500 (10 Mar UTC), received 10 Mar; \Flagged $Pinned
/// 3. team@, To bob, Bcc carol, "Re: Team meeting", X-Priority, multipart text+HTML, a long body,
///    received 15 Mar; \Deleted \Draft
/// 4. No Date header, "Fwd: [list] Notes (fwd)", received 20 Mar; no flags
enum Fixture {
    static let grace = Array(
        """
        From: Grace Jones <grace.jones@apple.com>\r
        To: Alice Example <alice@example.com>\r
        Cc: Bob <bob@example.com>\r
        Subject: Invoice #1364\r
        Date: Tue, 05 Mar 2024 14:05:00 +0000\r
        Message-ID: <invoice-1364@apple.com>\r
        \r
        Quarterly invoice attached.\r
        Regards, Grace\r

        """.utf8)

    static let juergen = Array(
        """
        From: =?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <juergen@example.de>\r
        To: alice@example.com\r
        Subject: =?UTF-8?B?UmVjaG51bmcgZsO8ciBNw6Ryeg==?=\r
        Date: Sat, 09 Mar 2024 23:30:00 -0500\r
        MIME-Version: 1.0\r
        Content-Type: text/plain; charset=utf-8\r
        Content-Transfer-Encoding: quoted-printable\r
        \r
        Gr=C3=BC=C3=9Fe aus M=C3=BCnchen\r

        """.utf8)

    static let team = Array(
        """
        From: team@example.com\r
        To: Bob <bob@example.com>\r
        Bcc: carol@example.org\r
        Subject: Re: Team meeting\r
        Date: Fri, 15 Mar 2024 09:00:00 +0100\r
        X-Priority: 1\r
        MIME-Version: 1.0\r
        Content-Type: multipart/alternative; boundary="b1"\r
        \r
        --b1\r
        Content-Type: text/plain; charset=us-ascii\r
        \r
        Reminder: meeting at 3 PM. \(String(repeating: "agenda ", count: 300))\r
        --b1\r
        Content-Type: text/html; charset=us-ascii\r
        \r
        <p>Reminder: <b>meeting</b> at 3 PM.</p>\r
        --b1--\r

        """.utf8)

    static let undated = Array(
        """
        From: Dave <dave@example.net>\r
        To: alice@example.com\r
        Subject: Fwd: [list] Notes (fwd)\r
        \r
        Notes without a date.\r

        """.utf8)

    /// Seeds the four messages into alice's INBOX (UIDs 1-4).
    static func seed(_ server: MockIMAPServer) throws {
        try server.store.seed(
            user: "alice", from: .raw(grace, flags: [.seen, .answered], internalDate: dateTime(2024, 3, 6)))
        try server.store.seed(
            user: "alice", from: .raw(juergen, flags: [.flagged, "$Pinned"], internalDate: dateTime(2024, 3, 10)))
        try server.store.seed(
            user: "alice", from: .raw(team, flags: [.deleted, .draft], internalDate: dateTime(2024, 3, 15)))
        try server.store.seed(user: "alice", from: .raw(undated, internalDate: dateTime(2024, 3, 20)))
    }
}

extension RawClient {
    /// The numbers of the `* SEARCH` (or `* SORT`) line of a command.
    func numbers(_ tag: String, _ command: String) async throws -> [UInt32] {
        let lines = try await self.command(tag, command)
        #expect(lines.tagged.hasPrefix("\(tag) OK"), "\(command): \(lines.tagged)")
        guard let line = lines.first(where: { $0.hasPrefix("* SEARCH") || $0.hasPrefix("* SORT") }) else { return [] }
        return line.split(separator: " ").dropFirst(2).compactMap { UInt32($0) }
    }

    /// Logs in as alice and selects INBOX.
    func selectInbox(readOnly: Bool = false) async throws -> [String] {
        try await login()
        return try await command("s", readOnly ? "EXAMINE INBOX" : "SELECT INBOX")
    }
}
