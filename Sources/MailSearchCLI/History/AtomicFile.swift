import FoundationEssentials
import Transport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file so a reader sees the old contents or the new, never half: a temporary file in
/// the same directory (mode 0600 from the start), fsynced, renamed over the target.
enum AtomicFile {
    /// Writes `bytes` to `path`, creating its directory (mode 0700) when missing.
    static func write(_ bytes: [UInt8], to path: String) throws(CommandFailure) {
        let directory = Self.directory(of: path)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure("cannot create \(directory): \(failureReason(error)); check its permissions")
        }
        var template = Array((directory + "/.mailsearch.XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw failure("create a file in", directory) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var succeeded = false
        defer { if !succeeded { unlink(temporary) } }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                close(descriptor)
                throw failure("write", temporary)
            }
            offset += written
        }
        guard fchmod(descriptor, 0o600) == 0, fsync(descriptor) == 0 else {
            close(descriptor)
            throw failure("write", temporary)
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else { throw failure("replace", path) }
        succeeded = true
    }

    /// The directory part of `path` (`.` when it has none, `/` for a file at the root).
    static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    private static func failure(_ what: String, _ path: String) -> CommandFailure {
        CommandFailure("cannot \(what) \(path): \(String(cString: strerror(errno))); check the directory's permissions")
    }
}

private func systemWrite(_ descriptor: Int32, _ start: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, start, count)
}
