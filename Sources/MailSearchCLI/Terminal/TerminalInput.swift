import SystemLayer

/// Reads key presses from the terminal on a thread of its own (reads block; the cooperative
/// pool never waits on one) and hands them over as an `AsyncStream`.
///
/// The thread polls the terminal and a wake-up pipe: ``stop()`` writes to the pipe and the
/// thread ends. It owns the ``KeyDecoder``; when the decoder holds a lone ESC it polls with
/// ``KeyDecoder/escapeDelay`` as the timeout and settles it as Escape if nothing follows. The
/// stream finishes when the terminal reports end of input or an error (it went away).
final class TerminalInput: Sendable {
    /// Key presses, in order; finishes when the terminal is gone or the input is stopped.
    let keys: AsyncStream<Key>
    private let wakeUp: WakeUpPipe

    /// Starts reading `descriptor` (the terminal's input, in raw mode).
    ///
    /// - Throws: `RawTerminal.SetupError` when the wake-up pipe or the thread cannot be made
    ///   (out of descriptors or threads): without them the screen could not be stopped.
    init(descriptor: Int32) throws(RawTerminal.SetupError) {
        do throws(SystemCallError) {
            wakeUp = try WakeUpPipe()
        } catch {
            throw RawTerminal.SetupError(message: "cannot read the keyboard (\(error))")
        }
        let (stream, continuation) = AsyncStream<Key>.makeStream()
        keys = stream
        let wake = wakeUp.readEnd
        do throws(SystemCallError) {
            try startThread(name: "tui-input") {
                Self.pump(descriptor, wake: wake, into: continuation)
                continuation.finish()
            }
        } catch {
            wakeUp.close()
            throw RawTerminal.SetupError(message: "cannot read the keyboard (\(error))")
        }
    }

    deinit {
        stop()
        wakeUp.close()
    }

    /// Ends the reading thread (the stream finishes).
    func stop() { wakeUp.signal() }

    /// Reads and decodes keys until the terminal ends or fails, or the wake-up pipe is signalled.
    private static func pump(_ descriptor: Int32, wake: Int32, into continuation: AsyncStream<Key>.Continuation) {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var awaitsMore = false
        let delay = KeyDecoder.escapeDelay.components
        let escapeMilliseconds = Int32(delay.seconds * 1000 + delay.attoseconds / 1_000_000_000_000_000)
        do throws(SystemCallError) {
            while true {
                let waited = try ReadinessPoll.wait(
                    [descriptor, wake], milliseconds: awaitsMore ? escapeMilliseconds : -1)
                // A signal came: wait again.
                guard let ready = waited else { continue }
                if ready[1] { return }
                guard ready[0] else {
                    // The escape delay passed: a lone ESC is Escape.
                    let action = decoder.timedOut()
                    awaitsMore = action.awaitsMore
                    for key in action.keys { continuation.yield(key) }
                    continue
                }
                let count: Int
                do throws(SystemCallError) {
                    count = try readSome(descriptor, into: &buffer)
                } catch  where isWouldBlock(error.number) {
                    continue
                }
                // End of input.
                guard count > 0 else { return }
                let action = decoder.received(buffer[0..<count])
                awaitsMore = action.awaitsMore
                for key in action.keys { continuation.yield(key) }
            }
        } catch {
            // EIO once the terminal has hung up, or poll failing: the terminal is gone.
            return
        }
    }
}
