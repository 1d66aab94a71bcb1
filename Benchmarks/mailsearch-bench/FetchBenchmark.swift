import Foundation
import IMAPClient
import IMAPCore
import Transport

/// `mailsearch-bench fetch`: against a throwaway Dovecot holding N generated messages, the time to
/// log in, select and `UID FETCH 1:* (UID FLAGS ENVELOPE RFC822.SIZE INTERNALDATE)` with every
/// message parsed into values (IMAPSession), side by side with reading the same response bytes
/// without parsing (a raw TLS connection), in the same run; plus the peak memory of the parsed
/// runs.
struct FetchBenchmark {
    let messages: Int
    let rounds: Int
    let repositoryRoot: URL
    /// Only this kind of round is timed (both still run once to warm up).
    var only: Kind?
    /// A Dovecot already running, instead of one started for the run.
    var server: (port: Int, certificateFile: String)?

    enum Kind: String {
        case raw, parsed
    }

    struct Round {
        var seconds: Double
        var count: Int
        var bytes: Int
        /// This process's CPU time (user + system, every thread) during the round: what the
        /// client itself spent, apart from waiting for Dovecot.
        var cpuSeconds: Double = 0
        /// The same split into user and system time, and the context switches meanwhile (waits
        /// for I/O or a lock, and preemptions): the kernel's share that an instruction count
        /// does not see.
        var usage = Memory.Usage()
    }

    struct Report {
        var messages: Int
        var raw: [Round]
        var parsed: [Round]
        var peakMemoryBytes: Int
        var baselineMemoryBytes: Int
    }

    func run() async throws -> Report {
        let dovecot: DovecotProcess
        if let server {
            dovecot = DovecotProcess(
                directory: "", imapsPort: server.port,
                certificatePEM: [UInt8](try Data(contentsOf: URL(fileURLWithPath: server.certificateFile))),
                root: repositoryRoot)
        } else {
            dovecot = try await DovecotProcess.start(messages: messages, root: repositoryRoot)
        }
        defer { if server == nil { dovecot.stop() } }
        let trust = ClientTLSConfiguration(additionalTrustPEM: dovecot.certificatePEM)
        // Warm up Dovecot's cache and our code paths once each.
        _ = try await rawRound(port: dovecot.imapsPort, trust: trust)
        let warmUp = try await parsedRound(port: dovecot.imapsPort, trust: trust)
        var raw: [Round] = []
        var parsed: [Round] = []
        let baseline = Memory.currentResident()
        Memory.resetPeak()
        // Interleaved, and in alternating order, so that neither kind always runs just after
        // the other (a slow moment of the shared machine falls on both kinds alike).
        for round in 0..<rounds {
            switch only {
            case .raw?:
                raw.append(try await measured { try await rawRound(port: dovecot.imapsPort, trust: trust) })
                continue
            case .parsed?:
                parsed.append(try await measured { try await parsedRound(port: dovecot.imapsPort, trust: trust) })
                continue
            case nil: break
            }
            if round.isMultiple(of: 2) {
                raw.append(try await measured { try await rawRound(port: dovecot.imapsPort, trust: trust) })
                parsed.append(try await measured { try await parsedRound(port: dovecot.imapsPort, trust: trust) })
            } else {
                parsed.append(try await measured { try await parsedRound(port: dovecot.imapsPort, trust: trust) })
                raw.append(try await measured { try await rawRound(port: dovecot.imapsPort, trust: trust) })
            }
        }
        // A running server holds what it holds: the rounds tell how many.
        let count = server == nil ? messages : warmUp.count
        return Report(
            messages: count, raw: raw, parsed: parsed, peakMemoryBytes: Memory.peakResident(),
            baselineMemoryBytes: baseline)
    }

    /// `body`'s round with the CPU time this process spent meanwhile.
    private func measured(_ body: () async throws -> Round) async throws -> Round {
        let before = Memory.usage()
        var round = try await body()
        round.usage = Memory.usage() - before
        round.cpuSeconds = round.usage.userSeconds + round.usage.systemSeconds
        return round
    }

    /// Login, select and fetch over a raw TLS connection: bytes are read until the tagged OK,
    /// looking only for line ends; nothing is parsed.
    private func rawRound(port: Int, trust: ClientTLSConfiguration) async throws -> Round {
        let started = ContinuousClock.now
        let connection = try await NetworkConnection.connect(host: "localhost", port: port, security: .tls(trust))
        defer { connection.close() }
        var reader = RawLineReader(connection: connection)
        _ = try await reader.readUntil(tag: "*")
        try await connection.write(Array("a LOGIN alice secret\r\n".utf8))
        _ = try await reader.readUntil(tag: "a")
        try await connection.write(Array("b SELECT INBOX\r\n".utf8))
        _ = try await reader.readUntil(tag: "b")
        try await connection.write(Array("c UID FETCH 1:* (UID FLAGS ENVELOPE RFC822.SIZE INTERNALDATE)\r\n".utf8))
        let (lines, bytes) = try await reader.readUntil(tag: "c")
        return Round(seconds: (ContinuousClock.now - started).seconds, count: lines - 1, bytes: bytes)
    }

    /// The same through IMAPSession: every response parsed into values and streamed.
    private func parsedRound(port: Int, trust: ClientTLSConfiguration) async throws -> Round {
        let started = ContinuousClock.now
        var configuration = IMAPConfiguration(host: "localhost", port: port, security: .implicitTLS(trust))
        if let window = ProcessInfo.processInfo.environment["MAILSEARCH_FETCH_WINDOW"].flatMap({ Int($0) }) {
            configuration.fetchWindow = window
        }
        let session = try await IMAPSession.connect(configuration)
        try await session.login(.password(user: "alice", password: "secret"))
        try await session.select("INBOX")
        var count = 0
        var checksum = 0
        for try await message in session.fetch(
            .all, items: [.uid, .flags, .envelope, .rfc822Size, .internalDate])
        {
            count += 1
            checksum &+= Int(message.uid ?? 0) &+ (message.envelope?.subject?.count ?? 0)
        }
        let seconds = (ContinuousClock.now - started).seconds
        await session.close()
        keep(checksum)
        return Round(seconds: seconds, count: count, bytes: 0)
    }
}

/// Reads lines from a connection until a line starts with `tag ` (literals are not expected in
/// these responses).
struct RawLineReader {
    let connection: NetworkConnection
    private var buffer: [UInt8] = []
    private var lineStart = 0

    init(connection: NetworkConnection) { self.connection = connection }

    /// Returns how many lines and bytes arrived up to and including the tagged line.
    mutating func readUntil(tag: String) async throws -> (lines: Int, bytes: Int) {
        let prefix = Array((tag + " ").utf8)
        var lines = 0
        var bytes = 0
        while true {
            while let newline = buffer[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                lines += 1
                bytes += newline + 1 - lineStart
                let isTagged = buffer[lineStart...].starts(with: prefix)
                lineStart = newline + 1
                if isTagged {
                    buffer.removeFirst(lineStart)
                    lineStart = 0
                    return (lines, bytes)
                }
            }
            buffer.removeFirst(lineStart)
            lineStart = 0
            buffer += try await connection.read(timeout: .seconds(60))
        }
    }
}

/// A Dovecot started with scripts/dovecot.sh, holding generated mail for alice.
struct DovecotProcess {
    let directory: String
    let imapsPort: Int
    let certificatePEM: [UInt8]
    let root: URL

    static func start(messages: Int, root: URL) async throws -> DovecotProcess {
        let maildir = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-bench-\(getpid())")
        try? FileManager.default.removeItem(at: maildir)
        defer { try? FileManager.default.removeItem(at: maildir) }
        try runTool(
            "/usr/bin/env",
            [
                "python3", root.appendingPathComponent("scripts/generate-maildir.py").path, "--out", maildir.path,
                "--count", "\(messages)", "--seed", "1",
            ])
        return try await start(maildir: maildir, root: root)
    }

    /// Starts Dovecot serving a copy of `maildir` as alice's INBOX, indexed and cached.
    static func start(maildir: URL, root: URL) async throws -> DovecotProcess {
        let scripts = root.appendingPathComponent("scripts")
        let line = try runTool(
            scripts.appendingPathComponent("dovecot.sh").path,
            ["start", "--users", "alice:secret", "--maildir-from", "alice=\(maildir.path)"])
        var values: [String: String] = [:]
        for pair in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let directory = values["DOVECOT_DIR"], let port = values["DOVECOT_IMAPS_PORT"].flatMap({ Int($0) }),
            let ca = values["DOVECOT_CA"]
        else { throw BenchError("dovecot.sh start printed no environment line") }
        try runTool(scripts.appendingPathComponent("dovecot.sh").path, ["index", directory, "alice"])
        return DovecotProcess(
            directory: directory, imapsPort: port,
            certificatePEM: [UInt8](try Data(contentsOf: URL(fileURLWithPath: ca))), root: root)
    }

    func stop() {
        _ = try? runTool(root.appendingPathComponent("scripts/dovecot.sh").path, ["stop", directory])
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a helper tool to completion (set-up and tear-down only, outside the timed rounds).
@discardableResult
func runTool(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.standardError
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchError("\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.first ?? "") failed")
    }
    return String(decoding: data, as: UTF8.self)
}

/// Resident memory of this process, from /proc.
enum Memory {
    static func field(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.split(separator: " ").compactMap { Int($0) }
            return (digits.first ?? 0) * 1024
        }
        return 0
    }

    static func currentResident() -> Int { field("VmRSS") }

    /// CPU time and context switches of this process, every thread.
    struct Usage {
        var userSeconds = 0.0
        var systemSeconds = 0.0
        var voluntarySwitches = 0
        var involuntarySwitches = 0

        static func - (later: Usage, earlier: Usage) -> Usage {
            Usage(
                userSeconds: later.userSeconds - earlier.userSeconds,
                systemSeconds: later.systemSeconds - earlier.systemSeconds,
                voluntarySwitches: later.voluntarySwitches - earlier.voluntarySwitches,
                involuntarySwitches: later.involuntarySwitches - earlier.involuntarySwitches)
        }
    }

    /// What this process has used so far (a failed getrusage reads as nothing used).
    static func usage() -> Usage {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return Usage() }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return Usage(
            userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime),
            voluntarySwitches: usage.ru_nvcsw, involuntarySwitches: usage.ru_nivcsw)
    }
    static func peakResident() -> Int { field("VmHWM") }

    /// Resets the peak (VmHWM) to the current resident size (Linux: "5" to clear_refs).
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

extension FetchBenchmark.Report {
    func table() -> String {
        func stats(_ rounds: [FetchBenchmark.Round]) -> (best: Double, median: Double) {
            let sorted = rounds.map(\.seconds).sorted()
            return sorted.isEmpty ? (.nan, .nan) : (sorted[0], sorted[sorted.count / 2])
        }
        let raw = stats(self.raw)
        let parsed = stats(self.parsed)
        func medianCPU(_ rounds: [FetchBenchmark.Round]) -> Double { median(rounds.map(\.cpuSeconds)) }
        func median<Value: Comparable & Numeric>(_ values: [Value]) -> Value {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
        func split(_ rounds: [FetchBenchmark.Round]) -> String {
            "user \(fixed(median(rounds.map(\.usage.userSeconds)), 3)) s, "
                + "system \(fixed(median(rounds.map(\.usage.systemSeconds)), 3)) s, "
                + "\(median(rounds.map(\.usage.voluntarySwitches))) waits, "
                + "\(median(rounds.map(\.usage.involuntarySwitches))) preemptions"
        }
        let megabytes = Double(self.raw.first?.bytes ?? 0) / 1e6
        let rounds = max(self.raw.count, self.parsed.count)
        let ratio =
            self.raw.isEmpty || self.parsed.isEmpty
            ? "not measured (one kind only)"
            : "best \(fixed(parsed.best / raw.best, 3))x   median \(fixed(parsed.median / raw.median, 3))x   "
                + "(goal: at most 1.15x)"
        return """
            fetch   \(messages) messages from Dovecot over loopback TLS, \(fixed(megabytes, 2)) MB of FETCH responses, \
            \(rounds) rounds each\(self.raw.isEmpty || self.parsed.isEmpty ? " (one kind only)" : "")
              raw read (no parsing):   best \(fixed(raw.best, 3)) s   median \(fixed(raw.median, 3)) s
              parsed (IMAPSession):    best \(fixed(parsed.best, 3)) s   median \(fixed(parsed.median, 3)) s   \
            (\(self.parsed.first?.count ?? 0) messages)
              parsed/raw:              \(ratio)
              client CPU, median:      raw \(fixed(medianCPU(self.raw), 3)) s   parsed \(fixed(medianCPU(self.parsed), 3)) s \
            (user + system, every thread of this process)
              split, median:           raw \(split(self.raw))
                                       parsed \(split(self.parsed))
              peak memory:             \(fixed(Double(peakMemoryBytes) / 1_048_576, 1)) MB resident \
            (before the rounds: \(fixed(Double(baselineMemoryBytes) / 1_048_576, 1)) MB; goal: under 64 MB)

            """
    }

    func json() -> String {
        let rawSeconds = raw.map { fixed($0.seconds, 4) }.joined(separator: ",")
        let parsedSeconds = parsed.map { fixed($0.seconds, 4) }.joined(separator: ",")
        let rawCPU = raw.map { fixed($0.cpuSeconds, 4) }.joined(separator: ",")
        let parsedCPU = parsed.map { fixed($0.cpuSeconds, 4) }.joined(separator: ",")
        return "{\"benchmark\":\"fetch\",\"messages\":\(messages),\"rawSeconds\":[\(rawSeconds)],"
            + "\"parsedSeconds\":[\(parsedSeconds)],\"rawCPUSeconds\":[\(rawCPU)],"
            + "\"parsedCPUSeconds\":[\(parsedCPU)],\"peakMemoryBytes\":\(peakMemoryBytes)}"
    }
}
