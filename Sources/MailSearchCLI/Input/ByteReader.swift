import Synchronization
public import SystemLayer

/// A source of bytes read in chunks: a file, standard input, or memory in tests.
public protocol ByteReader: AnyObject, Sendable {
    /// Reads up to `maximumCount` bytes into the front of `buffer` (which it may grow) and returns
    /// how many it read; 0 means the end of the input.
    func read(into buffer: inout [UInt8], maximumCount: Int) throws(SystemCallError) -> Int
}

/// Reads a file descriptor with read(2). Owns the descriptor (closes it on deinit) unless it was
/// created with `borrowing:`.
public final class FileReader: ByteReader {
    private let descriptor: Int32
    private let ownsDescriptor: Bool

    /// Opens `path` for reading.
    public init(path: String) throws(SystemCallError) {
        descriptor = try openForReading(path)
        ownsDescriptor = true
    }

    /// Reads `descriptor` without taking it over (standard input).
    public init(borrowing descriptor: Int32) {
        self.descriptor = descriptor
        ownsDescriptor = false
    }

    /// Standard input.
    public static func standardInput() -> FileReader { FileReader(borrowing: StandardDescriptor.input) }

    deinit {
        if ownsDescriptor { closeDescriptor(descriptor) }
    }

    public func read(into buffer: inout [UInt8], maximumCount: Int) throws(SystemCallError) -> Int {
        if buffer.count < maximumCount {
            buffer.append(contentsOf: repeatElement(0, count: maximumCount - buffer.count))
        }
        return try readSome(descriptor, into: &buffer, maximumCount: maximumCount)
    }
}

/// Bytes in memory, handed out in chunks of at most `chunkSize` (tests use small chunks to
/// exercise streaming).
public final class MemoryReader: ByteReader {
    private let bytes: [UInt8]
    private let chunkSize: Int
    private let position = Mutex(0)

    public init(_ bytes: [UInt8], chunkSize: Int = .max) {
        self.bytes = bytes
        self.chunkSize = max(1, chunkSize)
    }

    public func read(into buffer: inout [UInt8], maximumCount: Int) throws(SystemCallError) -> Int {
        let (start, count) = position.withLock { position -> (Int, Int) in
            let count = min(maximumCount, chunkSize, bytes.count - position)
            defer { position += count }
            return (position, count)
        }
        if buffer.count < count { buffer.append(contentsOf: repeatElement(0, count: count - buffer.count)) }
        buffer.replaceSubrange(0..<count, with: bytes[start..<(start + count)])
        return count
    }
}
