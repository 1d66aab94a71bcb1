// libc: sockets: sockaddr, inet_pton, getpeername.
#if canImport(Glibc)
import Glibc
#endif

/// Whether a socket address is in 127.0.0.0/8 or is ::1 (or IPv4-mapped loopback).
func isLoopback(_ address: UnsafePointer<sockaddr>) -> Bool {
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
            UInt32(bigEndian: ipv4.pointee.sin_addr.s_addr) >> 24 == 127
        }
    case AF_INET6:
        return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
            let bytes = withUnsafeBytes(of: ipv6.pointee.sin6_addr) { Array($0) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            return mapped && bytes[12] == 127
        }
    default:
        return false
    }
}

/// Whether the peer of a connected socket has a loopback address.
///
/// A socket whose peer cannot be named (it has already gone: ENOTCONN) counts as not loopback, the
/// answer that grants nothing.
func isPeerLoopback(_ descriptor: Int32) -> Bool {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    return withUnsafeMutablePointer(to: &storage) { pointer -> Bool in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            do {
                let named = try transportCall("getpeername", handingBack: { _ in true }) {
                    getpeername(descriptor, address, &length)
                }
                guard case .success = named else { return false }
                return isLoopback(address)
            } catch {
                return false  // not reached: every errno is handed back above
            }
        }
    }
}

/// Whether `host` is an IPv4 or IPv6 address literal rather than a name.
func isIPAddress(_ host: String) -> Bool {
    var storage = in6_addr()
    return host.withCString { inet_pton(AF_INET, $0, &storage) == 1 || inet_pton(AF_INET6, $0, &storage) == 1 }
}
