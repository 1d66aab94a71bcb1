import Synchronization

/// The index files this process has connections to, and how many: a file is prepared (opened
/// and closed outside SQLite) only by the first ``MessageIndex`` of it (see its `init`).
final class OpenIndexFiles: Sendable {
    static let shared = OpenIndexFiles()
    private let counts = Mutex<[String: Int]>([:])

    /// A connection to `path` is being opened: whether it is the process's first.
    func opening(_ path: String) -> Bool {
        counts.withLock { counts in
            counts[path, default: 0] += 1
            return counts[path] == 1
        }
    }

    /// A connection to `path` was closed (or failed to open).
    func closed(_ path: String) {
        counts.withLock { counts in
            guard let count = counts[path] else { return }
            counts[path] = count > 1 ? count - 1 : nil
        }
    }
}
