internal import FoundationEssentials

// libc: errno values, to word a failure for a person.
#if canImport(Glibc)
import Glibc
#endif

/// The system's words for why a file operation of Foundation's failed ("No such file or
/// directory"), for an error message that ends in what to do. FoundationEssentials' errors
/// carry the `errno` but no localized description.
package func failureReason(_ error: any Error) -> String {
    if let error = error as? CocoaError {
        if let underlying = error.underlying as? POSIXError { return reason(errno: underlying.code.rawValue) }
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return reason(errno: ENOENT)
        case .fileReadNoPermission, .fileWriteNoPermission: return reason(errno: EACCES)
        case .fileWriteFileExists: return reason(errno: EEXIST)
        case .fileWriteOutOfSpace: return reason(errno: ENOSPC)
        case .fileWriteVolumeReadOnly: return reason(errno: EROFS)
        default: return "file error \(error.code.rawValue)"
        }
    }
    if let error = error as? POSIXError { return reason(errno: error.code.rawValue) }
    return String(describing: error)
}

private func reason(errno number: Int32) -> String { String(cString: strerror(number)) }
