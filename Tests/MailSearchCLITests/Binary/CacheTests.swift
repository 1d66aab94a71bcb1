import Foundation
import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// The messages lists show, kept in the account's index, through the built `mailsearch`: a second
/// search fetches flags only and prints what a search without them prints, with the flags another
/// client changed; `--no-cache` neither reads nor writes the index; the summary cache an earlier
/// version kept beside it is removed (one local store of messages); an index that cannot be used
/// is a warning.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct CacheTests {
    @Test func aSecondSearchFetchesOnlyFlagsAndPrintsTheSame() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let search = account.tlsArguments + ["search", "--json", "from:dumbledore"]
        // What an earlier version kept: a second file of mail text that `index drop` left.
        let folder = account.directory.appendingPathComponent(".cache/mailsearch")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let earlier = folder.appendingPathComponent("summaries.sqlite")
        try Data("subjects and previews".utf8).write(to: earlier)
        let first = try await ToolProcess.run(search, environment: account.environment)
        #expect(first.status == 0 && first.lines.count == 2, "\(first)")
        #expect(!FileManager.default.fileExists(atPath: earlier.path))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sqlite") }
        #expect(files.count == 1 && files[0].hasPrefix("index-"), "\(files)")
        let cacheFile = folder.appendingPathComponent(files.first ?? "").path
        let mode = try FileManager.default.attributesOfItem(atPath: cacheFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Another client pins the newest meanwhile.
        let newest = UInt32(try #require(jsonObject(first.lines[0])["uid"] as? Int))
        let other = try await account.otherConnection()
        try await other.select("INBOX")
        _ = try await other.store(SequenceSet(numbers: [newest]), .add, [.flagged])
        await other.logout()

        let second = try await ToolProcess.run(
            account.tlsArguments + ["--debug", "search", "--json", "from:dumbledore"], environment: account.environment)
        #expect(second.status == 0, "\(second)")
        let fetches = second.standardError.split(separator: "\n").filter { $0.contains(" UID FETCH ") }
        #expect(fetches.count == 1 && fetches[0].hasSuffix("(UID FLAGS MODSEQ)\\r\\n"), "\(fetches)")
        #expect(try jsonObject(second.lines[0])["pinned"] as? Bool == true)
        let uncached = try await ToolProcess.run(
            account.tlsArguments + ["--no-cache", "--debug", "search", "--json", "from:dumbledore"],
            environment: account.environment)
        #expect(uncached.status == 0, "\(uncached)")
        #expect(second.lines == uncached.lines)
        #expect(second.lines != first.lines)
        let wholeFetches = uncached.standardError.split(separator: "\n").filter { $0.contains(" UID FETCH ") }
        #expect(wholeFetches.count == 1 && wholeFetches[0].contains("ENVELOPE"), "\(wholeFetches)")
        // Rows too: the same with the cache as without.
        let rows = try await ToolProcess.run(account.tlsArguments + ["list"], environment: account.environment)
        let uncachedRows = try await ToolProcess.run(
            account.tlsArguments + ["--no-cache", "list"], environment: account.environment)
        #expect(rows.status == 0 && rows.lines == uncachedRows.lines && rows.lines.count > 10, "\(rows)")
    }

    @Test func noCacheLeavesNoFile() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let result = try await ToolProcess.run(
            account.tlsArguments + ["--no-cache", "list", "--json"], environment: account.environment)
        #expect(result.status == 0 && !result.lines.isEmpty, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: account.directory.appendingPathComponent(".cache").path))
        // Nor does the demo, whose messages are made afresh in each process.
        let demo = try await ToolProcess.run(["--demo", "search", "from:dumbledore"], environment: account.environment)
        #expect(demo.status == 0, "\(demo)")
        #expect(!FileManager.default.fileExists(atPath: account.directory.appendingPathComponent(".cache").path))
    }

    @Test func aCacheThatCannotBeUsedIsOneWarning() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let blocker = account.directory.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        var environment = account.environment
        environment["XDG_CACHE_HOME"] = blocker.path
        let result = try await ToolProcess.run(
            account.tlsArguments + ["search", "--json", "from:dumbledore"], environment: environment)
        #expect(result.status == 0 && result.lines.count == 2, "\(result)")
        #expect(
            result.standardError
                == "warning: the index \(blocker.path)/mailsearch cannot be created (Not a directory); "
                + "messages are fetched whole from the server each time\n")
    }
}
