import Foundation
import IMAPClient
import IMAPCore
import MockIMAPServer
import Transport

/// `mailsearch-bench server-search`: N generated messages (seed 1) served by the mock server (in
/// this process) and by a throwaway Dovecot (indexes and caches warmed with `dovecot.sh index`);
/// the round-trip time of header searches (FROM, SUBJECT, FROM with CHARSET UTF-8) and a BODY
/// search over loopback TLS through IMAPSession, on each server, side by side.
struct ServerSearchBenchmark {
    let messages: Int
    let rounds: Int
    let repositoryRoot: URL

    struct Search {
        let name: String
        let charset: String?
        let keys: [SearchKey]
        let isHeader: Bool
    }

    struct Measurement {
        var search: String
        var isHeader: Bool
        var mock: [Double]
        var dovecot: [Double]
        var mockCount: Int
        var dovecotCount: Int
    }

    struct Report {
        var messages: Int
        var rounds: Int
        var generateSeconds: Double
        var seedSeconds: Double
        var dovecotStartSeconds: Double
        var measurements: [Measurement]
    }

    func run() async throws -> Report {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-server-search-\(getpid())")
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let maildir = work.appendingPathComponent("box")
        let manifest = work.appendingPathComponent("manifest.json")

        var started = ContinuousClock.now
        try runTool(
            "/usr/bin/env",
            [
                "python3", repositoryRoot.appendingPathComponent("scripts/generate-maildir.py").path, "--out",
                maildir.path, "--count", "\(messages)", "--seed", "1", "--manifest", manifest.path,
            ])
        let generateSeconds = (ContinuousClock.now - started).seconds
        let sender = try Self.commonSender(manifest)

        started = ContinuousClock.now
        let server = try await MockIMAPServer.start(
            .init(
                listeners: [.implicitTLS(port: 0)], tls: .selfSigned(hosts: ["localhost", "127.0.0.1"]),
                profile: .full, users: [.init("alice", password: "secret")]))
        do {
            try server.store.seed(user: "alice", mailbox: "INBOX", from: .maildir(maildir))
            let seedSeconds = (ContinuousClock.now - started).seconds
            started = ContinuousClock.now
            let dovecot = try await DovecotProcess.start(maildir: maildir, root: repositoryRoot)
            defer { dovecot.stop() }
            let dovecotStartSeconds = (ContinuousClock.now - started).seconds
            let measurements = try await measure(server: server, dovecot: dovecot, sender: sender)
            await server.stop()
            return Report(
                messages: messages, rounds: rounds, generateSeconds: generateSeconds, seedSeconds: seedSeconds,
                dovecotStartSeconds: dovecotStartSeconds, measurements: measurements)
        } catch {
            await server.stop()
            throw error
        }
    }

    private func measure(
        server: MockIMAPServer, dovecot: DovecotProcess, sender: String
    ) async throws
        -> [Measurement]
    {

        let mock = try await Self.session(
            port: server.port(for: .implicitTLS) ?? 0, certificatePEM: server.certificatePEM)
        let theirs = try await Self.session(port: dovecot.imapsPort, certificatePEM: dovecot.certificatePEM)
        let searches = [
            Search(name: "FROM \"\(sender)\"", charset: nil, keys: [.from(ByteString(sender))], isHeader: true),
            Search(name: "SUBJECT \"invoice\"", charset: nil, keys: [.subject("invoice")], isHeader: true),
            Search(name: "CHARSET UTF-8 FROM \"Søren\"", charset: "UTF-8", keys: [.from("Søren")], isHeader: true),
            Search(name: "BODY \"quarterly\"", charset: nil, keys: [.body("quarterly")], isHeader: false),
        ]
        var measurements: [Measurement] = []
        for search in searches {
            // Warm each server (and this process) once.
            let mockCount = try await Self.time(mock, search).count
            let dovecotCount = try await Self.time(theirs, search).count
            var measurement = Measurement(
                search: search.name, isHeader: search.isHeader, mock: [], dovecot: [], mockCount: mockCount,
                dovecotCount: dovecotCount)
            for _ in 0..<rounds {
                measurement.mock.append(try await Self.time(mock, search).seconds)
                measurement.dovecot.append(try await Self.time(theirs, search).seconds)
            }
            measurements.append(measurement)
        }
        await mock.logout()
        await theirs.logout()
        return measurements
    }

    /// The From address most messages have (the manifest's `from`).
    static func commonSender(_ manifest: URL) throws -> String {
        struct Manifest: Decodable {
            struct Entry: Decodable { let from: String }
            let messages: [Entry]
        }
        let entries = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: manifest)).messages
        var counts: [String: Int] = [:]
        for entry in entries { counts[entry.from, default: 0] += 1 }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? "example.com"
    }

    static func session(port: Int, certificatePEM: [UInt8]) async throws -> IMAPSession {
        let tls = ClientTLSConfiguration(additionalTrustPEM: certificatePEM, usesSystemTrustStore: false)
        let session = try await IMAPSession.connect(
            IMAPConfiguration(
                host: "localhost", port: port, security: .implicitTLS(tls),
                timeouts: .init(connect: .seconds(30), tlsHandshake: .seconds(30), commandInactivity: .seconds(300))))
        try await session.login(.password(user: "alice", password: "secret"))
        try await session.select("INBOX", readOnly: true)
        return session
    }

    /// One `UID SEARCH` round trip: its time and how many UIDs came back.
    static func time(_ session: IMAPSession, _ search: Search) async throws -> (seconds: Double, count: Int) {
        let started = ContinuousClock.now
        let result = try await session.execute(.uidSearch(charset: search.charset, keys: search.keys)) {
            if case .search = $0 { return true }
            return false
        }
        let seconds = (ContinuousClock.now - started).seconds
        var count = 0
        for case .search(let numbers, _) in result.untagged { count += numbers.count }
        return (seconds, count)
    }
}

extension ServerSearchBenchmark.Report {
    private static func stats(_ values: [Double]) -> (best: Double, median: Double) {
        let sorted = values.sorted()
        return (sorted.first ?? 0, sorted.isEmpty ? 0 : sorted[sorted.count / 2])
    }

    func table() -> String {
        var lines = [
            "server-search   \(messages) messages (generate-maildir.py --seed 1), \(rounds) rounds per search,"
                + " UID SEARCH over loopback TLS (IMAPSession)",
            "  set-up: generate \(fixed(generateSeconds, 1)) s, mock server seeding + indexing"
                + " \(fixed(seedSeconds, 2)) s, Dovecot start + index \(fixed(dovecotStartSeconds, 1)) s",
            "",
            "  search                                       mock best / median      Dovecot best / median   "
                + "mock/Dovecot (median)   UIDs",
        ]
        var warnings: [String] = []
        for measurement in measurements {
            let mock = Self.stats(measurement.mock)
            let dovecot = Self.stats(measurement.dovecot)
            let name = measurement.search.padding(toLength: 44, withPad: " ", startingAt: 0)
            let ratio = dovecot.median > 0 ? mock.median / dovecot.median : 0
            lines.append(
                "  \(name) \(milliseconds(mock.best)) / \(milliseconds(mock.median))   "
                    + "\(milliseconds(dovecot.best)) / \(milliseconds(dovecot.median))   \(fixed(ratio, 2))x"
                    + "                   \(measurement.mockCount)")
            if measurement.mockCount != measurement.dovecotCount {
                warnings.append(
                    "  warning: \(measurement.search): the mock server found \(measurement.mockCount) UIDs, Dovecot"
                        + " \(measurement.dovecotCount)")
            }
        }
        let header = measurements.filter(\.isHeader)
        let faster = header.allSatisfy { Self.stats($0.mock).median < Self.stats($0.dovecot).median }
        lines.append("")
        lines.append("  goal: header searches faster than Dovecot's: \(faster ? "met" : "NOT met")")
        return (lines + warnings).joined(separator: "\n") + "\n"
    }

    private func milliseconds(_ seconds: Double) -> String {
        (fixed(seconds * 1000, 1) + " ms").padding(toLength: 9, withPad: " ", startingAt: 0)
    }

    func json() -> String {
        let entries = measurements.map { measurement in
            let mock = measurement.mock.map { fixed($0, 5) }.joined(separator: ",")
            let dovecot = measurement.dovecot.map { fixed($0, 5) }.joined(separator: ",")
            let name = measurement.search.replacingOccurrences(of: "\"", with: "\\\"")
            return "{\"search\":\"\(name)\",\"header\":\(measurement.isHeader),\"mockSeconds\":[\(mock)],"
                + "\"dovecotSeconds\":[\(dovecot)],\"mockUIDs\":\(measurement.mockCount),"
                + "\"dovecotUIDs\":\(measurement.dovecotCount)}"
        }
        return "{\"benchmark\":\"server-search\",\"messages\":\(messages),\"seedSeconds\":\(fixed(seedSeconds, 3)),"
            + "\"searches\":[\(entries.joined(separator: ","))]}"
    }
}
