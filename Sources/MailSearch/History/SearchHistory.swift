public import FoundationEssentials
import SystemLayer

/// The searches a person ran, per account, newest first (docs/cli.md, "History and suggestions").
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
    /// A file or directory that is not privately ours (a link, another user's) is an error.
    private mutating func load() throws(SearchHistoryError) -> HistoryFile {
        let bytes: [UInt8]
        do throws(PrivateFileError) {
            try PrivateFiles.prepareDirectory(directory.path)
            guard let read = try PrivateFiles.read(fileURL.path) else { return HistoryFile() }
            bytes = read
        } catch {
            throw SearchHistoryError(.notPrivate, "the search history is not used: \(error)")
        }
        do {
            let file = try JSONDecoder().decode(HistoryFile.self, from: Data(bytes))
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

    /// Replaces `history.json` atomically (mode 0600), so a reader sees the old file or the new
    /// one, never half of one.
    private func save(_ file: HistoryFile) throws(SearchHistoryError) {
        let bytes: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            bytes = Array(try encoder.encode(file))
        } catch {
            throw SearchHistoryError(.writeFailed, "the search history could not be encoded: \(error)")
        }
        do throws(PrivateFileError) {
            try PrivateFiles.writeAtomically(bytes, to: fileURL.path)
        } catch {
            throw SearchHistoryError(.writeFailed, "cannot save the search history: \(error)")
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

/// The history could not be read or saved.
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
        /// The file or its directory is not privately ours (a symbolic link, another user's, not
        /// a regular file or directory): it is neither read nor written.
        public static let notPrivate = Code("notPrivate")
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
