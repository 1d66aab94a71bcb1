import CZlib

/// zlib's deflate for what the index stores: mail text compresses about three to one, and a
/// search inflates only the messages it reads.
///
/// The stored form is the uncompressed length (four bytes, little-endian) and the zlib stream.
enum Deflate {
    /// `bytes` compressed (level 1: most of the gain at a fraction of the time).
    static func packed(_ bytes: [UInt8]) -> [UInt8] {
        var size = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: 4 + Int(size))
        let count = UInt32(truncatingIfNeeded: bytes.count)
        for shift in 0..<4 { output[shift] = UInt8(truncatingIfNeeded: count >> (8 * UInt32(shift))) }
        let result = output.withUnsafeMutableBufferPointer { destination in
            bytes.withUnsafeBufferPointer { source in
                compress2(destination.baseAddress! + 4, &size, source.baseAddress, uLong(source.count), 1)
            }
        }
        // compress2 fails only without memory, or with less room than compressBound gives.
        precondition(result == Z_OK, "zlib's compress2 failed (\(result))")
        output.removeSubrange((4 + Int(size))...)
        return output
    }
}

/// Unpacks ``Deflate/packed(_:)``'s output with one zlib stream, reset for each: a search judges
/// hundreds of stored messages, and zlib's one-shot `uncompress` sets up and frees its state and
/// 32 KB window for every one. Used by one thread at a time (a statement's loop).
final class Inflater {
    private var stream = z_stream()
    private let ready: Bool

    init() {
        ready = inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit {
        if ready { inflateEnd(&stream) }
    }

    /// The bytes ``Deflate/packed(_:)`` was given; nil when `stored` is not its output (or zlib
    /// had no memory for its state).
    func unpacked(_ stored: [UInt8]) -> [UInt8]? {
        guard ready, stored.count >= 4 else { return nil }
        let count = (0..<4).reduce(0) { $0 | Int(stored[$1]) << (8 * $1) }
        guard count > 0 else { return [] }
        guard inflateReset(&stream) == Z_OK else { return nil }
        var output = [UInt8](repeating: 0, count: count)
        let result = output.withUnsafeMutableBufferPointer { destination in
            stored.withUnsafeBufferPointer { source in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress! + 4)
                stream.avail_in = uInt(source.count - 4)
                stream.next_out = destination.baseAddress
                stream.avail_out = uInt(count)
                defer {
                    stream.next_in = nil
                    stream.next_out = nil
                }
                return inflate(&stream, Z_FINISH)
            }
        }
        // The whole of it, exactly: a longer stream (more than `count`) stops with Z_BUF_ERROR.
        guard result == Z_STREAM_END, Int(stream.total_out) == count else { return nil }
        return output
    }
}
