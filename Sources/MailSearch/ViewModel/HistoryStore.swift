import Dispatch
import FoundationEssentials
import Synchronization

/// The view model's search history. The file is read and written on a serial queue of its own,
/// so its I/O (an fsync included) blocks neither the main actor nor a thread of the cooperative
/// pool, and records land in the order they were made.
final class HistoryStore: Sendable {
    private let storage: InboxViewModel.HistoryStorage
    private let queue = DispatchQueue(label: "MailSearch.InboxViewModel.history")
    /// The file-backed history once read; touched only on `queue`.
    private let history = Mutex<SearchHistory?>(nil)
    /// The in-memory history; touched only on `queue`.
    private let memory: Mutex<[String]>

    init(_ storage: InboxViewModel.HistoryStorage) {
        self.storage = storage
        switch storage {
        case .file: memory = Mutex([])
        case .memory(let entries): memory = Mutex(Self.recorded(entries))
        }
    }

    /// Reads the history: its entries and, when the file could not be read and was replaced, why.
    func load() async -> InboxScreen.Event {
        await onQueue { $0.loadNow() }
    }

    /// Records a submitted query; the entries afterwards.
    func record(_ query: String) async -> InboxScreen.Event {
        await onQueue { $0.recordNow(query) }
    }

    private func onQueue(_ work: @escaping @Sendable (HistoryStore) -> InboxScreen.Event) async -> InboxScreen.Event {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work(self)) }
        }
    }

    private func loadNow() -> InboxScreen.Event {
        switch storage {
        case .memory:
            return .historyLoaded(memory.withLock { $0 }, warning: nil)
        case .file(let account, let directory):
            do throws(SearchHistoryError) {
                let loaded = try SearchHistory(account: account, directory: directory)
                history.withLock { $0 = loaded }
                return .historyLoaded(loaded.entries, warning: loaded.warning?.message)
            } catch {
                return .historyFailed("The search history could not be read: \(error.message)")
            }
        }
    }

    private func recordNow(_ query: String) -> InboxScreen.Event {
        switch storage {
        case .memory:
            let entries = memory.withLock { entries in
                entries = Self.recorded([query] + entries)
                return entries
            }
            return .historyLoaded(entries, warning: nil)
        case .file(let account, let directory):
            do throws(SearchHistoryError) {
                let previous = history.withLock { $0 }
                var current: SearchHistory
                if let previous {
                    current = previous
                } else {
                    current = try SearchHistory(account: account, directory: directory)
                }
                try current.record(query)
                history.withLock { $0 = current }
                // A warning is news only when this call found the file unreadable.
                let warning = current.warning == previous?.warning ? nil : current.warning
                return .historyLoaded(current.entries, warning: warning?.message)
            } catch {
                return .historyFailed("The search was not saved in the history: \(error.message)")
            }
        }
    }

    /// `entries` as `SearchHistory` keeps them: normalized, without repeats (ignoring case, the
    /// first kept), at most `SearchHistory.capacity`.
    private static func recorded(_ entries: [String]) -> [String] {
        var seen: Set<String> = []
        let kept = entries.map(SearchHistory.normalized).filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
        return Array(kept.prefix(SearchHistory.capacity))
    }
}
