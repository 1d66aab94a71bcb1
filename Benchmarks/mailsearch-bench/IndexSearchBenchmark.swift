import Foundation
import IMAPCore
import MailSearch

/// `mailsearch-bench index-search --index <file> [--mailbox NAME] [--rounds N] [--json] [query ...]`:
/// the local index's answers in process, on an index a `mailsearch sync` made
/// (Benchmarks/index/compare.sh makes one at 20,000 and 100,000 messages).
///
/// For each query, compiled as `search --offline` compiles it, the rounds time:
/// - the newest 50 matches and their rows (``MessageIndex/newest(_:matching:in:now:serverMatchesWords:)``
///   and ``MessageIndex/emails(_:in:pinFlag:)``): what a search page and the TUI's type-ahead
///   show; the goal is 20 ms at p95 at 100,000 messages;
/// - beside it, every match (``MessageIndex/search(_:in:now:serverMatchesWords:)``): what the
///   index did before the newest could be found alone, and what a count of all matches costs.
struct IndexSearchBenchmark {
    static let defaultQueries = ["from:tanaka", "body:quarterly", "subject:meeting", "is:unread", "up", "xyzzy"]
    static let pageSize = 50

    struct Measurement {
        var query: String
        var matches: Int
        /// Seconds per round, sorted.
        var newest: [Double]
        var all: [Double]
    }

    struct Report {
        var path: String
        var messages: Int
        var rounds: Int
        var measurements: [Measurement]
    }

    let path: String
    let mailbox: String
    let rounds: Int
    let queries: [String]

    func run() async throws -> Report {
        guard FileManager.default.fileExists(atPath: path) else { throw BenchError("no index at \(path)") }
        let index = try MessageIndex(path: path)
        defer { index.close() }
        guard let indexed = try await index.mailbox(mailbox) else { throw BenchError("\(mailbox) is not indexed") }
        let now = Date()
        let context = SearchContext(
            capabilities: [.imap4rev1], mailboxFlags: [.answered, .flagged, .deleted, .seen, .draft],
            permanentFlags: nil, now: now, timeZone: TimeZone.current)
        let seconds = Int(now.timeIntervalSince1970)
        var measurements: [Measurement] = []
        for query in queries {
            let keys = try QueryCompiler.compile(query, context: context).programKeys
            var measurement = Measurement(query: query, matches: 0, newest: [], all: [])
            // One warm-up round each, then the rounds, the two interleaved.
            for round in 0...rounds {
                var start = DispatchTime.now()
                guard
                    case .uids(let newest) = try await index.newest(
                        Self.pageSize, matching: keys, in: mailbox, now: seconds)
                else { throw BenchError("the index does not answer \(query) itself") }
                _ = try await index.emails(newest, in: mailbox, pinFlag: .flagged)
                let newestTime = Self.seconds(since: start)
                start = DispatchTime.now()
                guard case .uids(let all) = try await index.search(keys, in: mailbox, now: seconds) else {
                    throw BenchError("the index does not answer \(query) itself")
                }
                let allTime = Self.seconds(since: start)
                let expected = try await index.newestFirst(all, in: mailbox).prefix(Self.pageSize)
                guard Array(expected) == newest else {
                    throw BenchError("\(query): the newest 50 differ from all's first")
                }
                measurement.matches = all.count
                if round > 0 {
                    measurement.newest.append(newestTime)
                    measurement.all.append(allTime)
                }
            }
            measurement.newest.sort()
            measurement.all.sort()
            measurements.append(measurement)
        }
        return Report(path: path, messages: indexed.messageCount, rounds: rounds, measurements: measurements)
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

extension IndexSearchBenchmark.Report {
    /// The value at fraction `p` of sorted `values` (nearest rank).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        values[min(values.count - 1, max(0, Int((p * Double(values.count)).rounded(.up)) - 1))]
    }

    func table() -> String {
        var lines = [
            "local index, in process: \(messages) messages, \(rounds) rounds (\(path))",
            "query".padding(toLength: 22, withPad: " ", startingAt: 0) + "matches" + "   newest 50 p50     p95"
                + "    all p50      p95",
        ]
        for measurement in measurements {
            let figures = [
                Self.percentile(measurement.newest, 0.5), Self.percentile(measurement.newest, 0.95),
                Self.percentile(measurement.all, 0.5), Self.percentile(measurement.all, 0.95),
            ].map { String(format: "%8.2f ms", $0 * 1000) }
            lines.append(
                measurement.query.padding(toLength: 22, withPad: " ", startingAt: 0)
                    + String(measurement.matches).padding(toLength: 8, withPad: " ", startingAt: 0)
                    + figures.joined(separator: " "))
        }
        let worst = measurements.map { Self.percentile($0.newest, 0.95) }.max() ?? 0
        lines.append(
            String(
                format: "goal: the newest 50 within 20 ms at p95 (at 100,000 messages): worst p95 %.2f ms, %@",
                worst * 1000, worst <= 0.020 ? "met" : "NOT met"))
        return lines.joined(separator: "\n") + "\n"
    }

    func json() -> String {
        let items = measurements.map { measurement in
            String(
                format:
                    "{\"query\":\"%@\",\"matches\":%d,\"newest_p50\":%.5f,\"newest_p95\":%.5f,\"all_p50\":%.5f,\"all_p95\":%.5f}",
                measurement.query.replacing("\\", with: "\\\\").replacing("\"", with: "\\\""), measurement.matches,
                Self.percentile(measurement.newest, 0.5), Self.percentile(measurement.newest, 0.95),
                Self.percentile(measurement.all, 0.5), Self.percentile(measurement.all, 0.95))
        }
        return "{\"benchmark\":\"index-search\",\"messages\":\(messages),\"rounds\":\(rounds),\"queries\":["
            + items.joined(separator: ",") + "]}"
    }
}

/// The options of the benchmarks over an index: `--index <file> [--mailbox NAME] [--rounds N]
/// [--json] [query ...]`.
struct IndexBenchmarkOptions {
    var path: String
    var mailbox = "INBOX"
    var rounds: Int
    var json = false
    var queries: [String] = []

    init(_ arguments: [String], benchmark: String, defaultRounds: Int) {
        var path: String?
        rounds = defaultRounds
        var position = 0
        while position < arguments.count {
            let word = arguments[position]
            position += 1
            switch word {
            case "--json": json = true
            case "--index", "--mailbox", "--rounds":
                guard position < arguments.count else { usageError("\(word) needs a value") }
                let value = arguments[position]
                position += 1
                if word == "--index" {
                    path = value
                } else if word == "--mailbox" {
                    mailbox = value
                } else {
                    guard let number = Int(value), number >= 1 else {
                        usageError("--rounds needs a whole number of at least 1")
                    }
                    rounds = number
                }
            default:
                guard !word.hasPrefix("--") else { usageError("unknown option \"\(word)\" for \(benchmark)") }
                queries.append(word)
            }
        }
        guard let path else { usageError("\(benchmark) needs --index <file> (an index `mailsearch sync` made)") }
        self.path = path
    }
}

/// `mailsearch-bench index-search --index <file> [--mailbox NAME] [--rounds N] [--json] [query ...]`.
func runIndexSearchBenchmark(_ arguments: [String]) -> Never {
    let options = IndexBenchmarkOptions(arguments, benchmark: "index-search", defaultRounds: 50)
    let benchmark = IndexSearchBenchmark(
        path: options.path, mailbox: options.mailbox, rounds: options.rounds,
        queries: options.queries.isEmpty ? IndexSearchBenchmark.defaultQueries : options.queries)
    runToCompletion(
        "index-search", json: options.json, { try await benchmark.run() }, table: { $0.table() },
        line: { $0.json() })
}
