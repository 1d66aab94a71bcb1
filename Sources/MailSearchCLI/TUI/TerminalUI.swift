import FoundationEssentials
package import MailSearch
import Observation
import Synchronization

// libc: signal and kill for suspending the screen (Ctrl-Z).
#if canImport(Glibc)
import Glibc
#endif

/// The driver of `mailsearch tui`: it owns the terminal, the ``InboxViewModel`` and the
/// ``TerminalScreen``, turns everything that happens into one stream of inputs, and after each
/// input performs the screen's actions and redraws.
///
/// Inputs come from the key reader's thread (``TerminalInput``), the signal sources
/// (``TerminalSignals``), the model (`withObservationTracking`: one registration at a time, its
/// `onChange` posts `modelChanged`, and the next snapshot registers again), fetched messages,
/// and a clock that ticks every 15 seconds so "Updated N minutes ago" stays true. After every
/// input the model is read again (its methods change it synchronously, so a key typed right
/// after `/` already finds search mode) and the frame redrawn; ``FrameWriter`` writes only the
/// rows that changed.
@MainActor
final class TerminalUI {
    /// How the screen ended.
    enum Outcome: Hashable, Sendable {
        /// `q` or Ctrl-C.
        case quit
        /// SIGTERM, SIGINT or SIGHUP.
        case terminated(Int32)
        /// The terminal went away (end of input).
        case inputEnded
    }

    private enum Input: Sendable {
        case key(Key)
        case signal(TerminalSignals.Signal)
        case modelChanged
        case messageLoaded(Email.ID, [String])
        case messageFailed(Email.ID, String)
        case tick
        case inputEnded
    }

    /// Whether an observation of the model is registered (its `onChange` has not fired yet).
    private final class ObservationFlag: Sendable {
        let isRegistered = Mutex(false)
    }

    private let model: InboxViewModel
    private let service: IMAPMailService
    private let terminal: RawTerminal
    private let timeZone: LocalZone
    private var writer: FrameWriter
    private var screen: TerminalScreen
    private let inputs: AsyncStream<Input>
    private let post: AsyncStream<Input>.Continuation
    private let observation = ObservationFlag()
    /// The snapshot taken when the waiting observation was registered.
    private var lastSnapshot: InboxScreenState?
    private var outcome: Outcome?
    private var messageTasks: [Task<Void, Never>] = []

    private init(
        model: InboxViewModel, service: IMAPMailService, terminal: RawTerminal, colors: Bool, timeZone: LocalZone
    ) {
        self.model = model
        self.service = service
        self.terminal = terminal
        self.timeZone = timeZone
        writer = FrameWriter(colors: colors)
        screen = TerminalScreen(size: terminal.size)
        (inputs, post) = AsyncStream<Input>.makeStream()
    }

    /// Runs the screen over `service` until it is quit, the process is told to end, or the
    /// terminal goes away; the terminal is restored before this returns, whichever way it
    /// ended. The model is stopped; closing the service is the caller's.
    ///
    /// - Throws: `RawTerminal.SetupError` when the terminal cannot be put in raw mode.
    static func run(
        service: IMAPMailService, history: InboxViewModel.HistoryStorage, colors: Bool,
        timeZone: LocalZone = .system
    ) async throws(RawTerminal.SetupError) -> Outcome {
        // Signals are caught before the terminal changes, so none finds it raw and unrestorable.
        let signals = TerminalSignals()
        defer { signals.stop() }
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        let input = try TerminalInput(descriptor: terminal.input)
        defer { input.stop() }
        let model = InboxViewModel(service: service, history: history, pageSize: 50)
        let driver = TerminalUI(
            model: model, service: service, terminal: terminal, colors: colors, timeZone: timeZone)
        let outcome = await driver.loop(keys: input.keys, signals: signals.signals)
        model.stop()
        terminal.restore()
        await model.settle()
        return outcome
    }

    private func loop(keys: AsyncStream<Key>, signals: AsyncStream<TerminalSignals.Signal>) async -> Outcome {
        let post = post
        let feeders = [
            Task {
                for await key in keys { post.yield(.key(key)) }
                post.yield(.inputEnded)
            },
            Task {
                for await signal in signals { post.yield(.signal(signal)) }
            },
            Task {
                while true {
                    do { try await Task.sleep(for: .seconds(15)) } catch { return }
                    post.yield(.tick)
                }
            },
        ]
        defer {
            for task in feeders + messageTasks { task.cancel() }
        }
        model.start()
        synchronize()
        draw()
        for await input in inputs {
            switch input {
            case .key(let key):
                perform(screen.handle(.key(key)))
            case .signal(.resized):
                writer.invalidate()
                perform(screen.handle(.resized(terminal.size)))
            case .signal(.terminate(let number)):
                outcome = .terminated(number)
            case .signal(.suspend):
                suspend()
            case .signal(.resumed):
                // After `fg`, or a SIGSTOP from elsewhere: the terminal may have been used.
                terminal.resume()
                writer.invalidate()
                perform(screen.handle(.resized(terminal.size)))
            case .modelChanged, .tick:
                break
            case .messageLoaded(let id, let lines):
                perform(screen.handle(.messageLoaded(id, lines)))
            case .messageFailed(let id, let reason):
                perform(screen.handle(.messageFailed(id, reason)))
            case .inputEnded:
                outcome = .inputEnded
            }
            if let outcome { return outcome }
            synchronize()
            if let outcome { return outcome }
            draw()
        }
        return outcome ?? .inputEnded
    }

    /// Gives the screen the model's state; performs what that asks (a further page when the
    /// selection nears the end), a few rounds at most.
    private func synchronize() {
        for _ in 0..<4 {
            let actions = screen.handle(.modelChanged(snapshot(), at: Date()))
            if actions.isEmpty { return }
            perform(actions)
        }
    }

    /// The model's state now; registers for its next change unless a registration is waiting.
    /// While one waits, nothing the snapshot reads has changed (`onChange` runs as the first
    /// change is made), so the last snapshot is the model's state: a key press that changes
    /// nothing in the model takes no snapshot (one that does copies windows of a few pages,
    /// sharing their storage with the model).
    private func snapshot() -> InboxScreenState {
        let flag = observation
        let registered = flag.isRegistered.withLock { isRegistered in
            defer { isRegistered = true }
            return isRegistered
        }
        if registered, let lastSnapshot { return lastSnapshot }
        let post = post
        let taken = withObservationTracking {
            model.state
        } onChange: {
            flag.isRegistered.withLock { $0 = false }
            post.yield(.modelChanged)
        }
        lastSnapshot = taken
        return taken
    }

    private func perform(_ actions: [TerminalScreen.Action]) {
        for action in actions {
            switch action {
            case .quit:
                outcome = .quit
            case .suspend:
                suspend()
            case .loadMessage(let id):
                let (service, post) = (service, post)
                messageTasks.append(
                    Task {
                        do throws(MailServiceError) {
                            if let content = try await service.message(id) {
                                post.yield(.messageLoaded(id, content.readerLines))
                            } else {
                                post.yield(.messageFailed(id, "The message is no longer in the mailbox."))
                            }
                        } catch {
                            post.yield(.messageFailed(id, "Could not fetch the message: \(error.message)"))
                        }
                    })
            case .model(let request):
                request.apply(to: model)
            }
        }
    }

    /// Ctrl-Z or SIGTSTP: the shell's screen and settings back, then the process stops (the
    /// whole job, as the shell expects); when it continues, the SIGCONT that woke it takes the
    /// terminal again and redraws. Without job control nothing could continue it: nothing
    /// happens then.
    private func suspend() {
        guard terminal.hasJobControl else { return }
        terminal.suspend()
        kill(0, SIGSTOP)
    }

    private func draw() {
        let frame = InboxRenderer(now: Date(), timeZone: timeZone).frame(screen)
        let bytes = writer.update(to: frame)
        if !bytes.isEmpty { terminal.write(bytes) }
    }
}

extension TerminalScreen.ModelRequest {
    /// Makes the call on `model`.
    @MainActor package func apply(to model: InboxViewModel) {
        switch self {
        case .setSearching(let isSearching): model.setSearching(isSearching)
        case .updateQuery(let text): model.updateQuery(text)
        case .submit: model.submit()
        case .chooseSuggestion(let text): model.chooseSuggestion(text)
        case .loadMore: model.loadMore()
        case .loadMoreResults: model.loadMoreResults()
        case .show(let rows): model.show(rows)
        case .showResults(let rows): model.showResults(rows)
        case .toggleRead(let id): model.toggleRead(id)
        case .togglePin(let id): model.togglePin(id)
        case .refresh: model.refresh()
        case .dismissNotice: model.dismissNotice()
        }
    }
}
