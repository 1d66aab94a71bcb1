import Foundation
import IMAPClient
import IMAPCore
import MailSearch
import Synchronization
import TestSupport
import Testing
import Transport

/// `IMAPMailService` against a real Dovecot (scripts/dovecot.sh), started once for this suite
/// with 60 generated messages for `dana`. Skipped, with this message, only where Dovecot is not
/// installed and `MAILSEARCH_REQUIRE_DOVECOT` is not 1; CI requires it.
@Suite(
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

    static func service(_ dovecot: DovecotProcess, flagPolicy: FlagPolicy = FlagPolicy()) -> IMAPMailService {
        IMAPMailService(
            configuration: configuration(dovecot),
            credentials: .password(user: "dana", password: DovecotProcess.password),
            flagPolicy: flagPolicy)
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

        #expect(try await service.setPinned(true, for: [id]).refused.isEmpty)
        #expect(try await Self.flagsReadBack(dovecot, [uid])[uid] == original.union([pinFlag]))
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
