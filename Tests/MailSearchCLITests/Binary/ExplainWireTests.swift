import Foundation
import IMAPClient
import MockIMAPServer
import TestSupport
import Testing

/// `mailsearch explain --capabilities <a server's>` prints what `mailsearch search` sends to that
/// server, line for line, for every query of docs/query-language.md (its examples and every other
/// form it lists), under each mock server profile: the search commands are read from the mock's
/// transcript and held against explain's lines, the tag taken from the wire.
///
/// Where the server refuses a charset (`NO [BADCHARSET]`: the exchange-like profile for UTF-8,
/// and a fault on each session's first search in the `charsetRefused` variant), the wire must go on
/// as explain says: the command after its "if the server refuses the charset" line, or nothing
/// more when explain shows none (the search fails).
///
/// Serialized: each case runs about a hundred tool processes, and eight at once would crowd a
/// small machine the rest of the suite shares.
@Suite(.hangGuard, .serialized, .timeLimit(.minutes(10)))
struct ExplainWireTests {
    enum Variant: String, CaseIterable, Sendable {
        /// The server answers as its profile does.
        case asAnswered
        /// The first UID SORT and the first UID SEARCH of each session get `NO [BADCHARSET]`.
        case charsetRefused
    }

    static let queries: [(label: String, query: String)] =
        QueryLanguageExamples.rows.map { ("example \($0.label)", $0.query) } + QueryLanguageExamples.forms

    static let refusals: FaultPlan = FaultPlan(
        ["UID SORT", "UID SEARCH"].map { name in
            FaultRule(
                trigger: .command(name, occurrence: 1, counting: .perSession),
                fault: .respond(.no, code: "BADCHARSET (US-ASCII)", text: "only US-ASCII here"))
        })

    @Test(arguments: Profile.allCases, Variant.allCases)
    func explainPrintsWhatTheSessionSends(profile: Profile, variant: Variant) async throws {
        let account = try await MockAccount.start(
            profile: profile, faults: variant == .charsetRefused ? Self.refusals : [])
        defer { Task { await account.stop() } }
        let capabilities = profile.capabilities.map(\.rawValue).joined(separator: " ")
        for (label, query) in Self.queries {
            // Relative dates count from today in both runs: a run across midnight is run again.
            for _ in 0..<2 {
                let day = Self.today()
                let explained = try await ToolProcess.run(
                    ["explain", "--capabilities", capabilities, "--", query], environment: account.environment)
                let before = account.server.sessions.map(\.id).max() ?? 0
                let searched = try await ToolProcess.run(
                    account.plainArguments + ["search", "--", query], environment: account.environment)
                guard day == Self.today() else { continue }
                let sessions = account.server.sessions.filter { $0.id > before }
                let refusals = check(label, explained: explained, searched: searched, sessions: sessions)
                if variant == .charsetRefused && explained.status == 0 {
                    // Each search's first command was refused: the retry (or the failure) was seen.
                    #expect(refusals > 0, "\(label)")
                }
                break
            }
        }
    }

    /// The search commands `sessions` carry, against the lines `explained` printed; returns how
    /// many of them the server refused the charset of.
    @discardableResult
    func check(_ label: String, explained: ToolResult, searched: ToolResult, sessions: [SessionInfo]) -> Int {
        let runs = sessions.flatMap(Self.searchRuns)
        let refusals = runs.joined().filter(\.isCharsetRefusal).count
        guard explained.status == 0 else {
            // A query the compiler refuses is refused by search too, with the same words, and
            // nothing is searched.
            #expect(explained.status == 65, "\(label): \(explained)")
            #expect(searched.status == explained.status, "\(label): \(searched)")
            #expect(searched.errorLines.first == explained.errorLines.first, "\(label): \(searched)")
            #expect(runs.isEmpty, "\(label): \(runs)")
            return refusals
        }
        let steps = Self.steps(explained.lines)
        #expect(!steps.isEmpty, "\(label): \(explained)")
        #expect(!runs.isEmpty, "\(label): nothing searched; \(searched)")
        for run in runs {
            #expect(run.map(\.lines) == Self.expected(steps, on: run), "\(label): \(explained)")
        }
        return refusals
    }

    // MARK: - What explain printed

    /// One command explain shows, and the one it shows after the "refuses the charset" line.
    struct Step: Equatable {
        var command: [String]
        var retry: [String]?
    }

    static func steps(_ lines: [String]) -> [Step] {
        var steps: [Step] = []
        var retryFollows = false
        for command in commands(lines) {
            if command == [SearchPlan.charsetRefusedHeading] {
                retryFollows = true
            } else if retryFollows, !steps.isEmpty {
                steps[steps.count - 1].retry = command
                retryFollows = false
            } else {
                steps.append(Step(command: command))
            }
        }
        return steps
    }

    /// What the wire of `run` must be by explain's `steps`, given which of its commands the
    /// server refused the charset of: each step's command; after a refusal the step's retry, or
    /// nothing more when it has none (the search fails), and nothing more after a refused retry.
    /// Each command's first line carries the tag the wire gave it, and lines are cut as the mock's
    /// transcript cuts them.
    static func expected(_ steps: [Step], on run: [WireCommand]) -> [[String]] {
        var expected: [[String]] = []
        func refused(_ index: Int) -> Bool { index < run.count && run[index].isCharsetRefusal }
        func send(_ command: [String]) {
            let tag = expected.count < run.count ? run[expected.count].tag : "?"
            var lines = command
            if !lines.isEmpty { lines[0] = tag + " " + lines[0] }
            expected.append(lines.map(shownInTranscript))
        }
        for step in steps {
            send(step.command)
            guard refused(expected.count - 1) else { continue }
            guard let retry = step.retry else { break }
            send(retry)
            if refused(expected.count - 1) { break }
        }
        return expected
    }

    /// A line as the mock's transcript keeps it: at most `SessionRecord.maximumLineLength` (2000)
    /// bytes, then how long it was.
    static func shownInTranscript(_ line: String) -> String {
        let bytes = Array(line.utf8)
        let text = String(decoding: bytes.prefix(2000), as: UTF8.self)
        return bytes.count > 2000 ? text + "... (\(bytes.count) bytes)" : text
    }

    // MARK: - What the session sent

    /// One command of the client as the transcript shows it, its first line with the tag, and
    /// the server's tagged answer.
    struct WireCommand: CustomStringConvertible {
        var tag: String
        var lines: [String]
        var answer: String?

        /// The text after the tag.
        var text: String { String(lines[0].dropFirst(tag.count + 1)) }
        var isSearch: Bool { text.hasPrefix("UID SORT ") || text.hasPrefix("UID SEARCH ") }
        var isSelect: Bool { text.hasPrefix("SELECT ") || text.hasPrefix("EXAMINE ") }
        var isCharsetRefusal: Bool { answer?.contains("[BADCHARSET") ?? false }
        var description: String { (lines + [answer ?? "(no answer)"]).joined(separator: "\n") }
    }

    /// The search commands of `session`, one list per mailbox selected (a search of `in:all`
    /// runs in each mailbox).
    static func searchRuns(_ session: SessionInfo) -> [[WireCommand]] {
        var commands: [WireCommand] = []
        var continues = false
        for line in session.transcript {
            switch line.direction {
            case .client:
                if continues, !commands.isEmpty {
                    commands[commands.count - 1].lines.append(line.text)
                } else {
                    let tag = String(line.text.prefix { $0 != " " })
                    commands.append(WireCommand(tag: tag, lines: [line.text]))
                }
                continues = announcesLiteral(line.text)
            case .server:
                if let index = commands.lastIndex(where: { line.text.hasPrefix($0.tag + " ") }) {
                    commands[index].answer = line.text
                }
            }
        }
        var runs: [[WireCommand]] = []
        for command in commands {
            if command.isSelect { runs.append([]) }
            if command.isSearch {
                if runs.isEmpty { runs.append([]) }
                runs[runs.count - 1].append(command)
            }
        }
        return runs.filter { !$0.isEmpty }
    }

    // MARK: - Lines

    /// `lines` grouped into commands: a line that ends with a literal's announcement (`{n}` or
    /// `{n+}`) goes on in the next.
    static func commands(_ lines: [String]) -> [[String]] {
        var commands: [[String]] = []
        var continues = false
        for line in lines {
            if continues, !commands.isEmpty {
                commands[commands.count - 1].append(line)
            } else {
                commands.append([line])
            }
            continues = announcesLiteral(line)
        }
        return commands
    }

    static func announcesLiteral(_ line: String) -> Bool {
        guard line.hasSuffix("}"), let open = line.lastIndex(of: "{") else { return false }
        var digits = line[line.index(after: open)..<line.index(before: line.endIndex)]
        if digits.hasSuffix("+") { digits = digits.dropLast() }
        return !digits.isEmpty && digits.allSatisfy(\.isASCIIDigit)
    }

    /// Today in UTC (the tool runs with TZ=UTC).
    static func today() -> Int { Int(Date().timeIntervalSince1970) / 86400 }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
