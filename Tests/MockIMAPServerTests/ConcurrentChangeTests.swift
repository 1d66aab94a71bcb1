import Foundation
import IMAPCore
import MockIMAPServer
import Synchronization
import TestSupport
import Testing

/// Issue 11: 200 sessions at once changing the flags of the same messages (+FLAGS and -FLAGS of
/// shared flags and of each session's own keyword) and appending, over implicit TLS with CONDSTORE
/// enabled. No acknowledged change may be lost, no UID given twice, and at the end every
/// session's view (after a NOOP) is the server's.
@Suite(.hangGuard) struct ConcurrentChangeTests {
    static let sessions = 200
    static let seeded = 10

    /// What one session saw: every FETCH it was sent (its own changes and the other sessions' it
    /// was told of), its APPENDUID, and its view at the end.
    struct Observed: Sendable {
        var index: Int
        var fetches: [(uid: UInt32, flags: Set<Flag>, modificationSequence: UInt64)] = []
        /// The flags of each message as the FETCH responses told them, in the order they came
        /// (what a client that keeps a cache knows).
        var view: [UInt32: Set<Flag>] = [:]
        var appendedUID: UInt32?
        var appendUIDValidity: UInt32?
        var exists: UInt32?
        var finalFlags: [UInt32: Set<Flag>] = [:]
    }

    /// The seeded messages session `index` works on: `first` gets its keyword added then removed,
    /// `second` keeps it.
    static func targets(_ index: Int) -> (first: UInt32, second: UInt32) {
        let first = index % seeded
        let second = (first + 1 + (index / seeded) % (seeded - 1)) % seeded
        return (UInt32(first + 1), UInt32(second + 1))
    }

    static func keyword(_ index: Int) -> Flag { Flag("k\(index)") }

    @Test(.timeLimit(.minutes(3))) func twoHundredSessionsChangingFlagsAndAppendingLoseNothing() async throws {
        // More sessions at once than the default cap of 100.
        let server = try await startServer(maximumConnections: 300)
        for index in 1...Self.seeded {
            try server.store.seed(user: "alice", from: .raw(message(subject: "seeded \(index)")))
        }
        let ready = Barrier(count: Self.sessions)
        let done = Barrier(count: Self.sessions)
        let observed = try await withThrowingTaskGroup(of: Observed.self) { group in
            for index in 0..<Self.sessions {
                group.addTask { try await Self.session(index, server: server, ready: ready, done: done) }
            }
            var all: [Observed] = []
            for try await one in group { all.append(one) }
            return all.sorted { $0.index < $1.index }
        }
        #expect(observed.count == Self.sessions)

        // No reused UID: every APPENDUID distinct, above the seeded ones, below UIDNEXT.
        let uidNext = try #require(server.store.uidNext(user: "alice", mailbox: "INBOX"))
        let appended = observed.compactMap(\.appendedUID)
        #expect(appended.count == Self.sessions)
        #expect(Set(appended).count == appended.count, "an APPENDUID was given twice")
        #expect(appended.allSatisfy { $0 > UInt32(Self.seeded) && $0 < uidNext })
        let validity = server.store.uidValidity(user: "alice", mailbox: "INBOX")
        #expect(observed.allSatisfy { $0.appendUIDValidity == validity })
        let uids = server.store.uids(user: "alice", mailbox: "INBOX")
        #expect(uids.count == Self.seeded + Self.sessions)
        #expect(Set(uids) == Set((1...UInt32(Self.seeded)).map { $0 } + appended))

        // No lost update, part 1: the keywords, each owned by one session, are where that
        // session's acknowledged changes leave them.
        var expectedKeywords: [UInt32: Set<Flag>] = [:]
        for one in observed {
            let (_, second) = Self.targets(one.index)
            expectedKeywords[second, default: []].insert(Self.keyword(one.index))
            if let uid = one.appendedUID { expectedKeywords[uid, default: []].insert(Self.keyword(one.index)) }
        }
        var finalFlags: [UInt32: Set<Flag>] = [:]
        for uid in uids { finalFlags[uid] = server.store.flags(user: "alice", mailbox: "INBOX", uid: uid) ?? [] }
        for uid in uids {
            let keywords = (finalFlags[uid] ?? []).filter { !$0.rawValue.hasPrefix("\\") }
            #expect(keywords == expectedKeywords[uid] ?? [], "UID \(uid): keywords")
            #expect(finalFlags[uid]?.contains(.answered) == (uid > UInt32(Self.seeded)), "UID \(uid): \\Answered")
        }

        // No lost update, part 2: for the shared flags the final state is what the acknowledged
        // change with the highest mod-sequence reported, for every message.
        var latest: [UInt32: (flags: Set<Flag>, modificationSequence: UInt64)] = [:]
        for one in observed {
            for fetch in one.fetches where fetch.modificationSequence > (latest[fetch.uid]?.modificationSequence ?? 0) {
                latest[fetch.uid] = (fetch.flags, fetch.modificationSequence)
            }
        }
        for uid in uids {
            let last = try #require(latest[uid], "UID \(uid): no STORE answer reported it")
            #expect(finalFlags[uid] == last.flags, "UID \(uid): flags differ from the last acknowledged change")
            #expect(
                server.store.modificationSequence(user: "alice", mailbox: "INBOX", uid: uid)
                    == last.modificationSequence)
        }

        // Every session's view after a NOOP: the server's count and flags.
        for one in observed {
            #expect(one.exists == UInt32(uids.count), "session \(one.index): EXISTS")
            #expect(Set(1...UInt32(Self.seeded)).isSubset(of: one.view.keys), "session \(one.index): told too little")
            let stale = one.view.filter { finalFlags[$0.key] != $0.value }.keys.sorted()
            #expect(stale.isEmpty, "session \(one.index): the FETCH responses left it with old flags of \(stale)")
            #expect(one.finalFlags == finalFlags, "session \(one.index): FETCH FLAGS differs from the server's store")
        }
        await server.stop()
    }

    /// One session: log in, ENABLE CONDSTORE, SELECT, wait for all, change flags, append, wait for
    /// all, then NOOP and FETCH 1:* (UID FLAGS).
    static func session(_ index: Int, server: MockIMAPServer, ready: Barrier, done: Barrier) async throws -> Observed {
        let client = try await server.rawClient()
        defer { client.close() }
        var observed = Observed(index: index)
        func run(_ tag: String, _ command: String) async throws -> TaggedResponse {
            let responses = try await client.responses(tag, command)
            var tagged: TaggedResponse?
            for response in responses {
                switch response {
                case .untagged(.fetch(let fetch)):
                    guard let uid = fetch.uid, let flags = fetch.flags else { break }
                    let shown = Set(flags.filter { $0 != .recent })
                    observed.view[uid] = shown
                    if let modseq = fetch.modificationSequence { observed.fetches.append((uid, shown, modseq)) }
                case .untagged(.exists(let count)): observed.exists = count
                case .tagged(let value): tagged = value
                default: break
                }
            }
            let answer = try #require(tagged)
            #expect(answer.status == .ok, "session \(index): \(command.prefix(60)) -> \(answer)")
            return answer
        }
        try await client.login()
        _ = try await run("e", "ENABLE CONDSTORE")
        _ = try await run("s", "SELECT INBOX")
        #expect(await ready.arrive(), "session \(index): the others never got ready")

        let (first, second) = Self.targets(index)
        let own = Self.keyword(index)
        _ = try await run("a", "UID STORE \(first),\(second) +FLAGS (\(own) \\Flagged)")
        // Shared flags, added by some sessions and removed by others at the same time.
        _ = try await run("b", "UID STORE 1 \(index % 2 == 0 ? "+" : "-")FLAGS (\\Seen)")
        _ = try await run("c", "UID STORE \(first) -FLAGS (\(own))")
        if index % 3 == 0 { _ = try await run("d", "UID STORE \(second) -FLAGS (\\Flagged)") }
        let text = String(decoding: message(subject: "appended by \(index)"), as: UTF8.self)
        let appended = try await run("p", "APPEND INBOX (\(own)) {\(text.utf8.count)+}\r\n\(text)")
        if case .appendUID(let validity, let set)? = appended.text.code, let uid = set.numbers?.first {
            observed.appendedUID = uid
            observed.appendUIDValidity = validity
            _ = try await run("r", "UID STORE \(uid) +FLAGS (\\Answered)")
        }
        #expect(await done.arrive(), "session \(index): the others never finished")

        _ = try await run("n", "NOOP")
        let fetched = try await client.fetch("f", "FETCH 1:* (UID FLAGS)")
        for fetch in fetched.fetches {
            if let uid = fetch.uid { observed.finalFlags[uid] = Set((fetch.flags ?? []).filter { $0 != .recent }) }
        }
        _ = try await run("l", "LOGOUT")
        return observed
    }
}

/// Lets `count` tasks wait until all of them have arrived.
final class Barrier: Sendable {
    private let arrived = Mutex(0)
    private let count: Int
    private let latch = Latch()

    init(count: Int) { self.count = count }

    /// Arrives and waits for the rest (at most a minute); whether all arrived.
    func arrive() async -> Bool {
        let all = arrived.withLock { arrived -> Bool in
            arrived += 1
            return arrived == count
        }
        if all { latch.open() }
        return await latch.wait(timeout: .seconds(60))
    }
}
