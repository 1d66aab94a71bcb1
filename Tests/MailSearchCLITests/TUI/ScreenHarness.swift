import Foundation
import MailSearch
import MailSearchCLI
import Observation

/// The terminal UI without a terminal: a real ``InboxViewModel`` over an
/// `InMemoryMailService`, a ``TerminalScreen`` fed keys and the model's changes the way
/// `TerminalUI` feeds them, and the rendered frame as text.
@MainActor
final class ScreenHarness {
    /// The moment the sample mail is dated from: 2024-03-15 12:00 UTC.
    nonisolated static let now = Date(timeIntervalSince1970: 1_710_504_000)

    /// The in-memory service, when the harness runs over one (nil over another service).
    let service: InMemoryMailService!
    let model: InboxViewModel
    private(set) var screen: TerminalScreen
    /// The messages the screen asked to fetch for the reader.
    private(set) var fetched: [Email.ID] = []
    /// Whether the screen asked to quit.
    private(set) var quit = false
    /// How many times the screen asked to stop (Ctrl-Z).
    private(set) var suspended = 0

    init(
        service: InMemoryMailService = ScreenHarness.sampleService(), size: TerminalSize = .init(width: 80, height: 24),
        pageSize: Int = 50, history: [String] = InboxViewModel.previewRecentSearches
    ) {
        self.service = service
        model = InboxViewModel(service: service, history: .memory(history), pageSize: pageSize)
        screen = TerminalScreen(size: size)
    }

    /// A harness over another service (a real server's).
    init(mailService: any MailService, size: TerminalSize = .init(width: 80, height: 24), pageSize: Int = 50) {
        service = nil
        model = InboxViewModel(service: mailService, history: .memory([]), pageSize: pageSize)
        screen = TerminalScreen(size: size)
    }

    /// The sample mailbox, dated from ``now``, and `extra` older messages, those numbered in
    /// `pinned` flagged.
    static func sampleService(extra: Int = 0, pinned: Set<Int> = []) -> InMemoryMailService {
        var emails = InMemoryMailService.sampleEmails(now: now)
        for number in 0..<extra {
            emails.append(
                Email(
                    id: Email.ID(mailbox: "INBOX", uidValidity: 1, uid: UInt32(1000 + number)),
                    from: Email.Person(name: "Sender \(number)", address: "sender\(number)@example.com"),
                    subject: "Older message \(number)",
                    date: now.addingTimeInterval(-Double(500 + number) * 3600), preview: "Text \(number)",
                    flags: pinned.contains(number) ? [.seen, .flagged] : [.seen]))
        }
        return InMemoryMailService(emails: emails, now: { now })
    }

    /// Starts the model and waits until it has listed the mailbox.
    func start() async {
        model.start()
        await settle()
    }

    /// Waits for the model's work in flight, then gives the screen its state.
    func settle() async {
        await model.settle()
        synchronize()
    }

    /// Does `action`, then waits until the pages it (and each page's arrival) asks for are in:
    /// the model loads one page at a time, and the screen asks for the next when one arrives.
    func settleAll(after action: () -> Void = {}) async {
        action()
        repeat { await settle() } while model.isLoadingMore || model.isLoadingMoreResults
    }

    /// Presses `keys` one after the other, each followed by the model's new state.
    func press(_ keys: Key...) {
        for key in keys {
            perform(screen.handle(.key(key)))
            synchronize()
        }
    }

    /// Types `text`, one key per character.
    func type(_ text: String) {
        for character in text { press(.character(character)) }
    }

    /// Sends a non-key event to the screen.
    func send(_ event: TerminalScreen.Event) {
        perform(screen.handle(event))
        synchronize()
    }

    /// Waits (for the model's changes, not for time) until `condition` holds for its state.
    func waitUntil(_ condition: (InboxScreenState) -> Bool) async {
        while true {
            let (changes, changed) = AsyncStream<Void>.makeStream()
            let snapshot = withObservationTracking {
                model.state
            } onChange: {
                changed.yield()
                changed.finish()
            }
            perform(screen.handle(.modelChanged(snapshot, at: Self.now)))
            if condition(screen.snapshot) { return }
            for await _ in changes { break }
        }
    }

    /// The screen as text at ``now`` in UTC.
    var text: String { frame.text }

    /// The screen's rows.
    var lines: [String] { text.components(separatedBy: "\n") }

    /// The frame at ``now`` in UTC.
    var frame: MailSearchCLI.Frame {
        InboxRenderer(now: Self.now, timeZone: LocalZone(TimeZone(identifier: "UTC")!)).frame(screen)
    }

    private func synchronize() {
        for _ in 0..<4 {
            let actions = screen.handle(.modelChanged(model.state, at: Self.now))
            if actions.isEmpty { return }
            perform(actions)
        }
    }

    private func perform(_ actions: [TerminalScreen.Action]) {
        for action in actions {
            switch action {
            case .model(let request): request.apply(to: model)
            case .loadMessage(let id): fetched.append(id)
            case .quit: quit = true
            case .suspend: suspended += 1
            }
        }
    }
}
