#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files MailSearch keeps for a user (the message cache, the search history, the people
/// seen, the local index): each in a directory of ours that only we can enter (0700), each
/// file only ours to read (0600), and never reached through a symbolic link.
///
/// A link where such a directory or file should be, a directory or file another user owns, or a
/// file that is not a regular file is refused with a ``PrivateFileError`` that says what to fix;
/// one of ours with looser modes is tightened. Directories above the last one are created when
/// missing (0700) and may be links (a home directory on another disk is common); the last one,
/// which holds the files, may not.
public enum PrivateFiles {
    /// Creates `directory` (and what is missing above it) with mode 0700, or checks the one that
    /// is there: a real directory (not a link), ours, brought to 0700.
    public static func prepareDirectory(_ directory: String) throws(PrivateFileError) {
        var path = directory.hasPrefix("/") ? "" : "."
        let components = directory.split(separator: "/")
        for (index, component) in components.enumerated() {
            path += "/" + component
            let isLast = index == components.count - 1
            do throws(SystemCallError) {
                switch try systemCall("mkdir", handingBack: { $0 == EEXIST }, { mkdir(path, 0o700) }) {
                case .success: continue
                case .failure: break
                }
            } catch {
                let hint = [EACCES, EPERM].contains(error.number) ? "; check the permissions above it" : ""
                throw PrivateFileError(path, "cannot be created (\(error.reason))\(hint)")
            }
            if isLast { try checkDirectory(path) }
        }
    }

    /// Opens `path` for reading and writing, creating it with mode 0600 when `creating`; nil when
    /// it is not there and not `creating`. The file must be a regular file of ours and not a link
    /// (`O_NOFOLLOW`); one with looser modes is brought to 0600. The caller closes the descriptor.
    public static func open(_ path: String, creating: Bool) throws(PrivateFileError) -> Int32? {
        let flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (creating ? O_CREAT : 0)
        let opened: Result<Int32, SystemCallError>
        do throws(SystemCallError) {
            opened = try systemCall("open", handingBack: { $0 == ENOENT || $0 == ELOOP }) {
                Glibc.open(path, flags, 0o600)
            }
        } catch {
            throw PrivateFileError(path, "cannot be opened (\(error.reason)); check its permissions")
        }
        let descriptor: Int32
        switch opened {
        case .success(let value): descriptor = value
        case .failure(let failure) where failure.number == ELOOP:
            throw PrivateFileError(path, "is a symbolic link; remove it (MailSearch never follows one)")
        case .failure:
            guard creating else { return nil }
            throw PrivateFileError(path, "cannot be created (its directory went away)")
        }
        do throws(PrivateFileError) {
            try checkOpenFile(descriptor, path)
            // O_NONBLOCK only kept a FIFO planted there from blocking the open.
            let status = try call(path, "fcntl") { fcntl(descriptor, F_GETFL) }
            try call(path, "fcntl") { fcntl(descriptor, F_SETFL, status & ~O_NONBLOCK) }
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        return descriptor
    }

    /// Checks (and creates, when missing) the file at `path` for a library that opens it by
    /// name (SQLite): after this, it is a regular file of ours with mode 0600, not a link. The
    /// library must still open it without following links (`SQLITE_OPEN_NOFOLLOW`).
    public static func prepareFile(_ path: String) throws(PrivateFileError) {
        guard let descriptor = try open(path, creating: true) else { return }
        closeDescriptor(descriptor)
    }

    /// The whole contents of `path`; nil when there is no such file. The same checks as
    /// ``open(_:creating:)``.
    public static func read(_ path: String) throws(PrivateFileError) -> [UInt8]? {
        guard let descriptor = try open(path, creating: false) else { return nil }
        defer { closeDescriptor(descriptor) }
        do throws(SystemCallError) {
            return try readToEnd(descriptor)
        } catch {
            throw PrivateFileError(path, "failed in read (\(error.reason)); check its permissions and free space")
        }
    }

    /// Replaces `path` with `bytes` so a reader sees the old contents or the new, never half: a
    /// temporary file in the same directory (0600 from the start), written, synced, renamed over
    /// the target (a rename replaces a link there, it never writes through it), and the directory
    /// synced. The directory is prepared as by ``prepareDirectory(_:)``.
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws(PrivateFileError) {
        let directory = directory(of: path)
        try prepareDirectory(directory)
        var template = Array((directory + "/.mailsearch.XXXXXX").utf8CString)
        let descriptor = try call(directory, "mkstemp") { mkstemp(&template) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer { if !renamed { removeLeftover(temporary) } }
        do throws(PrivateFileError) {
            try call(temporary, "fchmod") { fchmod(descriptor, 0o600) }
            var offset = 0
            while offset < bytes.count {
                offset += try call(temporary, "write") {
                    bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                }
            }
            try call(temporary, "fsync") { fsync(descriptor) }
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        try call(temporary, "close") { close(descriptor) }
        try call(path, "rename") { rename(temporary, path) }
        renamed = true
        // The rename itself is durable once the directory is synced.
        let directoryDescriptor = try call(directory, "open") {
            Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { closeDescriptor(directoryDescriptor) }
        try call(directory, "fsync") { fsync(directoryDescriptor) }
    }

    /// Removes `path` if it is there (a link is removed, never followed).
    public static func remove(_ path: String) throws(PrivateFileError) {
        do throws(SystemCallError) {
            _ = try systemCall("unlink", handingBack: { $0 == ENOENT }) { unlink(path) }
        } catch {
            throw PrivateFileError(path, "cannot be removed (\(error.reason)); check its directory's permissions")
        }
    }

    /// Checks that a file the user gives us to act on (a config file that names commands to run)
    /// cannot have been written by anyone else, as ssh does with its config: it and its directory
    /// must be owned by us or root and not writable by group or others. Links are followed here
    /// (a config kept in a dotfiles repository is a link), and the target is what is checked.
    public static func checkTrusted(_ path: String) throws(PrivateFileError) {
        for (place, what) in [(path, "the file"), (directory(of: path), "its directory")] {
            var status = stat()
            do throws(SystemCallError) {
                try systemCall("stat") { stat(place, &status) }
            } catch {
                throw PrivateFileError(path, "cannot be checked (\(what): \(error.reason))")
            }
            if status.st_uid != geteuid() && status.st_uid != 0 {
                throw PrivateFileError(
                    path,
                    "is not used: \(what)\(place == path ? "" : " " + place) belongs to another user (uid \(status.st_uid)); "
                        + "it must be yours")
            }
            if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
                throw PrivateFileError(
                    path,
                    "is not used: \(what)\(place == path ? "" : " " + place) can be written by other users "
                        + "(mode \(String(status.st_mode & 0o777, radix: 8))); run chmod go-w on it")
            }
        }
    }

    /// The size of the file at `path` in bytes; nil when there is none (or it cannot be read).
    public static func size(_ path: String) -> Int? {
        var status = stat()
        do throws(SystemCallError) {
            try systemCall("stat") { stat(path, &status) }
        } catch {
            return nil
        }
        return Int(status.st_size)
    }

    /// The directory part of `path` (`.` when it has none, `/` for a file at the root).
    public static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// Removes the temporary file of a write that failed. The write's own failure is what the
    /// caller hears; a temporary that cannot be removed (its directory went away, or became
    /// unwritable) is ours, 0600 and named `.mailsearch.*`, and the next write does not reuse it.
    private static func removeLeftover(_ temporary: String) {
        do throws(SystemCallError) {
            _ = try systemCall("unlink", handingBack: { $0 == ENOENT }) { unlink(temporary) }
        } catch {
            return
        }
    }

    // MARK: - Checks

    private static func checkDirectory(_ path: String) throws(PrivateFileError) {
        let opened: Result<Int32, SystemCallError>
        do throws(SystemCallError) {
            opened = try systemCall("open", handingBack: { $0 == ELOOP || $0 == ENOTDIR }) {
                Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
        } catch {
            throw PrivateFileError(path, "cannot be opened (\(error.reason)); check its permissions")
        }
        let descriptor: Int32
        switch opened {
        case .success(let value): descriptor = value
        case .failure:
            // A link fails with ELOOP or ENOTDIR (O_DIRECTORY is checked first on some kernels).
            var status = stat()
            if lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK {
                throw PrivateFileError(
                    path, "is a symbolic link; remove it (MailSearch keeps its files in a real directory)")
            }
            throw PrivateFileError(path, "is not a directory; move it away")
        }
        defer { closeDescriptor(descriptor) }
        var status = stat()
        try call(path, "fstat") { fstat(descriptor, &status) }
        guard status.st_uid == geteuid() else {
            throw PrivateFileError(
                path, "belongs to another user (uid \(status.st_uid)); remove it or point MailSearch elsewhere")
        }
        if status.st_mode & 0o077 != 0 { try call(path, "fchmod") { fchmod(descriptor, 0o700) } }
    }

    private static func checkOpenFile(_ descriptor: Int32, _ path: String) throws(PrivateFileError) {
        var status = stat()
        try call(path, "fstat") { fstat(descriptor, &status) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw PrivateFileError(path, "is not a regular file; move it away")
        }
        guard status.st_uid == geteuid() else {
            throw PrivateFileError(path, "belongs to another user (uid \(status.st_uid)); remove it")
        }
        if status.st_mode & 0o077 != 0 { try call(path, "fchmod") { fchmod(descriptor, 0o600) } }
    }

    @discardableResult
    private static func call<Value: BinaryInteger>(
        _ path: String, _ name: String, _ body: () -> Value
    ) throws(PrivateFileError) -> Value {
        do throws(SystemCallError) {
            return try systemCall(name, body)
        } catch {
            throw PrivateFileError(path, "failed in \(name) (\(error.reason)); check its permissions and free space")
        }
    }
}

/// A private file or directory that cannot be used: the path and one sentence on what to do.
public struct PrivateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file or directory.
    public let path: String
    /// What is wrong and what to do, after the path.
    public let problem: String

    init(_ path: String, _ problem: String) {
        self.path = path
        self.problem = problem
    }

    /// `<path> <problem>`: one sentence.
    public var description: String { "\(path) \(problem)" }
}
