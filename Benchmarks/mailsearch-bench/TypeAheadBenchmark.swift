import Dispatch
import Foundation
import IMAPCore
import MailSearch
import MailSearchCLI

/// `mailsearch-bench type-ahead --index <file> [--mailbox NAME] [--rounds N] [--json] [query ...]`:
/// the TUI's key to redrawn type-ahead results, in process, on an index a `mailsearch sync`
/// made (the goal: 16 ms at p95 at 100,000 messages).
///
/// Each query is typed one key at a time into the TUI's own screen (`TerminalScreen`) driving
/// the real `InboxViewModel`, 100x30. A key is timed from the screen handling it, through the
/// view model's type-ahead asking the service (`MessageIndex.newestEmails`, what
/// `IMAPMailService.localMatches` calls) and publishing the answer, to the frame rendered
/// (`InboxRenderer`). Beside it, the baseline: the same keys on a service without local
/// answers (suggestions only, today's search field without an index).
struct TypeAheadBenchmark {
    static let defaultQueries = ["from:tanaka", "quarterly report", "subject:meeting is:unread", "invoice -is:read"]

    struct Measurement {
        var query: String
        /// Seconds per key, sorted.
        var typeAhead: [Double]
        var baseline: [Double]
        /// Keys whose text parsed but whose local answer was given up (over the budget).
        var gaveUp = 0
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
        var measurements: [Measurement] = []
        for query in queries {
            var measurement = Measurement(query: query, typeAhead: [], baseline: [])
            for round in 0...rounds {
                let (local, gaveUp) = try await Self.typeKeys(
                    query, service: IndexedService(index: index, mailbox: indexed, answersLocally: true))
                let (baseline, _) = try await Self.typeKeys(
                    query, service: IndexedService(index: index, mailbox: indexed, answersLocally: false))
                if round > 0 {
                    measurement.typeAhead += local
                    measurement.baseline += baseline
                    measurement.gaveUp += gaveUp
                }
            }
            measurement.typeAhead.sort()
            measurement.baseline.sort()
            measurements.append(measurement)
        }
        return Report(path: path, messages: indexed.messageCount, rounds: rounds, measurements: measurements)
    }

    /// Opens a screen on `service`, enters search mode and types `query`; the time of each key,
    /// and how many keys' text parsed but got no local answer.
    @MainActor
    static func typeKeys(_ query: String, service: IndexedService) async throws -> ([Double], Int) {
        let model = InboxViewModel(service: service, history: .memory([]), pageSize: 50)
        var screen = TerminalScreen(size: TerminalSize(width: 100, height: 30))
        let renderer = InboxRenderer(now: Date(), timeZone: LocalZone(TimeZone.current))
        func apply(_ actions: [TerminalScreen.Action]) {
            for case .model(let request) in actions { request.apply(to: model) }
        }
        func synchronize() {
            for _ in 0..<4 {
                let actions = screen.handle(.modelChanged(model.state, at: Date()))
                if actions.isEmpty { return }
                apply(actions)
            }
        }
        model.start()
        await model.settle()
        synchronize()
        apply(screen.handle(.key(.character("/"))))
        synchronize()
        var times: [Double] = []
        var typed = ""
        var gaveUp = 0
        for character in query {
            typed.append(character)
            let start = DispatchTime.now()
            apply(screen.handle(.key(.character(character))))
            await model.settle()
            synchronize()
            let frame = renderer.frame(screen)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
            guard !frame.text.isEmpty else { throw BenchError("an empty frame") }
            if service.answersLocally, (try? QueryParser.parse(typed)) != nil,
                model.typeAheadQuery != SearchHistory.normalized(typed)
            {
                gaveUp += 1
            }
        }
        model.stop()
        await model.settle()
        return (times, gaveUp)
    }

    /// A mail service over the index alone: the listing and type-ahead from it (or, not
    /// `answersLocally`, no local answers: the baseline); nothing goes to a server.
    final class IndexedService: MailService {
        let index: MessageIndex
        let mailbox: MessageIndex.Mailbox
        let answersLocally: Bool

        init(index: MessageIndex, mailbox: MessageIndex.Mailbox, answersLocally: Bool) {
            self.index = index
            self.mailbox = mailbox
            self.answersLocally = answersLocally
        }

        var context: SearchContext {
            SearchContext(
                capabilities: [.imap4rev1], mailboxFlags: [.answered, .flagged, .deleted, .seen, .draft],
                permanentFlags: nil, now: Date(), timeZone: TimeZone.current)
        }

        func open() async throws(MailServiceError) -> MailboxDescription {
            MailboxDescription(name: mailbox.name, uidValidity: mailbox.uidValidity, messageCount: mailbox.messageCount)
        }

        func list(pageSize: Int) async throws(MailServiceError) -> EmailPage {
            let emails =
                await index.newestEmails(
                    Query.all, context: context, in: mailbox.name, uidValidity: mailbox.uidValidity,
                    limit: pageSize, now: Int(Date().timeIntervalSince1970)) ?? []
            return EmailPage(list: MessageList(ids: emails.map(\.id)), offset: 0, emails: emails)
        }

        func search(_ query: Query, pageSize: Int) async throws(MailServiceError) -> EmailPage {
            throw MailServiceError(.connection, "the benchmark has no server")
        }

        func page(of list: MessageList, offset: Int, pageSize: Int) async throws(MailServiceError) -> EmailPage {
            EmailPage(list: list, offset: offset, emails: [])
        }

        func setRead(_ isRead: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
            throw MailServiceError(.connection, "the benchmark has no server")
        }

        func setPinned(_ isPinned: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
            throw MailServiceError(.connection, "the benchmark has no server")
        }

        func localMatches(_ query: Query, limit: Int) async -> [Email]? {
            guard answersLocally else { return nil }
            return await index.newestEmails(
                query, context: context, in: mailbox.name, uidValidity: mailbox.uidValidity, limit: limit,
                now: Int(Date().timeIntervalSince1970), budget: MessageIndex.typeAheadBudget)
        }

        func events() -> AsyncStream<MailServiceEvent> { AsyncStream { _ in } }

        func close() async {}
    }
}

extension TypeAheadBenchmark.Report {
    func table() -> String {
        let percentile = IndexSearchBenchmark.Report.percentile
        var lines = [
            "TUI type-ahead, in process: \(messages) messages, \(rounds) rounds, key to redrawn frame (\(path))",
            "query".padding(toLength: 28, withPad: " ", startingAt: 0) + "keys   type-ahead p50     p95"
                + "   baseline p50      p95",
        ]
        for measurement in measurements {
            let figures = [
                percentile(measurement.typeAhead, 0.5), percentile(measurement.typeAhead, 0.95),
                percentile(measurement.baseline, 0.5), percentile(measurement.baseline, 0.95),
            ].map { String(format: "%8.2f ms", $0 * 1000) }
            lines.append(
                measurement.query.padding(toLength: 28, withPad: " ", startingAt: 0)
                    + String(measurement.typeAhead.count / max(rounds, 1)).padding(
                        toLength: 7, withPad: " ", startingAt: 0) + figures.joined(separator: " ")
                    + "   given up: \(measurement.gaveUp)")
        }
        let all = measurements.flatMap(\.typeAhead).sorted()
        let worst = all.isEmpty ? 0 : percentile(all, 0.95)
        lines.append(
            String(
                format:
                    "goal: key to redrawn type-ahead within 16 ms at p95 (at 100,000 messages): p95 of all keys %.2f ms, %@",
                worst * 1000, worst <= 0.016 ? "met" : "NOT met"))
        return lines.joined(separator: "\n") + "\n"
    }

    func json() -> String {
        let percentile = IndexSearchBenchmark.Report.percentile
        let items = measurements.map { measurement in
            String(
                format:
                    "{\"query\":\"%@\",\"typeahead_p50\":%.5f,\"typeahead_p95\":%.5f,\"baseline_p50\":%.5f,\"baseline_p95\":%.5f}",
                measurement.query.replacing("\\", with: "\\\\").replacing("\"", with: "\\\""),
                percentile(measurement.typeAhead, 0.5), percentile(measurement.typeAhead, 0.95),
                percentile(measurement.baseline, 0.5), percentile(measurement.baseline, 0.95))
        }
        return "{\"benchmark\":\"type-ahead\",\"messages\":\(messages),\"rounds\":\(rounds),\"queries\":["
            + items.joined(separator: ",") + "]}"
    }
}

/// `mailsearch-bench type-ahead --index <file> [--mailbox NAME] [--rounds N] [--json] [query ...]`.
func runTypeAheadBenchmark(_ arguments: [String]) -> Never {
    let options = IndexBenchmarkOptions(arguments, benchmark: "type-ahead", defaultRounds: 5)
    let benchmark = TypeAheadBenchmark(
        path: options.path, mailbox: options.mailbox, rounds: options.rounds,
        queries: options.queries.isEmpty ? TypeAheadBenchmark.defaultQueries : options.queries)
    // The view model lives on the main actor: the main thread runs the benchmark (dispatchMain),
    // not a semaphore's wait, which would hold the main actor's thread.
    Task { @MainActor in
        do {
            let report = try await benchmark.run()
            print(options.json ? report.json() : report.table(), terminator: options.json ? "\n" : "")
            exit(0)
        } catch {
            fail("type-ahead: \(error)", status: 1)
        }
    }
    dispatchMain()
}
