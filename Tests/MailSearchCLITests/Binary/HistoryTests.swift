import Foundation
import TestSupport
import Testing

/// Search history across invocations (XDG_STATE_HOME pointed at the test's own directory), and
/// `suggest` from it, from operators and from the people seen in the account's mail.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct HistoryTests {
    @Test func searchesAreRememberedAcrossInvocations() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let base = account.tlsArguments
        for query in [
            ["from:Luna"], ["is:unread", "  OR  ", "from:albus"], ["from:luna"], [""], ["from:\"unterminated"],
        ] {
            _ = try await ToolProcess.run(base + ["search", "--"] + query, environment: account.environment)
        }
        let history = try await ToolProcess.run(base + ["history"], environment: account.environment)
        #expect(history.status == 0, "\(history)")
        // Newest first; whitespace collapsed; the repeat (ignoring case) moved to the top; the
        // empty query and the one that does not parse are not recorded.
        #expect(history.lines == ["from:luna", "is:unread OR from:albus"])
        let json = try await ToolProcess.run(base + ["history", "--json"], environment: account.environment)
        #expect(json.lines == [#""from:luna""#, #""is:unread OR from:albus""#])

        let file = account.directory.appendingPathComponent("state/mailsearch/history.json").path
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        // Another account has its own history.
        let other = try await ToolProcess.run(["--demo", "history"], environment: account.environment)
        #expect(other.status == 0, "\(other)")
        #expect(other.standardOutput.isEmpty)

        let cleared = try await ToolProcess.run(base + ["history", "--clear"], environment: account.environment)
        #expect(cleared.standardOutput == "Forgot 2 searches.\n")
        let empty = try await ToolProcess.run(base + ["history"], environment: account.environment)
        #expect(empty.status == 0)
        #expect(empty.standardOutput.isEmpty)
    }

    @Test func searchThatCannotConnectIsNotRecorded() async throws {
        let account = try await MockAccount.start(demo: false)
        defer { Task { await account.stop() } }
        var environment = account.environment
        environment["MAILSEARCH_PASSWORD"] = "wrong"
        let failed = try await ToolProcess.run(account.tlsArguments + ["search", "from:x"], environment: environment)
        #expect(failed.status == 77)
        let history = try await ToolProcess.run(account.tlsArguments + ["history"], environment: account.environment)
        #expect(history.standardOutput.isEmpty)
    }

    @Test func suggestionsFromHistoryOperatorsAndPeople() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        let base = account.tlsArguments
        _ = try await ToolProcess.run(base + ["search", "from:luna"], environment: account.environment)
        _ = try await ToolProcess.run(base + ["search", "from:dumbledore is:unread"], environment: account.environment)

        let people = try await ToolProcess.run(base + ["suggest", "from:lu"], environment: account.environment)
        #expect(people.status == 0, "\(people)")
        #expect(
            people.lines == ["from:luna", #"from:"Luna Lovegood""#, "from:luna.lovegood@hogwarts.example"], "\(people)")

        let operators = try await ToolProcess.run(base + ["suggest", "fr"], environment: account.environment)
        #expect(operators.lines == ["from:dumbledore is:unread", "from:luna", "from:"])
        let recentFirst = try await ToolProcess.run(base + ["suggest", "from:"], environment: account.environment)
        #expect(Array(recentFirst.lines.prefix(2)) == ["from:dumbledore is:unread", "from:luna"])
        // Then everyone seen in the three messages shown (Luna, Albus, Harry), most frequent first.
        #expect(
            Array(recentFirst.lines.dropFirst(2)) == [
                #"from:"Harry Potter""#, "from:harry.potter@hogwarts.example", #"from:"Albus Dumbledore""#,
                "from:albus.dumbledore@hogwarts.example", #"from:"Luna Lovegood""#,
                "from:luna.lovegood@hogwarts.example",
            ])
        let values = try await ToolProcess.run(base + ["suggest", "is:"], environment: account.environment)
        #expect(
            values.lines == [
                "is:unread", "is:read", "is:pinned", "is:unpinned", "is:flagged", "is:unflagged", "is:answered",
                "is:draft", "is:deleted",
            ])
        let ages = try await ToolProcess.run(
            base + ["suggest", "--", "-newer_than:"], environment: account.environment)
        #expect(ages.lines.first == "-newer_than:7d")

        // Without any account, operators still complete.
        let noAccount = try await ToolProcess.run(
            ["suggest", "sub"], environment: ToolEnvironment.make(account.directory))
        #expect(noAccount.status == 0, "\(noAccount)")
        #expect(noAccount.lines == ["subject:"])
    }
}

/// The history keeps the 20 newest searches (docs/cli.md), through the binary.
@Suite(.hangGuard, .timeLimit(.minutes(3)))
struct HistoryCapacityTests {
    @Test func historyIsCappedAtTwenty() async throws {
        let account = try await MockAccount.start()
        defer { Task { await account.stop() } }
        for number in 1...23 {
            let search = try await ToolProcess.run(
                account.tlsArguments + ["search", "--json", "subject:topic\(number)"], environment: account.environment)
            #expect(search.status == 0, "\(search)")
        }
        let history = try await ToolProcess.run(account.tlsArguments + ["history"], environment: account.environment)
        #expect(history.status == 0, "\(history)")
        #expect(history.lines == (4...23).reversed().map { "subject:topic\($0)" })
        // An old one searched again moves to the top and the oldest left drops out.
        _ = try await ToolProcess.run(
            account.tlsArguments + ["search", "subject:topic10"], environment: account.environment)
        let again = try await ToolProcess.run(account.tlsArguments + ["history"], environment: account.environment)
        #expect(
            again.lines == ["subject:topic10"] + (4...23).reversed().filter { $0 != 10 }.map { "subject:topic\($0)" })
    }
}
