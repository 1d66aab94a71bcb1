/// Runs an actor's bodies one at a time, in the order they asked, across their suspensions: an
/// actor alone lets a second call run while the first awaits the server, and some work must not
/// interleave (two flag changes of one message, each reading the MODSEQ the other moves on).
///
/// Owned by one actor and used only on it (`isolation` is the caller's actor).
final class TakingTurns {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        while busy { await withCheckedContinuation { waiting.append($0) } }
        busy = true
        defer {
            busy = false
            if !waiting.isEmpty { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
