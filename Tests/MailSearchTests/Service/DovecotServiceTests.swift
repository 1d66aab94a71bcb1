import Foundation
import IMAPClient
import IMAPCore
import MailMIME
import MailSearch
import Synchronization
import TestSupport
import Testing
import Transport

/// `IMAPMailService` against a real Dovecot (scripts/dovecot.sh), started once for this suite
/// with 60 generated messages for `dana`. Skipped, with this message, only where Dovecot is not
/// installed and `MAILSEARCH_REQUIRE_DOVECOT` is not 1; CI requires it.
@Suite(
    .hangGuard,
    .enabled("Dovecot is not installed (apt-get install dovecot-imapd)") { try DovecotProcess.isAvailable() },
    .timeLimit(.minutes(3)), .serialized)
struct DovecotServiceTests {
    static let messageCount = 60
    private static let starter = Mutex<Task<DovecotProcess, any Error>?>(nil)

    static func dovecot() async throws -> DovecotProcess {
        let task = starter.withLock { task -> Task<DovecotProcess, any Error> in
            if let task { return task }
            let started = Task { () async throws -> DovecotProcess in
                let work = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "mailsearch-service-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: work) }
                let maildir = work.appendingPathComponent("dana").path
                _ = try await TestProcess.run(
                    "/usr/bin/env",
                    [
                        "python3", DovecotProcess.script("generate-maildir.py"), "--out", maildir, "--count",
                        "\(messageCount)", "--seed", "8",
                    ])
                return try await DovecotProcess.start([
                    "--users", "dana:\(DovecotProcess.password)", "--maildir-from", "dana=\(maildir)",
                ])
            }
            task = started
            return started
        }
        return try await task.value
    }

    static func configuration(_ dovecot: DovecotProcess) -> IMAPConfiguration {
        IMAPConfiguration(
            host: "localhost", port: dovecot.imapsPort,
            security: .implicitTLS(ClientTLSConfiguration(additionalTrustPEM: dovecot.certificatePEM)),
            timeouts: .init(connect: .seconds(10), tlsHandshake: .seconds(10), commandInactivity: .seconds(60)))
    }

    static func service(
        _ dovecot: DovecotProcess, flagPolicy: FlagPolicy = FlagPolicy(), logger: Logger = .disabled,
        ignoredCapabilities: Set<Capability> = []
    ) -> IMAPMailService {
        var configuration = configuration(dovecot)
        configuration.logger = logger
        configuration.ignoredCapabilities = ignoredCapabilities
        return IMAPMailService(
            configuration: configuration, credentials: .password(user: "dana", password: DovecotProcess.password),
            flagPolicy: flagPolicy)
    }

    /// The commands in a protocol trace (`C: A4 UID SORT ...` lines) after the last LOGIN,
    /// AUTHENTICATE, ENABLE, CAPABILITY or ID, by name (`SELECT`, `UID SORT`).
    static func commandsAfterLogin(_ trace: [String]) -> [String] {
        var names: [String] = []
        for line in trace where line.hasPrefix("C: ") {
            let words = line.dropFirst(3).split(separator: " ").map { $0.uppercased() }
            guard words.count >= 2 else { continue }
            let name = words[1] == "UID" && words.count >= 3 ? "UID \(words[2])" : words[1]
            if ["LOGIN", "AUTHENTICATE", "ENABLE", "CAPABILITY", "ID"].contains(name) {
                names = []
            } else if name != "IDLE" && name != "NOOP" && name != "DONE" {
                names.append(name)
            }
        }
        return names
    }

    /// Dovecot 2.3.19 announces PREVIEW; ignoring it, the client makes the previews from the start
    /// of each body (a server without PREVIEW), in the same one FETCH of the page.
    @Test(arguments: [false, true])
    func openingListsAPageInThreeCommandsAndASearchCostsTwo(withoutPreview: Bool) async throws {
        let dovecot = try await Self.dovecot()
        let trace = MemoryLogHandler()
        let service = Self.service(
            dovecot, logger: Logger(label: "trace", level: .trace, handler: trace),
            ignoredCapabilities: withoutPreview ? [.preview] : [])
        _ = try await service.open()
        let page = try await service.list(pageSize: 25)
        // The pinned ones' UID SEARCH goes in the same flight as the sort (either first).
        #expect(
            Self.commandsAfterLogin(trace.messages).sorted()
                == ["SELECT", "UID SEARCH", "UID SORT", "UID FETCH"].sorted())
        let fetch = try #require(trace.messages.first { $0.hasPrefix("C: ") && $0.contains(" UID FETCH ") })
        #expect(fetch.contains("BODY.PEEK[TEXT]<0.16384>") == withoutPreview, "\(fetch)")
        #expect(fetch.contains(" PREVIEW") == !withoutPreview, "\(fetch)")
        #expect(page.emails.count == 25)
        #expect(page.emails.filter { !$0.preview.isEmpty }.count >= 20)
        let before = Self.commandsAfterLogin(trace.messages).count
        let found = try await service.search(try query("is:unread"), pageSize: 25)
        #expect(Array(Self.commandsAfterLogin(trace.messages).dropFirst(before)) == ["UID SORT", "UID FETCH"])
        #expect(!found.emails.isEmpty)
        // The previews are MailMIME's of each whole message, as Dovecot's PREVIEW is.
        let emails = page.emails + found.emails
        let raw = try await Self.rawMessages(dovecot, emails.map(\.uid))
        for email in emails {
            let message = try #require(raw[email.uid])
            #expect(email.preview == PreviewText.make(for: MIMEMessage(bytes: message)), "UID \(email.uid)")
        }
        await service.close()
    }

    /// The whole messages `uids`, read over an independent connection.
    static func rawMessages(_ dovecot: DovecotProcess, _ uids: [UInt32]) async throws -> [UInt32: [UInt8]] {
        let session = try await IMAPSession.connect(configuration(dovecot))
        try await session.login(.password(user: "dana", password: DovecotProcess.password))
        try await session.select("INBOX", readOnly: true)
        var raw: [UInt32: [UInt8]] = [:]
        let item = FetchAttribute.bodySection(peek: true, section: .complete, partial: nil)
        for try await message in session.fetch(SequenceSet(numbers: uids), items: [.uid, item]) {
            for case .bodySection(_, _, let data) in message.attributes {
                if let uid = message.uid { raw[uid] = data.map { Array($0.bytes) } }
            }
        }
        await session.logout()
        return raw
    }

    /// Flags of `uids`, read over an independent connection (EXAMINE, so reading changes nothing).
    static func flagsReadBack(_ dovecot: DovecotProcess, _ uids: [UInt32]) async throws -> [UInt32: Set<Flag>] {
        let session = try await IMAPSession.connect(configuration(dovecot))
        try await session.login(.password(user: "dana", password: DovecotProcess.password))
        try await session.select("INBOX", readOnly: true)
        var flags: [UInt32: Set<Flag>] = [:]
        for try await message in session.fetch(SequenceSet(numbers: uids), items: [.uid, .flags]) {
            if let uid = message.uid { flags[uid] = Set(message.flags ?? []).subtracting([.recent]) }
        }
        await session.logout()
        return flags
    }

    @Test func listingSearchingAndPreviewsNeverMarkMailRead() async throws {
        let dovecot = try await Self.dovecot()
        let before = try await Self.flagsReadBack(dovecot, Array(1...UInt32(Self.messageCount)))
        let unread = before.filter { !$0.value.contains(.seen) }.map(\.key)
        #expect(!unread.isEmpty)
        let service = Self.service(dovecot)
        let mailbox = try await service.open()
        #expect(mailbox.messageCount == Self.messageCount)
        var page = try await service.list(pageSize: 25)
        #expect(page.list.total == Self.messageCount)
        #expect(page.emails.count == 25)
        #expect(page.emails.allSatisfy { !$0.subject.isEmpty && !$0.from.address.isEmpty })
        #expect(page.emails.contains { !$0.preview.isEmpty })
        while page.hasMore { page = try await service.page(of: page.list, offset: page.offset + 25, pageSize: 25) }
        let found = try await service.search(try query("is:unread"), pageSize: 100)
        #expect(Set(found.list.ids.map(\.uid)) == Set(unread))
        let after = try await Self.flagsReadBack(dovecot, Array(1...UInt32(Self.messageCount)))
        #expect(after == before)
        await service.close()
    }

    @Test(arguments: [nil, "$Pinned"]) func pinAndReadAreStoredOnDovecot(keyword: String?) async throws {
        let dovecot = try await Self.dovecot()
        let service = Self.service(dovecot, flagPolicy: FlagPolicy(pinKeyword: keyword.map { Flag($0) }))
        let mailbox = try await service.open()
        let pinFlag = keyword.map { Flag($0) } ?? .flagged
        #expect(mailbox.pinFlag == pinFlag)
        let uid: UInt32 = keyword == nil ? 11 : 12
        let id = Email.ID(mailbox: "INBOX", uidValidity: mailbox.uidValidity, uid: uid)
        let original = try #require(try await Self.flagsReadBack(dovecot, [uid])[uid])

        let result = try await service.setPinned(true, for: [id])
        #expect(result.refused.isEmpty)
        #expect(try await Self.flagsReadBack(dovecot, [uid])[uid] == original.union([pinFlag]))
        #expect(result.flags[id].map(Set.init) == original.union([pinFlag]), "the flags Dovecot has now")
        let pinned = try await service.search(try query("is:pinned"), pageSize: 100)
        #expect(pinned.list.ids.contains(id))
        #expect(try await service.setPinned(false, for: [id]).refused.isEmpty)
        #expect(try await Self.flagsReadBack(dovecot, [uid])[uid] == original.subtracting([pinFlag]))

        #expect(try await service.setRead(true, for: [id]).refused.isEmpty)
        #expect(try await Self.flagsReadBack(dovecot, [uid])[uid] == original.subtracting([pinFlag]).union([.seen]))
        #expect(try await service.setRead(false, for: [id]).refused.isEmpty)
        #expect(try await Self.flagsReadBack(dovecot, [uid])[uid] == original.subtracting([pinFlag, .seen]))
        // Put it back as it was.
        if original.contains(.seen) { _ = try await service.setRead(true, for: [id]) }
        if original.contains(pinFlag) { _ = try await service.setPinned(true, for: [id]) }
        await service.close()
    }
}
