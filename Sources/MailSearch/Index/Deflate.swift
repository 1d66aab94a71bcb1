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

    /// The bytes ``packed(_:)`` was given; nil when `stored` is not its output.
    static func unpacked(_ stored: [UInt8]) -> [UInt8]? {
        guard stored.count >= 4 else { return nil }
        let count = (0..<4).reduce(0) { $0 | Int(stored[$1]) << (8 * $1) }
        guard count > 0 else { return [] }
        var size = uLong(count)
        var output = [UInt8](repeating: 0, count: count)
        let result = output.withUnsafeMutableBufferPointer { destination in
            stored.withUnsafeBufferPointer { source in
                uncompress(destination.baseAddress, &size, source.baseAddress! + 4, uLong(source.count - 4))
            }
        }
        guard result == Z_OK, Int(size) == count else { return nil }
        return output
    }
}
