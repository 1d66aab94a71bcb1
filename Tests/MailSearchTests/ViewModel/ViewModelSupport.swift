import Foundation
import IMAPCore
import MailSearch
import Observation
import Synchronization

/// Fixtures for the view-model tests: the sample mailbox in memory, pages of 4.
@MainActor
enum ViewModelFixture {
    static let now = Date(timeIntervalSince1970: 1_710_460_800)
    static let failure = MailServiceError(.connection, "the server is unreachable; check the network")

    /// The sample mailbox, renumbered by the service oldest first: UID 10 is the newest
    /// ("About Nicolas Flamel"), UIDs 8 (Snape) and 5 (Hagrid) are pinned, Albus wrote 10 and 7.
    static func service(_ emails: [Email] = InMemoryMailService.sampleEmails(now: now)) -> InMemoryMailService {
        let now = now
        return InMemoryMailService(emails: emails, now: { now })
    }

    static func model(
        _ service: InMemoryMailService, history: InboxViewModel.HistoryStorage = .memory([])
    ) -> InboxViewModel {
        InboxViewModel(service: service, history: history, pageSize: 4)
    }

    static func id(_ uid: UInt32) -> Email.ID { Email.ID(mailbox: "INBOX", uidValidity: 1, uid: uid) }

    static let newcomer = Email(
        id: id(0), from: Email.Person(name: "Dobby", address: "dobby@hogwarts.example"), subject: "Socks",
        date: now, preview: "Dobby is free!", flags: [])
}

/// Waits, without sleeping, until `condition` (which must read observable properties) holds:
/// it is checked again each time something it read changes. Tests bound it with a time limit.
@MainActor
func until(_ condition: @escaping @MainActor () -> Bool) async {
    while !condition() {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Mutex(false)
            withObservationTracking {
                _ = condition()
            } onChange: {
                if resumed.withLock({ done in
                    defer { done = true }
                    return !done
                }) {
                    continuation.resume()
                }
            }
        }
    }
}

/// Whether reading `read` is invalidated while `action` runs (`withObservationTracking`).
@MainActor
func observationFires(reading read: @escaping @MainActor () -> Void, during action: () async -> Void) async -> Bool {
    let fired = Mutex(false)
    withObservationTracking {
        read()
    } onChange: {
        fired.withLock { $0 = true }
    }
    await action()
    return fired.withLock { $0 }
}

/// A service whose searches wait at a gate that ignores cancellation, each released on its own:
/// so an old search's answer can arrive after a newer one's, as a slow server's would.
final class GatedSearchService: MailService {
    private struct State {
        var parked: [Int: CheckedContinuation<Void, Never>] = [:]
        var calls = 0
        var answered = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let inner: InMemoryMailService
    private let state = Mutex(State())

    init(_ inner: InMemoryMailService) { self.inner = inner }

    /// How many searches have answered.
    var answered: Int { state.withLock { $0.answered } }

    /// Waits until `count` searches have been called in all.
    func waitForCalls(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.calls >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets search number `call` (0-based) answer.
    func release(_ call: Int) {
        state.withLock { $0.parked.removeValue(forKey: call) }?.resume()
    }

    func search(_ query: Query, pageSize: Int) async throws(MailServiceError) -> EmailPage {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                state.parked[state.calls] = continuation
                state.calls += 1
                let ready = state.waiters.filter { $0.count <= state.calls }
                state.waiters.removeAll { $0.count <= state.calls }
                return ready.map(\.continuation)
            }
            for waiter in ready { waiter.resume() }
        }
        // Cancellation ignored on purpose: the answer comes anyway.
        let page = try await withoutCancellation { () async throws(MailServiceError) -> EmailPage in
            try await self.inner.search(query, pageSize: pageSize)
        }
        state.withLock { $0.answered += 1 }
        return page
    }

    func open() async throws(MailServiceError) -> MailboxDescription { try await inner.open() }
    func list(pageSize: Int) async throws(MailServiceError) -> EmailPage { try await inner.list(pageSize: pageSize) }
    func page(of list: MessageList, offset: Int, pageSize: Int) async throws(MailServiceError) -> EmailPage {
        try await inner.page(of: list, offset: offset, pageSize: pageSize)
    }
    func setRead(_ isRead: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
        try await inner.setRead(isRead, for: emails)
    }
    func setPinned(_ isPinned: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
        try await inner.setPinned(isPinned, for: emails)
    }
    func events() -> AsyncStream<MailServiceEvent> { inner.events() }
    func close() async { await inner.close() }
}

/// Runs `work` in an unstructured task, so the caller's cancellation does not reach it.
private func withoutCancellation<Value: Sendable>(
    _ work: @escaping @Sendable () async throws(MailServiceError) -> Value
) async throws(MailServiceError) -> Value {
    let result = await Task { () async -> Result<Value, MailServiceError> in
        do throws(MailServiceError) { return .success(try await work()) } catch { return .failure(error) }
    }
    .value
    return try result.get()
}

/// A fresh directory under the system's temporary directory for a history file.
struct HistoryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-vm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var file: URL { url.appendingPathComponent(SearchHistory.fileName) }

    func remove() throws { try FileManager.default.removeItem(at: url) }
}
