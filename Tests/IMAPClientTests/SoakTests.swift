import Foundation
import IMAPCore
import MockIMAPServer
import Synchronization
import TestSupport
import Testing

@testable import IMAPClient

/// Fifty long-lived connections search, fetch and store at once while the server injects seeded
/// random faults (refusals, closes mid-response, BYE, fragmentation, delays). At the end the
/// server's flags must equal the model built from the acknowledged operations alone.
///
/// The seed is printed and named in every failure; `MAILSEARCH_SOAK_SEED=n swift test --filter
/// SoakTests` replays the same operations and the same fault plan (which fault hits the server's
/// nth command; with fifty sessions the order in which commands reach the server can still vary).
@Suite(.hangGuard, .timeLimit(.minutes(5))) struct SoakTests {
    static let sessions = 50
    static let messagesPerSession: UInt32 = 4
    static let operationsPerSession = 240

    @Test func fiftySessionsUnderSeededRandomFaultsEndEqualToTheModel() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["MAILSEARCH_SOAK_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...1_000_000)
        print("soak seed: \(seed) (replay: MAILSEARCH_SOAK_SEED=\(seed) swift test --filter SoakTests)")
        let server = try await MockServerFixture.start()
        let total = Self.sessions * Int(Self.messagesPerSession)
        try MockServerFixture.seed(server, count: total)
        server.faults.setRandom(
            RandomFaults(
                seed: seed, probability: 0.03,
                kinds: [
                    .respond(.no, code: "UNAVAILABLE", text: "busy"), .closeAfter(bytes: 40),
                    .respond(.bye, code: "UNAVAILABLE", text: "restarting"), .fragment, .delay(.milliseconds(30)),
                ]))
        let model = Model()
        let failures = await withTaskGroup(of: String?.self) { group in
            for index in 0..<Self.sessions {
                group.addTask {
                    do {
                        try await Self.run(session: index, seed: seed, server: server, model: model)
                        return nil
                    } catch {
                        return "session \(index): \(error)"
                    }
                }
            }
            var failures: [String] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        server.faults.setRandom(nil)
        let fired = server.faults.fired.count
        print(
            "soak seed \(seed): \(fired) faults fired over \(server.faults.commandCount) commands, \(model.unknownCount) stores of unknown outcome"
        )
        #expect(failures.isEmpty, "seed \(seed): \(failures)")
        #expect(fired > 20, "seed \(seed): too few faults fired to mean anything")
        for uid in 1...UInt32(total) {
            let stored = Set(
                (server.store.flags(user: "alice", mailbox: "INBOX", uid: uid) ?? []).map(\.description).filter {
                    $0 != "\\Recent"
                })
            let unknown = model.unknownFlags(uid)
            #expect(stored.subtracting(unknown) == model.flags(uid), "seed \(seed): UID \(uid)")
        }
        await server.stop()
    }

    /// One session's operations on its own messages (so the model of each UID has one writer).
    static func run(session index: Int, seed: UInt64, server: MockIMAPServer, model: Model) async throws {
        var random = SplitMix(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        var configuration = server.clientConfiguration()
        configuration.timeouts.commandInactivity = .seconds(20)
        let connection = MailboxConnection(
            configuration: configuration, credentials: .password(user: "alice", password: "secret"),
            policy: .init(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(200), jitterSeed: seed))
        let first = UInt32(index) * messagesPerSession + 1
        let own = Array(first..<(first + messagesPerSession))
        let flags: [Flag] = [.seen, .flagged, "$Pinned", .answered]
        for _ in 0..<operationsPerSession {
            let uid = own[random.below(own.count)]
            switch random.below(4) {
            case 0:
                // Read-only calls may fail when a fault hits their one retry too; they must fail
                // clearly and change nothing.
                do throws(IMAPError) {
                    let found = try await connection.search([
                        .uid(SequenceSet(uid)), .subject(ByteString("message \(uid)")),
                    ])
                    #expect(found.uids == [uid], "seed \(seed)")
                } catch {
                    #expect(!error.message.isEmpty)
                }
            case 1:
                do throws(IMAPError) {
                    let messages = try await connection.fetch(SequenceSet(numbers: own), items: [.uid, .flags])
                    #expect(messages.compactMap { $0.uid }.sorted() == own, "seed \(seed)")
                } catch {
                    #expect(!error.message.isEmpty)
                }
            default:
                let flag = flags[random.below(flags.count)]
                let operation: StoreFlags.Operation = random.below(2) == 0 ? .add : .remove
                switch await Self.outcome({ () async throws(IMAPError) in
                    try await connection.store(SequenceSet(uid), operation, [flag])
                }) {
                case .success: model.apply(uid: uid, operation, flag)
                case .failure(let error) where [.no, .unavailable, .bad].contains(error.code):
                    break  // Refused: the server did not run it, so the model does not change.
                case .failure(let error) where error.code == .outcomeUnknown:
                    // Sent, unanswered, and not readable afterwards: either state is right until
                    // an acknowledged change of the same flag settles it.
                    model.forget(uid: uid, flag)
                case .failure(let error): throw error
                }
            }
        }
        await connection.close()
    }

    static func outcome(
        _ call: () async throws(IMAPError) -> StoreResult
    ) async -> Result<StoreResult, IMAPError> {
        do {
            return .success(try await call())
        } catch {
            return .failure(error)
        }
    }

    /// The flags every acknowledged operation leaves, and the flags whose state a store of
    /// unknown outcome left open (until an acknowledged store of the same flag settles them).
    final class Model: Sendable {
        private struct State {
            var flags: [UInt32: Set<String>] = [:]
            var unknown: [UInt32: Set<String>] = [:]
            var unknownCount = 0
        }
        private let state = Mutex(State())

        func apply(uid: UInt32, _ operation: StoreFlags.Operation, _ flag: Flag) {
            state.withLock { state in
                state.unknown[uid, default: []].remove(flag.description)
                switch operation {
                case .add: state.flags[uid, default: []].insert(flag.description)
                case .remove: state.flags[uid, default: []].remove(flag.description)
                case .replace: state.flags[uid] = [flag.description]
                }
            }
        }

        func forget(uid: UInt32, _ flag: Flag) {
            state.withLock { state in
                state.unknown[uid, default: []].insert(flag.description)
                state.flags[uid, default: []].remove(flag.description)
                state.unknownCount += 1
            }
        }

        /// The acknowledged flags, without those left open.
        func flags(_ uid: UInt32) -> Set<String> { state.withLock { $0.flags[uid] ?? [] } }
        func unknownFlags(_ uid: UInt32) -> Set<String> { state.withLock { $0.unknown[uid] ?? [] } }
        var unknownCount: Int { state.withLock { $0.unknownCount } }
    }
}

extension SplitMix {
    /// A number in 0..<bound.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
