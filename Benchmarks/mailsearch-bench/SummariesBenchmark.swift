import Foundation
import IMAPClient
import IMAPCore
import MailMIME
import Transport

/// `mailsearch-bench summaries`: what the page of summaries costs on a server without PREVIEW,
/// and how many bytes of each body a preview needs.
///
/// 1. Over every message of N generated ones (scripts/generate-maildir.py --seed 1), MailMIME's
///    preview from the first 2, 4, 8, 16 and 32 KB of the body
///    (``PreviewText/make(header:bodyStart:isWholeBody:)``): how many are known from those bytes
///    (the rest would cost one more FETCH), how many differ from the whole message's preview
///    (must be 0), and the bytes a FETCH carries per message.
/// 2. Against a throwaway Dovecot holding the same mail, the newest page of 50 summaries, timed
///    (median of the rounds) and its commands counted, side by side in the same run: the one FETCH
///    (PREVIEW ignored: the start of each body), the previous client's two FETCHes (BODYSTRUCTURE
///    first, then 2 KB of each first text part), and Dovecot's own PREVIEW.
struct SummariesBenchmark {
    let messages: Int
    let rounds: Int
    let repositoryRoot: URL
    static let cuts: [Int] = [2048, 4096, 8192, 16384, 32768]
    static let pageSize = 50

    struct Cut {
        var bytes: Int
        var known = 0
        var differing = 0
        var bytesSent = 0
    }

    struct Strategy {
        var name: String
        var commands = 0
        var seconds: [Double] = []
        /// Through a proxy that holds each command for ``roundTripMilliseconds``.
        var delayedSeconds: [Double] = []
        var previews = 0
    }

    /// The round trip the latency proxy adds (Benchmarks/latency/latency-proxy.py).
    static let roundTripMilliseconds = 20

    struct Report {
        var messages: Int
        var bodyBytes = 0
        var cuts: [Cut]
        var strategies: [Strategy] = []
    }

    func run() async throws -> Report {
        let maildir = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-bench-\(getpid())")
        try? FileManager.default.removeItem(at: maildir)
        defer { try? FileManager.default.removeItem(at: maildir) }
        try runTool(
            "/usr/bin/env",
            [
                "python3", repositoryRoot.appendingPathComponent("scripts/generate-maildir.py").path, "--out",
                maildir.path, "--count", "\(messages)", "--seed", "1",
            ])
        var report = Report(messages: messages, cuts: Self.cuts.map { Cut(bytes: $0) })
        let files = try FileManager.default.contentsOfDirectory(
            at: maildir.appendingPathComponent("cur"), includingPropertiesForKeys: nil)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            let message = MIMEMessage(bytes: bytes)
            let whole = PreviewText.make(for: message)
            let header = Array(bytes[message.header.byteRange])
            let body = Array(bytes[message.root.bodyRange])
            report.bodyBytes += body.count
            for index in report.cuts.indices {
                let limit = report.cuts[index].bytes
                let start = Array(body.prefix(limit))
                report.cuts[index].bytesSent += start.count
                guard let preview = PreviewText.make(header: header, bodyStart: start, isWholeBody: body.count < limit)
                else { continue }
                report.cuts[index].known += 1
                if preview != whole { report.cuts[index].differing += 1 }
            }
        }

        let dovecot = try await DovecotProcess.start(maildir: maildir, root: repositoryRoot)
        defer { dovecot.stop() }
        let proxy = try LatencyProxy(
            script: repositoryRoot.appendingPathComponent("Benchmarks/latency/latency-proxy.py"),
            milliseconds: Self.roundTripMilliseconds, target: dovecot.imapsPort)
        defer { proxy.stop() }
        var strategies = [Strategy(name: "one FETCH"), Strategy(name: "two FETCHes"), Strategy(name: "PREVIEW")]
        for round in 0...rounds {
            for index in strategies.indices {
                let (seconds, commands, previews) = try await page(dovecot.imapsPort, dovecot, strategy: index)
                let (delayed, _, _) = try await page(proxy.port, dovecot, strategy: index)
                // Round 0 warms Dovecot's cache and our code paths.
                guard round > 0 else { continue }
                strategies[index].seconds.append(seconds)
                strategies[index].delayedSeconds.append(delayed)
                strategies[index].commands = commands
                strategies[index].previews = previews
            }
        }
        report.strategies = strategies
        return report
    }

    /// One page of summaries by `strategy` (0: one FETCH, 1: the previous two, 2: PREVIEW): the
    /// seconds from the first FETCH to the last answer, the commands after SELECT, and the
    /// previews that are not empty.
    private func page(_ port: Int, _ dovecot: DovecotProcess, strategy: Int) async throws -> (Double, Int, Int) {
        let trace = MemoryLogHandler()
        var configuration = IMAPConfiguration(
            host: "localhost", port: port,
            security: .implicitTLS(ClientTLSConfiguration(additionalTrustPEM: dovecot.certificatePEM)),
            logger: Logger(label: "bench", level: .trace, handler: trace))
        if strategy != 2 { configuration.ignoredCapabilities = [.preview] }
        let session = try await IMAPSession.connect(configuration)
        defer { Task { await session.logout() } }
        try await session.login(.password(user: "alice", password: "secret"))
        let mailbox = try await session.select("INBOX")
        let newest = mailbox.uidNext.map { $0 - 1 } ?? UInt32(messages)
        let uids = SequenceSet(numbers: (newest - UInt32(Self.pageSize) + 1...newest).reversed())
        let before = trace.messages.count
        let started = ContinuousClock.now
        var previews = 0
        if strategy == 1 {
            previews = try await twoFetches(session, uids)
        } else {
            for try await summary in session.fetchSummaries(uids) where !summary.decoded.preview.isEmpty {
                previews += 1
            }
        }
        let seconds = (ContinuousClock.now - started).seconds
        let commands = trace.messages.dropFirst(before).filter { $0.hasPrefix("C: ") }.count
        return (seconds, commands, previews)
    }

    /// The previous client's way: the summary FETCH with BODYSTRUCTURE, then the first 2 KB of
    /// each message's first text part, one FETCH per part position.
    private func twoFetches(_ session: IMAPSession, _ uids: SequenceSet) async throws -> Int {
        var paths: [[UInt32]: [UInt32]] = [:]
        let items: [FetchAttribute] = [
            .uid, .flags, .envelope, .internalDate, .rfc822Size, .bodyStructure(extensions: true),
        ]
        for try await message in session.fetch(uids, items: items) {
            guard let uid = message.uid, let structure = message.bodyStructure, let path = Self.firstText(structure)
            else { continue }
            paths[path.isEmpty ? [1] : path, default: []].append(uid)
        }
        var previews = 0
        for (path, uids) in paths {
            let item = FetchAttribute.bodySection(
                peek: true, section: SectionSpecifier(part: path), partial: .init(offset: 0, length: 2048))
            for try await message in session.fetch(SequenceSet(numbers: uids.sorted()), items: [.uid, item]) {
                for case .bodySection(_, _, let data) in message.attributes where !(data?.bytes.isEmpty ?? true) {
                    previews += 1
                }
            }
        }
        return previews
    }

    /// The path of the first text leaf outside encapsulated messages.
    static func firstText(_ structure: BodyStructure, path: [UInt32] = []) -> [UInt32]? {
        switch structure {
        case .invalid: return nil
        case .singlepart(let part): return part.mediaType.equalsCaseInsensitive("text") ? path : nil
        case .multipart(let multipart):
            for (offset, part) in multipart.parts.enumerated() {
                if let found = firstText(part, path: path + [UInt32(offset + 1)]) { return found }
            }
            return nil
        }
    }
}

extension SummariesBenchmark.Report {
    func table() -> String {
        var lines = [
            "summaries   \(messages) messages (generate-maildir.py --seed 1), \(fixed(Double(bodyBytes) / 1e6, 1)) MB "
                + "of bodies",
            "  preview from the first bytes of each body (BODY.PEEK[TEXT]<0.N>), MailMIME:",
            "    N        known    differing   bytes per message (mean)",
        ]
        for cut in cuts {
            let known = Double(cut.known) / Double(max(messages, 1)) * 100
            lines.append(
                "    \(pad("\(cut.bytes / 1024) KB", 8)) \(pad(fixed(known, 2) + "%", 8)) \(pad("\(cut.differing)", 11)) "
                    + fixed(Double(cut.bytesSent) / Double(max(messages, 1)), 0))
        }
        lines.append(
            "    whole    100%     0           " + fixed(Double(bodyBytes) / Double(max(messages, 1)), 0))
        lines.append(
            "  the newest page of \(SummariesBenchmark.pageSize) from Dovecot over loopback TLS, median seconds "
                + "(direct, and with a \(SummariesBenchmark.roundTripMilliseconds) ms round trip):")
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
        for strategy in strategies {
            lines.append(
                "    \(pad(strategy.name, 12)) \(fixed(median(strategy.seconds), 4)) s   "
                    + "\(fixed(median(strategy.delayedSeconds), 4)) s   \(strategy.commands) command(s)   "
                    + "\(strategy.previews) previews")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func json() -> String {
        let cutsJSON = cuts.map { "{\"bytes\":\($0.bytes),\"known\":\($0.known),\"differing\":\($0.differing)}" }
        let strategiesJSON = strategies.map { strategy in
            "{\"name\":\"\(strategy.name)\",\"commands\":\(strategy.commands),\"seconds\":["
                + strategy.seconds.map { fixed($0, 4) }.joined(separator: ",") + "],\"delayedSeconds\":["
                + strategy.delayedSeconds.map { fixed($0, 4) }.joined(separator: ",") + "]}"
        }
        return "{\"benchmark\":\"summaries\",\"messages\":\(messages),\"cuts\":[\(cutsJSON.joined(separator: ","))],"
            + "\"strategies\":[\(strategiesJSON.joined(separator: ","))]}"
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

/// `mailsearch-bench summaries [--messages N] [--rounds N] [--json]`.
func runSummariesBenchmark(_ arguments: [String]) -> Never {
    let options = DatasetOptions(arguments, benchmark: "summaries", defaultMessages: 2000)
    runToCompletion(
        "summaries", json: options.json,
        {
            try await SummariesBenchmark(
                messages: options.messages, rounds: options.rounds, repositoryRoot: repositoryRoot
            )
            .run()
        },
        table: { $0.table() }, line: { $0.json() })
}

/// Benchmarks/latency/latency-proxy.py in front of a port: each command reaches the server a
/// fixed time later, as on a network.
final class LatencyProxy: Sendable {
    let port: Int
    private let process: Process
    /// Closing it ends the proxy (as this process ending does).
    private let input: Pipe

    init(script: URL, milliseconds: Int, target: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "\(milliseconds)", "\(target)"]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var line: [UInt8] = []
        while let byte = output.fileHandleForReading.readData(ofLength: 1).first, byte != 0x0A { line.append(byte) }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            try? input.fileHandleForWriting.close()
            throw BenchError("latency-proxy.py printed no port")
        }
        self.port = port
        self.process = process
        self.input = input
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
