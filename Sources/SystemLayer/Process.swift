#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's environment variables.
public enum ProcessEnvironment {
    /// Read straight from `environ`: `ProcessInfo.processInfo.environment` took 1.6M
    /// instructions (callgrind), an eighth of a whole `mailsearch explain` process; this takes a
    /// few thousand. The first of two same names wins, as with getenv(3); an entry without `=`
    /// is skipped.
    public static func current() -> [String: String] { variables(environ) }

    /// Every `NAME=value` entry of `environ`, in order, as a child process would get them.
    public static func entries() -> [String] {
        var entries: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            entries.append(String(cString: entry))
            cursor += 1
        }
        return entries
    }

    /// The variables of an `environ`-style list: `NAME=value` strings up to a null pointer.
    public static func variables(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> [String: String] {
        var variables: [String: String] = [:]
        var entry = list
        while let pointer = entry.pointee {
            let length = strlen(pointer)
            pointer.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                let text = UnsafeBufferPointer(start: bytes, count: length)
                if let equals = text.firstIndex(of: UInt8(ascii: "=")) {
                    let name = String(decoding: text[..<equals], as: UTF8.self)
                    if variables[name] == nil {
                        variables[name] = String(decoding: text[(equals + 1)...], as: UTF8.self)
                    }
                }
            }
            entry += 1
        }
        return variables
    }
}

/// Signal dispositions the whole process shares.
public enum ProcessSignals {
    /// Ignores SIGPIPE, whose default action kills the process: a write to a pipe or socket whose
    /// reader has gone (`mailsearch list | head`, OpenSSL writing to a closed connection) then
    /// fails with EPIPE, which the writer reports, instead.
    public static func ignoreBrokenPipe() throws(SystemCallError) {
        // signal() answers SIG_ERR, the handler at address -1, when it fails.
        if let previous = signal(SIGPIPE, SIG_IGN),
            Int(bitPattern: unsafeBitCast(previous, to: UnsafeRawPointer.self)) == -1
        {
            throw SystemCallError(call: "signal", number: errno)
        }
    }
}

/// Ends the process with `status` at once (`_exit`): no atexit handlers, no stdio flushing.
public func exitImmediately(_ status: Int32) -> Never { _exit(status) }
