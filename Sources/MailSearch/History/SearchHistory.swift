public import FoundationEssentials

#if canImport(Glibc)
import Glibc
import Transport
#elseif canImport(Darwin)
import Darwin
#endif

/// The searches a person ran, per account, newest first (specs/cli.md, "History and suggestions").
///
/// Stored in `$XDG_STATE_HOME/mailsearch/history.json` (default `~/.local/state/mailsearch`) as
/// `{"version":1,"accounts":{"<account>":["newest", ...]}}`, written atomically with mode 0600.
/// Queries are trimmed and their whitespace collapsed, repeats (ignoring case) move to the top,
/// at most `capacity` are kept, and the empty query is never recorded.
public struct SearchHistory: Sendable {
    /// How many searches are kept per account.
    public static let capacity = 20
    /// The file's name inside the directory.
    public static let fileName = "history.json"

    /// The account whose searches these are.
    public let account: String
    /// The directory that holds `history.json`.
    public let directory: URL
    /// The searches, newest first.
    public private(set) var entries: [String]
    /// Set when the file could not be read and was replaced; show it, it is not fatal.
    public private(set) var warning: SearchHistoryWarning?

    /// The history of `account` in `directory` (created when missing); a corrupt file is replaced
    /// with an empty one and `warning` says so.
    public init(account: String, directory: URL) throws(SearchHistoryError) {
        self.account = account
        self.directory = directory
        self.entries = []
        var file = try load()
        entries = file.accounts[account] ?? []
        if warning != nil {
            file = HistoryFile()
            try save(file)
        }
    }

    /// `$XDG_STATE_HOME/mailsearch`, or `~/.local/state/mailsearch` when XDG_STATE_HOME is unset
    /// or not absolute (as the XDG Base Directory specification says).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("mailsearch")
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/mailsearch")
    }

    /// `query` trimmed, with every run of whitespace turned into one space.
    public static func normalized(_ query: String) -> String {
        query.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Records a search that parsed and was sent; returns false (and writes nothing) for the empty
    /// query. The file is read again first, so other accounts' histories are kept.
    @discardableResult
    public mutating func record(_ query: String) throws(SearchHistoryError) -> Bool {
        let entry = Self.normalized(query)
        guard !entry.isEmpty else { return false }
        var file = try load()
        var list = file.accounts[account] ?? []
        let folded = entry.lowercased()
        list.removeAll { $0.lowercased() == folded }
        list.insert(entry, at: 0)
        if list.count > Self.capacity { list.removeLast(list.count - Self.capacity) }
        file.accounts[account] = list
        try save(file)
        entries = list
        return true
    }

    /// Forgets this account's searches.
    public mutating func clear() throws(SearchHistoryError) {
        var file = try load()
        file.accounts[account] = nil
        try save(file)
        entries = []
    }

    private var fileURL: URL { directory.appendingPathComponent(Self.fileName) }

    /// Reads the file; a missing file is empty, an unreadable one is empty and sets `warning`.
    private mutating func load() throws(SearchHistoryError) -> HistoryFile {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            if !FileManager.default.fileExists(atPath: fileURL.path) { return HistoryFile() }
            warning = SearchHistoryWarning(path: fileURL.path, reason: "it could not be read")
            return HistoryFile()
        }
        do {
            let file = try JSONDecoder().decode(HistoryFile.self, from: data)
            guard file.version == 1 else {
                warning = SearchHistoryWarning(path: fileURL.path, reason: "it has unknown version \(file.version)")
                return HistoryFile()
            }
            return file
        } catch {
            warning = SearchHistoryWarning(path: fileURL.path, reason: "it is not valid history JSON")
            return HistoryFile()
        }
    }

    /// Writes a temporary file in the same directory (mode 0600), fsyncs it and renames it over
    /// `history.json`, so a reader sees the old file or the new one, never half of one.
    private func save(_ file: HistoryFile) throws(SearchHistoryError) {
        let bytes: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            bytes = Array(try encoder.encode(file))
        } catch {
            throw SearchHistoryError(.writeFailed, "the search history could not be encoded: \(error)")
        }
        try createDirectory()
        var template = Array(directory.appendingPathComponent(".history.json.XXXXXX").path.utf8CString)
        let descriptor = try posix("mkstemp") { mkstemp(&template) }
        let temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            if !renamed { unlink(temporaryPath) }
        }
        do {
            defer { close(descriptor) }
            try posix("fchmod") { fchmod(descriptor, 0o600) }
            var offset = 0
            while offset < bytes.count {
                let written = try posix("write") {
                    bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                }
                offset += written
            }
            try posix("fsync") { fsync(descriptor) }
        }
        try posix("rename") { rename(temporaryPath, fileURL.path) }
        renamed = true
        // Make the rename itself durable.
        let directoryDescriptor = open(directory.path, O_RDONLY | O_DIRECTORY)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    private func createDirectory() throws(SearchHistoryError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SearchHistoryError(
                .writeFailed,
                "cannot create the history directory \(directory.path): \(failureReason(error)); check its permissions"
            )
        }
    }

    /// Runs a POSIX call, retrying on EINTR; -1 becomes a `SearchHistoryError` naming the call.
    @discardableResult
    private func posix<Result: FixedWidthInteger>(
        _ name: String, _ body: () -> Result
    ) throws(SearchHistoryError) -> Result {
        while true {
            let result = body()
            guard result == -1 else { return result }
            let number = errno
            if number == EINTR { continue }
            throw SearchHistoryError(
                .writeFailed,
                "cannot save the search history in \(directory.path): \(name) failed (\(String(cString: strerror(number)))); check the directory's permissions"
            )
        }
    }
}

private struct HistoryFile: Codable {
    var version = 1
    var accounts: [String: [String]] = [:]
}

/// The history file could not be read and was replaced with an empty one.
public struct SearchHistoryWarning: Hashable, Sendable, CustomStringConvertible {
    /// The file's path.
    public var path: String
    /// Why it could not be read.
    public var reason: String

    /// A warning about `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// One sentence for a person.
    public var message: String {
        "the search history at \(path) was replaced with an empty one because \(reason)"
    }

    /// The same as `message`.

    public var description: String { message }
}

/// The history could not be saved.
public struct SearchHistoryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of error.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The code\'s name.

        public var description: String { name }

        /// The file or its directory could not be written.
        public static let writeFailed = Code("writeFailed")
    }

    /// What kind of error.
    public var code: Code
    /// What happened and what to do.
    public var message: String

    /// An error with a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The same as `message`.

    public var description: String { message }
}
