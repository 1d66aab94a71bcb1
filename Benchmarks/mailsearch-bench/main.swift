import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// mailsearch-bench: throughput of the IMAP response parser against a plain CRLF scan of the same
// bytes, measured in one process.
//
//   mailsearch-bench parse <file> [--rounds <n>] [--json]
//   mailsearch-bench fetch [--messages <n>] [--rounds <n>] [--only raw|parsed] [--server PORT:CA-FILE] [--json]
//   mailsearch-bench server-search [--messages <n> (default 100000)] [--rounds <n> (default 5)] [--json]
//   mailsearch-bench summaries [--messages <n> (default 2000)] [--rounds <n> (default 5)] [--json]
//   mailsearch-bench index-search --index <file> [--mailbox <name>] [--rounds <n> (default 50)] [--json] [query ...]
//   mailsearch-bench type-ahead --index <file> [--mailbox <name>] [--rounds <n> (default 5)] [--json] [query ...]

let usage =
    "usage: mailsearch-bench <parse|fetch|server-search|summaries|index-search|type-ahead> [options] (--help for more)"

let help = """
    OVERVIEW: MailSearch's performance goals, each measured beside a baseline in the same run.

    USAGE: mailsearch-bench <benchmark> [options]

    BENCHMARKS:
      parse <file>          The response parser's MB/s on a file of raw server bytes, fed in
                            64 KiB chunks, beside FrameDecoder and a plain CRLF scan.
                            (default 7 rounds)
      fetch                 Dovecot, N generated messages: UID FETCH 1:* of envelopes parsed
                            through IMAPSession beside a raw TLS read of the same bytes; peak
                            memory. (default 20000 messages, 25 rounds)
      server-search         The mock server's and Dovecot's UID SEARCH times over the same
                            messages. (default 100000 messages, 5 rounds)
      summaries             Previews from the first N KB of each body; the newest page of 50
                            in one FETCH, in the previous three commands, and with PREVIEW.
                            (default 2000 messages, 5 rounds)
      index-search          The local index in process (--index <file>, made by mailsearch
                            sync): the newest 50 matches and their rows beside every match,
                            p50 and p95 per query. (default 50 rounds)
      type-ahead            The TUI's key to redrawn type-ahead results over the index
                            (--index <file>), each query typed a key at a time, beside the
                            same keys without local answers. (default 5 rounds)

    OPTIONS:
      --messages <n>        Messages to generate (fetch, server-search, summaries).
      --rounds <n>          Timed rounds per measurement, after one warm-up round.
      --only raw|parsed     fetch: time one kind of round only (for a profiler).
      --server PORT:CA-FILE fetch: use a running Dovecot (user alice, password secret)
                            instead of starting one, e.g. under valgrind, which cannot
                            start the script.
      --json                One line of JSON instead of the table.
      -h, --help            Show help information.

    """

func fail(_ message: String, status: Int32) -> Never {
    var text = "error: \(message)\n"
    text.withUTF8 { buffer in _ = write(STDERR_FILENO, buffer.baseAddress, buffer.count) }
    exit(status)
}

func usageError(_ message: String) -> Never { fail("\(message); \(usage)", status: 64) }

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) || arguments.first == "help" {
    print(help, terminator: "")
    exit(0)
}
guard let benchmark = arguments.first else { usageError("no benchmark given") }
guard ["parse", "fetch", "server-search", "summaries", "index-search", "type-ahead"].contains(benchmark) else {
    usageError(
        "unknown benchmark \"\(benchmark)\" (there are: parse, fetch, server-search, summaries, index-search, type-ahead)"
    )
}
if benchmark == "type-ahead" {
    runTypeAheadBenchmark(Array(arguments.dropFirst()))
}
if benchmark == "index-search" {
    runIndexSearchBenchmark(Array(arguments.dropFirst()))
}
if benchmark == "fetch" {
    runFetchBenchmark(Array(arguments.dropFirst()))
}
if benchmark == "server-search" {
    runServerSearchBenchmark(Array(arguments.dropFirst()))
}
if benchmark == "summaries" {
    runSummariesBenchmark(Array(arguments.dropFirst()))
}
var rounds = 7
var json = false
var file: String?
var position = 1
while position < arguments.count {
    let word = arguments[position]
    position += 1
    switch word {
    case "--json": json = true
    case "--rounds":
        guard position < arguments.count, let value = Int(arguments[position]), value >= 1 else {
            usageError("--rounds needs a whole number of at least 1")
        }
        rounds = value
        position += 1
    case _ where word.hasPrefix("--rounds="):
        guard let value = Int(word.dropFirst("--rounds=".count)), value >= 1 else {
            usageError("--rounds needs a whole number of at least 1")
        }
        rounds = value
    case _ where word.hasPrefix("-") && word != "-":
        usageError("unknown option \"\(word)\"")
    default:
        guard file == nil else { usageError("unexpected argument \"\(word)\"") }
        file = word
    }
}
guard let file else { usageError("missing argument <file>") }

let bytes: [UInt8]
do {
    bytes = try readFile(file)
} catch {
    fail("cannot read \(file): \(error)", status: 1)
}
do {
    let report = try ParseBenchmark(bytes: bytes, rounds: rounds).run()
    print(json ? report.json(file: file) : report.table(file: file))
} catch {
    fail("\(file): \(error)", status: 1)
}

/// The options the Dovecot benchmarks share: `[--messages N] [--rounds N] [--json]`.
struct DatasetOptions {
    var messages: Int
    var rounds: Int
    var json = false
    /// fetch: time one kind of round only (`--only raw|parsed`), for profilers.
    var only: FetchBenchmark.Kind?
    /// fetch: a Dovecot already running (`--server PORT:CA-FILE`, user alice, password secret),
    /// for tools that cannot start one (valgrind cannot spawn the script).
    var server: (port: Int, certificateFile: String)?

    init(_ arguments: [String], benchmark: String, defaultMessages: Int, defaultRounds: Int = 5) {
        messages = defaultMessages
        rounds = defaultRounds
        var position = 0
        while position < arguments.count {
            let word = arguments[position]
            position += 1
            switch word {
            case "--json": json = true
            case "--messages", "--rounds":
                guard position < arguments.count, let value = Int(arguments[position]), value >= 1 else {
                    usageError("\(word) needs a whole number of at least 1")
                }
                if word == "--messages" { messages = value } else { rounds = value }
                position += 1
            case "--only" where benchmark == "fetch":
                guard position < arguments.count, let kind = FetchBenchmark.Kind(rawValue: arguments[position]) else {
                    usageError("--only needs raw or parsed")
                }
                only = kind
                position += 1
            case "--server" where benchmark == "fetch":
                let parts = position < arguments.count ? arguments[position].split(separator: ":", maxSplits: 1) : []
                guard parts.count == 2, let port = Int(parts[0]) else {
                    usageError("--server needs PORT:CA-FILE (a Dovecot's IMAPS port and its certificate)")
                }
                server = (port, String(parts[1]))
                position += 1
            default: usageError("unknown option \"\(word)\" for \(benchmark)")
            }
        }
    }
}

/// The repository root (the benchmarks run its scripts). Computed, not a top-level `let`: the
/// commands run before main.swift would reach such a declaration.
var repositoryRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}

/// Runs an async benchmark from the synchronous top level, prints its report and exits.
func runToCompletion<Report>(
    _ benchmark: String, json: Bool, _ run: @escaping @Sendable () async throws -> Report,
    table: (Report) -> String, line: (Report) -> String
) -> Never {
    let finished = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var outcome: Result<Report, any Error>?
    Task.detached {
        do {
            outcome = .success(try await run())
        } catch {
            outcome = .failure(error)
        }
        finished.signal()
    }
    finished.wait()
    switch outcome {
    case .success(let report)?:
        print(json ? line(report) : table(report), terminator: json ? "\n" : "")
        exit(0)
    case .failure(let error)?:
        fail("\(benchmark): \(error)", status: 1)
    case nil:
        fail("\(benchmark): no result", status: 1)
    }
}

/// `mailsearch-bench fetch [--messages N] [--rounds N] [--json]`.
func runFetchBenchmark(_ arguments: [String]) -> Never {
    // 25 rounds: one round on this shared 2-core machine varies by a third either way.
    let options = DatasetOptions(arguments, benchmark: "fetch", defaultMessages: 20000, defaultRounds: 25)
    runToCompletion(
        "fetch", json: options.json,
        {
            try await FetchBenchmark(
                messages: options.messages, rounds: options.rounds, repositoryRoot: repositoryRoot,
                only: options.only, server: options.server
            )
            .run()
        },
        table: { $0.table() }, line: { $0.json() })
}

/// `mailsearch-bench server-search [--messages N] [--rounds N] [--json]`.
func runServerSearchBenchmark(_ arguments: [String]) -> Never {
    let options = DatasetOptions(arguments, benchmark: "server-search", defaultMessages: 100_000)
    runToCompletion(
        "server-search", json: options.json,
        {
            try await ServerSearchBenchmark(
                messages: options.messages, rounds: options.rounds, repositoryRoot: repositoryRoot
            ).run()
        },
        table: { $0.table() }, line: { $0.json() })
}
