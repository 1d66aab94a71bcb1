import Synchronization

/// Puts cached messages (made with the flags the server has now) and fetched ones into the
/// list's order, handing over each run as soon as every message before it is known. A message
/// gone meanwhile (not among the cached emails; not sent for a fetched one) is left out.
final class CachedMerge: Sendable {
    private let uids: [UInt32]
    private let position: [UInt32: Int]
    private let cached: [UInt32: Email]
    /// The index in `uids` of the first message not handed over yet.
    private let next = Mutex(0)

    init(uids: [UInt32], cached: [UInt32: Email]) {
        self.uids = uids
        self.cached = cached
        var position: [UInt32: Int] = [:]
        position.reserveCapacity(uids.count)
        for (index, uid) in uids.enumerated() { position[uid] = index }
        self.position = position
    }

    /// Takes `emails` fetched in the list's order; returns the run of the list through the last
    /// of them: the cached messages before each, and the emails themselves.
    func take(fetched emails: [Email]) -> [Email] {
        next.withLock { next in
            // Nothing cached, and the emails follow on in the list's order (as a fetch hands
            // them over): they are the run as they are, not copied one by one into another.
            if cached.isEmpty, let end = followOn(emails, from: next) {
                next = end
                return emails
            }
            var ready: [Email] = []
            ready.reserveCapacity(emails.count)
            for email in emails {
                guard let index = position[email.id.uid], index >= next else { continue }
                ready += uids[next..<index].compactMap { cached[$0] }
                ready.append(email)
                next = index + 1
            }
            return ready
        }
    }

    /// The index after the last of `emails` when each comes later in the list than the one
    /// before, the first at or after `start`; nil otherwise.
    private func followOn(_ emails: [Email], from start: Int) -> Int? {
        emails.withUnsafeBufferPointer { emails in
            var expected = start
            for email in emails {
                guard let index = position[email.id.uid], index >= expected else { return nil }
                expected = index + 1
            }
            return expected
        }
    }

    /// The cached messages after the last one handed over.
    func rest() -> [Email] {
        next.withLock { next in
            defer { next = uids.count }
            return uids[next...].compactMap { cached[$0] }
        }
    }
}
