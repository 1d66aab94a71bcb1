import Foundation
import IMAPCore
import MailSearch
import Testing

/// The message cache on its own: the stored form of a message, and the SQLite file (keys,
/// UIDVALIDITY, modes, a broken or unusable file, the size bound).
@Suite struct SummaryCacheTests {
    static let key = SummaryCache.Key(account: "alice@imap.example.com:993", mailbox: "INBOX", uidValidity: 7)

    static func message(_ uid: UInt32, subject: String? = nil) -> CachedMessage {
        let email = Email(
            id: Email.ID(mailbox: "INBOX", uidValidity: 7, uid: uid),
            from: Email.Person(name: uid % 2 == 0 ? "Grace Jones" : nil, address: "grace\(uid)@example.com"),
            to: [Email.Person(name: "Алиса", address: "alice@example.com"), Email.Person(name: nil, address: "b@x")],
            cc: uid % 3 == 0 ? [Email.Person(name: "日本 太郎", address: "taro@example.jp")] : [],
            subject: subject ?? "Invoice #\(uid) — naïve 📎",
            date: Date(timeIntervalSince1970: 1_700_000_000 + Double(uid)),
            preview: "quarterly calendar \(uid)", flags: [.seen], hasAttachment: uid % 5 == 0, size: Int(uid) * 1000)
        return CachedMessage(email)
    }

    /// A fresh directory for one test's cache file.
    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("summary-cache-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test(arguments: [1, 2, 3, 10, 15] as [UInt32]) func theStoredFormReadsBackAsItWas(uid: UInt32) throws {
        let message = Self.message(uid)
        let bytes = message.encoded()
        #expect(CachedMessage(uid: uid, decoding: bytes) == message)
        // Cut anywhere, or with a byte more, or of another version: not read.
        for length in 0..<bytes.count {
            #expect(CachedMessage(uid: uid, decoding: bytes.prefix(length)) == nil, "cut at \(length)")
        }
        #expect(CachedMessage(uid: uid, decoding: bytes + [0]) == nil)
        #expect(CachedMessage(uid: uid, decoding: [2] + bytes.dropFirst()) == nil)
        // The email it makes carries the flags given, not the ones it was made with.
        let email = message.email(mailbox: "INBOX", uidValidity: 7, flags: [.flagged, .recent], pinFlag: .flagged)
        #expect(email.flags == [.flagged] && email.isPinned && !email.isRead)
        #expect(CachedMessage(email) == message)
    }

    @Test func aHugeCountOrLengthIsABrokenRecordNotACrash() {
        // Version, from: no name, address of length 2^63 (LEB128).
        let hugeLength: [UInt8] = [1, 0] + Array(repeating: 0xFF, count: 8) + [0x7F]
        #expect(CachedMessage(uid: 1, decoding: hugeLength) == nil)
        // Version, from "a", then a count of 2^62 people.
        let hugeCount: [UInt8] = [1, 0, 1, 0x61] + Array(repeating: 0xFF, count: 8) + [0x3F]
        #expect(CachedMessage(uid: 1, decoding: hugeCount) == nil)
    }

    @Test func storedMessagesComeBackUnderTheirKeyOnly() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("deep/er/summaries.sqlite").path
        let cache = SummaryCache(path: path)
        let messages = (1...40).map { Self.message(UInt32($0)) }
        await cache.store(messages, under: Self.key)
        #expect(cache.problem == nil)
        // Close together (one range scan) and spread out (one lookup each), with UIDs not stored.
        let close = await cache.messages(Array(1...45), under: Self.key)
        #expect(close.count == 40 && close[7] == messages[6] && close[41] == nil)
        let spread = await cache.messages([1, 40, 1000, 20_000], under: Self.key)
        #expect(spread.count == 2 && spread[40] == messages[39])
        // Another mailbox, account or UIDVALIDITY has none of them.
        var other = Self.key
        other.mailbox = "Archive"
        #expect(await cache.messages([1, 2], under: other).isEmpty)
        other = Self.key
        other.account = "bob@imap.example.com:993"
        #expect(await cache.messages([1, 2], under: other).isEmpty)
        other = Self.key
        other.uidValidity = 8
        #expect(await cache.messages([1, 2], under: other).isEmpty)
        // A second cache on the same file (the next run) finds them; a UID stored again is replaced.
        let next = SummaryCache(path: path)
        await next.store([Self.message(3, subject: "replaced")], under: Self.key)
        #expect(await next.messages([3], under: Self.key)[3]?.subject == "replaced")
        #expect(await next.count() == 40)
        // Only its owner may read it: subjects and previews are private.
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let directoryMode =
            try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("deep/er").path)[
                .posixPermissions] as? Int
        #expect(directoryMode == 0o700)
    }

    @Test func aMailboxStoredUnderANewUIDValidityLosesItsOldMessages() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = SummaryCache(path: directory.appendingPathComponent("summaries.sqlite").path)
        var archive = Self.key
        archive.mailbox = "Archive"
        await cache.store((1...5).map { Self.message(UInt32($0)) }, under: Self.key)
        await cache.store([Self.message(9)], under: archive)
        var recreated = Self.key
        recreated.uidValidity = 8
        await cache.store([Self.message(1, subject: "new message 1")], under: recreated)
        #expect(await cache.messages(Array(1...5), under: Self.key).isEmpty)
        #expect(await cache.messages([1], under: recreated)[1]?.subject == "new message 1")
        // Other mailboxes keep theirs.
        #expect(await cache.messages([9], under: archive).count == 1)
        #expect(await cache.count() == 2)
    }

    @Test func aFileThatIsNotACacheIsReplaced() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("summaries.sqlite").path
        try Data(repeating: 0x41, count: 10_000).write(to: URL(fileURLWithPath: path))
        let cache = SummaryCache(path: path)
        #expect(await cache.messages([1], under: Self.key).isEmpty)
        await cache.store([Self.message(1)], under: Self.key)
        #expect(cache.problem == nil)
        #expect(await SummaryCache(path: path).messages([1], under: Self.key)[1] == Self.message(1))
    }

    @Test func aCacheThatCannotBeCreatedSaysWhyAndFindsNothing() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Its directory would have to be inside a file.
        let blocker = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let cache = SummaryCache(path: blocker.appendingPathComponent("summaries.sqlite").path)
        await cache.store([Self.message(1)], under: Self.key)
        #expect(await cache.messages([1], under: Self.key).isEmpty)
        let problem = try #require(cache.problem)
        #expect(problem.contains("directory") && problem.contains("is not a directory"))
    }

    /// `~/.cache/mailsearch` a link into a directory another user can read: the cache is not
    /// used, and nothing of the mail is written there.
    @Test func aCacheDirectoryThatIsALinkIsNotUsed() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let elsewhere = directory.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
        let linked = directory.appendingPathComponent("mailsearch")
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: elsewhere)
        let cache = SummaryCache(path: linked.appendingPathComponent("summaries.sqlite").path)
        await cache.store([Self.message(1)], under: Self.key)
        #expect(await cache.messages([1], under: Self.key).isEmpty)
        #expect(try #require(cache.problem).contains("symbolic link"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    /// A dangling `summaries.sqlite` link: its target is never created.
    @Test func aCacheFileThatIsALinkIsNotFollowed() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("target.sqlite")
        let path = directory.appendingPathComponent("summaries.sqlite")
        try FileManager.default.createSymbolicLink(at: path, withDestinationURL: target)
        let cache = SummaryCache(path: path.path)
        await cache.store([Self.message(1)], under: Self.key)
        #expect(try #require(cache.problem).contains("symbolic link"))
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    /// A cache left readable by others (0644 in 0755) is brought to 0600 in 0700 when next used.
    @Test func looseModesOfAnExistingCacheAreTightened() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cacheDirectory = directory.appendingPathComponent("mailsearch")
        let path = cacheDirectory.appendingPathComponent("summaries.sqlite").path
        await SummaryCache(path: path).store([Self.message(1)], under: Self.key)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cacheDirectory.path)
        let cache = SummaryCache(path: path)
        #expect(await cache.messages([1], under: Self.key).count == 1)
        #expect(cache.problem == nil)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(
            try FileManager.default.attributesOfItem(atPath: cacheDirectory.path)[.posixPermissions] as? Int == 0o700)
    }

    @Test func pastItsSizeTheOlderHalfGoes() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = SummaryCache(
            path: directory.appendingPathComponent("summaries.sqlite").path, maximumBytes: 64 << 10)
        let preview = String(repeating: "long preview text ", count: 20)
        var stored = 0
        for batch in 0..<20 {
            let messages = (0..<20).map { index in
                var message = Self.message(UInt32(batch * 20 + index + 1))
                message.preview = preview
                return message
            }
            await cache.store(messages, under: Self.key)
            stored += messages.count
        }
        let count = await cache.count()
        // 400 messages of about 500 bytes each is three times the bound: some went, and the
        // newest stayed.
        #expect(count < stored && count > 0)
        #expect(await cache.messages([400], under: Self.key).count == 1)
        #expect(await cache.messages([1], under: Self.key).isEmpty)
    }

    @Test func theDefaultPathFollowsXDGCacheHome() {
        #expect(
            SummaryCache.defaultPath(environment: ["XDG_CACHE_HOME": "/cache", "HOME": "/home/me"])
                == "/cache/mailsearch/summaries.sqlite")
        #expect(
            SummaryCache.defaultPath(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/me"])
                == "/home/me/.cache/mailsearch/summaries.sqlite")
        #expect(SummaryCache.defaultPath(environment: [:]) == nil)
    }
}
