import FoundationEssentials
import Transport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Starts reading `descriptor` (standard input, a terminal in raw mode).
    init(descriptor: Int32 = STDIN_FILENO) {
        var pipeEnds: [Int32] = [-1, -1]
        if pipe(&pipeEnds) != 0 { pipeEnds = [-1, -1] }
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        let (stream, continuation) = AsyncStream<Key>.makeStream()
        keys = stream
        let wake = wakeRead
        do throws(TransportError) {
            try startIOThread(name: "tui-input") {
                Self.pump(descriptor, wake: wake, into: continuation)
                continuation.finish()
            }
        } catch {
            // No thread, no keys: the stream ends as if the terminal were gone.
            continuation.finish()
        }
    }

    deinit {
        stop()
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// Ends the reading thread (the stream finishes).
    func stop() {
        guard wakeWrite >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private static func pump(_ descriptor: Int32, wake: Int32, into continuation: AsyncStream<Key>.Continuation) {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var awaitsMore = false
        let delay = KeyDecoder.escapeDelay.components
        let escapeMilliseconds = Int32(delay.seconds * 1000 + delay.attoseconds / 1_000_000_000_000_000)
        while true {
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, wake >= 0 ? 2 : 1, awaitsMore ? escapeMilliseconds : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready == 0 {
                let action = decoder.timedOut()
                awaitsMore = action.awaitsMore
                for key in action.keys { continuation.yield(key) }
                continue
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            // End of input, or EIO once the terminal has hung up.
            guard count > 0 else { return }
            let action = decoder.received(buffer[0..<count])
            awaitsMore = action.awaitsMore
            for key in action.keys { continuation.yield(key) }
        }
    }
}

private func readBytes(_ descriptor: Int32, _ start: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, start, count)
}
