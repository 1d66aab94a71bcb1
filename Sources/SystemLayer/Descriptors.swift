#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether an errno says a non-blocking descriptor is not ready (EAGAIN / EWOULDBLOCK): for
/// `systemCall(_:handingBack:_:)`.
public func isWouldBlock(_ number: Int32) -> Bool {
    number == EAGAIN || number == EWOULDBLOCK
}

/// Whether an errno is EINTR: for calls that go round their caller's loop instead of retrying
/// (poll, whose timeout must be worked out again).
public func isInterrupted(_ number: Int32) -> Bool {
    number == EINTR
}

/// Makes a descriptor non-blocking and close-on-exec.
public func makeNonBlockingAndCloseOnExec(_ descriptor: Int32) throws(SystemCallError) {
    let flags = try systemCall("fcntl") { fcntl(descriptor, F_GETFL) }
    try systemCall("fcntl") { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    try systemCall("fcntl") { fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
}

/// A non-blocking pipe that wakes a thread sleeping in poll(): another thread writes a byte to
/// `writeEnd`, the sleeping thread polls `readEnd`. Both ends are close-on-exec.
public struct WakeUpPipe: Sendable {
    /// The end the sleeping thread polls.
    public let readEnd: Int32
    /// The end another thread writes to.
    public let writeEnd: Int32

    /// A new pipe; the caller closes it with ``close()``.
    public init() throws(SystemCallError) {
        var ends: [Int32] = [0, 0]
        try systemCall("pipe") { pipe(&ends) }
        do {
            for end in ends { try makeNonBlockingAndCloseOnExec(end) }
        } catch {
            for end in ends { closeDescriptor(end) }
            throw error
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Wakes the polling thread. Safe from any thread; a full pipe (EAGAIN) already means "wake up".
    ///
    /// Any other failure means the pipe is gone, which cannot happen while its owner holds it
    /// (it is closed only when the owner goes): a bug, so debug builds stop there.
    public func signal() {
        var byte: UInt8 = 1
        do {
            _ = try systemCall("write", handingBack: isWouldBlock) { write(writeEnd, &byte, 1) }
        } catch {
            assertionFailure("could not wake the polling thread: \(error)")
        }
    }

    /// Clears pending wake-ups (until the non-blocking read finds the pipe empty).
    public func drain() throws(SystemCallError) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            let drained = try systemCall("read", handingBack: isWouldBlock) { read(readEnd, &bytes, 64) }
            guard case .success(let count) = drained, count > 0 else { return }
        }
    }

    /// Closes both ends.
    public func close() {
        closeDescriptor(readEnd)
        closeDescriptor(writeEnd)
    }
}

/// poll(2) for reading: which of some descriptors have something to read (or hung up).
public enum ReadinessPoll {
    /// Waits until one of `descriptors` is readable, has hung up or failed, or `milliseconds`
    /// pass (-1: no limit). Returns, for each descriptor in order, whether it is ready (all false
    /// when the time ran out); nil when a signal interrupted the wait (the caller goes round its
    /// loop and works out its timeout again).
    public static func wait(_ descriptors: [Int32], milliseconds: Int32) throws(SystemCallError) -> [Bool]? {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let count = nfds_t(polled.count)
        switch try systemCall("poll", handingBack: isInterrupted, { poll(&polled, count, milliseconds) }) {
        case .success: return polled.map { $0.revents != 0 }
        case .failure: return nil
        }
    }
}

/// The process's standard descriptors.
public enum StandardDescriptor {
    /// Standard input (0).
    public static let input: Int32 = STDIN_FILENO
    /// Standard output (1).
    public static let output: Int32 = STDOUT_FILENO
    /// Standard error (2).
    public static let error: Int32 = STDERR_FILENO
}

/// Opens `path` for reading (close-on-exec); the caller closes it with ``closeDescriptor(_:)``.
public func openForReading(_ path: String) throws(SystemCallError) -> Int32 {
    try systemCall("open") { open(path, O_RDONLY | O_CLOEXEC) }
}

/// Reads up to `maximumCount` bytes (all of `buffer` when nil) into the front of `buffer`: the
/// count read, 0 at end of input. EINTR is retried; EAGAIN on a non-blocking descriptor throws
/// like any failure (``isWouldBlock(_:)`` tells it).
public func readSome(
    _ descriptor: Int32, into buffer: inout [UInt8], maximumCount: Int? = nil
) throws(SystemCallError) -> Int {
    let count = min(maximumCount ?? buffer.count, buffer.count)
    return try systemCall("read") { buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, count) } }
}

/// Reads `descriptor` to its end (a blocking descriptor).
public func readToEnd(_ descriptor: Int32) throws(SystemCallError) -> [UInt8] {
    var contents: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = try readSome(descriptor, into: &buffer)
        if count == 0 { return contents }
        contents += buffer[0..<count]
    }
}

/// The whole contents of the file at `path`, for a file the user names (a CA certificate):
/// links are followed and any owner will do (private files go through ``PrivateFiles``).
public func readWholeFile(_ path: String) throws(SystemCallError) -> [UInt8] {
    let descriptor = try openForReading(path)
    defer { closeDescriptor(descriptor) }
    return try readToEnd(descriptor)
}

/// Writes as much of `bytes` as the descriptor takes now: the count written. EINTR is retried.
public func writeSome(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemCallError) -> Int {
    try systemCall("write") { bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } }
}

/// Whether `descriptor` is a terminal.
public func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

/// The width in columns of the terminal on `descriptor` (TIOCGWINSZ); nil when it is not a
/// terminal or does not say.
public func terminalColumns(_ descriptor: Int32) -> Int? {
    var size = winsize()
    guard isTerminal(descriptor) else { return nil }
    do throws(SystemCallError) {
        try systemCall("ioctl") { ioctl(descriptor, UInt(TIOCGWINSZ), &size) }
    } catch {
        return nil
    }
    return size.ws_col > 0 ? Int(size.ws_col) : nil
}

/// What identifies a version of a file without reading it: device, inode, size and
/// modification time (`lstat`, so a link is its own file). Two equal stamps mean the file was
/// not replaced or changed in between, as far as the file system can tell.
public struct FileStamp: Hashable, Sendable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    public let modifiedSeconds: Int64
    public let modifiedNanoseconds: Int64

    /// The stamp of `path`; nil when there is nothing there (or it cannot be looked at).
    public init?(path: String) {
        var status = stat()
        do throws(SystemCallError) {
            try systemCall("lstat") { lstat(path, &status) }
        } catch {
            return nil
        }
        #if canImport(Darwin)
        let modified = status.st_mtimespec
        #else
        let modified = status.st_mtim
        #endif
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modifiedSeconds = Int64(modified.tv_sec)
        modifiedNanoseconds = Int64(modified.tv_nsec)
    }
}
