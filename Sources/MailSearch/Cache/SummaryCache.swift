import CSQLite
import FoundationEssentials
import Synchronization
import SystemLayer
import Transport

/// The messages lists have shown, kept on disk between runs (an SQLite file), so that showing
/// them again asks the server only for their flags: `UID FETCH ... (UID FLAGS MODSEQ)` instead
/// of envelopes, structures, sizes and previews (on Dovecot's Maildir the size alone makes the
/// server read its whole UID list in every new session).
///
/// An entry is a ``CachedMessage`` under its account, mailbox, UIDVALIDITY and UID; storing
/// messages of a mailbox under a new UIDVALIDITY drops the old ones. The file is created with
/// mode 0600 in a 0700 directory (it holds subjects and previews, never a password). A file
/// that is not a cache of this version is replaced; a cache that cannot be used at all is left
/// alone (``problem`` says why) and everything is fetched from the server, as without one. When
/// the file grows past ``maximumBytes``, the older half of its entries goes.
///
/// All SQLite work runs on a thread of its own, never on the cooperative pool.
public final class SummaryCache: Sendable {
    /// Where a mailbox's messages are kept: the account (user, host and port), the mailbox and
    /// its UIDVALIDITY.
    public struct Key: Hashable, Sendable {
        /// `user@host:port`.
        public var account: String
        /// The mailbox's name as the server sends it.
        public var mailbox: String
        /// The mailbox's UIDVALIDITY: its UIDs name the same messages only while it stays.
        public var uidValidity: UInt32

        /// The key of `mailbox` of `account` under `uidValidity`.
        public init(account: String, mailbox: String, uidValidity: UInt32) {
            self.account = account
            self.mailbox = mailbox
            self.uidValidity = uidValidity
        }
    }

    /// The cache file.
    public let path: String
    /// The size past which the older half of the entries is dropped.
    public let maximumBytes: Int
    private let state: Mutex<State>

    private enum State {
        case closed
        case open(Database)
        case unusable(String)
    }

    /// A cache in the file at `path` (opened on first use; its directory is created).
    public init(path: String, maximumBytes: Int = 256 << 20) {
        self.path = path
        self.maximumBytes = maximumBytes
        state = Mutex(.closed)
    }

    /// `$XDG_CACHE_HOME/mailsearch/summaries.sqlite`, or `~/.cache/mailsearch/...` when
    /// XDG_CACHE_HOME is unset or not absolute; nil without either.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return cache + "/mailsearch/summaries.sqlite"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.cache/mailsearch/summaries.sqlite"
    }

    /// Why the cache is not used (the file could not be created or read); nil while it works.
    public var problem: String? {
        state.withLock { state in
            switch state {
            case .unusable(let reason): return reason
            case .closed, .open: return nil
            }
        }
    }

    /// The stored messages among `uids` under `key`, by UID; none when the cache cannot be used.
    public func messages(_ uids: [UInt32], under key: Key) async -> [UInt32: CachedMessage] {
        guard !uids.isEmpty else { return [:] }
        return await onOwnThread { (database) throws(CacheError) in try database.messages(uids, under: key) } ?? [:]
    }

    /// Stores `messages` under `key`, replacing what was stored for their UIDs, and drops the
    /// mailbox's messages of another UIDVALIDITY.
    public func store(_ messages: [CachedMessage], under key: Key) async {
        guard !messages.isEmpty else { return }
        let maximumBytes = maximumBytes
        _ = await onOwnThread { (database) throws(CacheError) in
            try database.store(messages, under: key)
            try database.trim(to: maximumBytes)
        }
    }

    /// Opens the file now (on its own thread), so that the first lookup, when the server has
    /// answered, does not wait for it: a caller starts this while it connects.
    public func prepare() async {
        _ = await onOwnThread { _ throws(CacheError) in () }
    }

    /// How many messages are stored (for tests).
    package func count() async -> Int {
        await onOwnThread { (database) throws(CacheError) in try database.count() } ?? 0
    }

    /// Runs `body` with the open database on a thread of its own; nil when the cache cannot be
    /// used (the reason is kept in ``problem``). A database error ends its use for this process.
    private func onOwnThread<Value: Sendable>(
        _ body: @escaping @Sendable (Database) throws(CacheError) -> Value
    ) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            do throws(SystemCallError) {
                try startThread(name: "summary-cache") {
                    continuation.resume(returning: self.run(body))
                }
            } catch {
                continuation.resume(returning: nil)
            }
        }
    }

    private func run<Value: Sendable>(_ body: (Database) throws(CacheError) -> Value) -> Value? {
        state.withLock { state -> Value? in
            let database: Database
            switch state {
            case .closed:
                do throws(CacheError) {
                    database = try Database.open(path)
                    state = .open(database)
                } catch {
                    state = .unusable(error.message)
                    return nil
                }
            case .open(let open): database = open
            case .unusable: return nil
            }
            do throws(CacheError) {
                return try body(database)
            } catch {
                state = .unusable(error.message)
                return nil
            }
        }
    }
}

/// A failure of the cache file, in words for ``SummaryCache/problem``.
struct CacheError: Error {
    let message: String
    /// Whether the file is not a cache this version can read (not SQLite, damaged, another
    /// schema), so that removing it and starting over is the remedy. A busy or unwritable file
    /// is left alone.
    var startsOver = false
}

/// The open SQLite connection (opened with SQLITE_OPEN_NOMUTEX). Unchecked Sendable because its
/// one owner, ``SummaryCache``, keeps it in its `Mutex` and calls it only while holding that lock:
/// one thread at a time.
private final class Database: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String

    private init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    /// The schema's version (`PRAGMA user_version`): a file of another version is replaced.
    static let version: Int32 = 1

    /// Opens (creating) the cache at `path`; a file that is not an SQLite cache of this version
    /// is removed and made anew.
    static func open(_ path: String) throws(CacheError) -> Database {
        do throws(PrivateFileError) {
            try PrivateFiles.prepareDirectory(PrivateFiles.directory(of: path))
        } catch {
            throw CacheError(message: "the message cache's directory \(error)")
        }
        do throws(CacheError) {
            return try openExisting(path)
        } catch {
            guard error.startsOver else { throw error }
            do throws(PrivateFileError) {
                for suffix in ["", "-wal", "-shm"] { try PrivateFiles.remove(path + suffix) }
            } catch {
                throw CacheError(message: "the message cache \(error)")
            }
            return try openExisting(path)
        }
    }

    private static func openExisting(_ path: String) throws(CacheError) -> Database {
        // Checked (a regular file of ours, not a link) and created here first, so that it is
        // 0600 whatever the umask; SQLite gives its -wal and -shm files the same mode, and opens
        // it without following a link put there in between.
        do throws(PrivateFileError) {
            try PrivateFiles.prepareFile(path)
        } catch {
            throw CacheError(message: "the message cache \(error)")
        }
        var handle: OpaquePointer?
        let opened = sqlite3_open_v2(
            path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, nil)
        guard opened == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw CacheError(message: "cannot open the message cache \(path) (\(reason))")
        }
        let database = Database(handle: handle, path: path)
        sqlite3_busy_timeout(handle, 2000)
        let version = try database.integer("PRAGMA user_version")
        if version != 0 && version != Int(Self.version) {
            throw CacheError(message: "the message cache \(path) is of another version", startsOver: true)
        }
        try database.execute("PRAGMA journal_mode=WAL")
        try database.execute("PRAGMA synchronous=NORMAL")
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS message (
                account TEXT NOT NULL, mailbox TEXT NOT NULL, uidvalidity INTEGER NOT NULL,
                uid INTEGER NOT NULL, stored INTEGER NOT NULL, data BLOB NOT NULL,
                PRIMARY KEY (account, mailbox, uid)) WITHOUT ROWID
            """)
        try database.execute("CREATE INDEX IF NOT EXISTS message_stored ON message (stored)")
        try database.execute("PRAGMA user_version = \(Self.version)")
        return database
    }

    deinit { sqlite3_close(handle) }

    // MARK: Calls

    func messages(_ uids: [UInt32], under key: SummaryCache.Key) throws(CacheError) -> [UInt32: CachedMessage] {
        var found: [UInt32: CachedMessage] = [:]
        found.reserveCapacity(uids.count)
        let lowest = uids.min() ?? 0
        let highest = uids.max() ?? 0
        // Many UIDs close together (a long listing) are read in one range scan; a few spread
        // out (a search's page) one by one.
        if Int(highest - lowest) < uids.count * 8 {
            let wanted = Set(uids)
            let statement = try prepare(
                "SELECT uid, data FROM message WHERE account = ?1 AND mailbox = ?2 AND uidvalidity = ?3"
                    + " AND uid BETWEEN ?4 AND ?5")
            defer { sqlite3_finalize(statement) }
            try bind(statement, key)
            try bind(statement, 4, Int64(lowest))
            try bind(statement, 5, Int64(highest))
            while try step(statement) {
                let uid = UInt32(truncatingIfNeeded: sqlite3_column_int64(statement, 0))
                guard wanted.contains(uid), let message = Self.message(statement, uid: uid) else { continue }
                found[uid] = message
            }
        } else {
            let statement = try prepare(
                "SELECT uid, data FROM message WHERE account = ?1 AND mailbox = ?2 AND uidvalidity = ?3 AND uid = ?4")
            defer { sqlite3_finalize(statement) }
            try bind(statement, key)
            for uid in uids {
                sqlite3_reset(statement)
                try bind(statement, 4, Int64(uid))
                if try step(statement), let message = Self.message(statement, uid: uid) { found[uid] = message }
            }
        }
        return found
    }

    private static func message(_ statement: OpaquePointer, uid: UInt32) -> CachedMessage? {
        let length = Int(sqlite3_column_bytes(statement, 1))
        guard length > 0, let bytes = sqlite3_column_blob(statement, 1) else { return nil }
        return CachedMessage(uid: uid, decoding: UnsafeRawBufferPointer(start: bytes, count: length))
    }

    func store(_ messages: [CachedMessage], under key: SummaryCache.Key) throws(CacheError) {
        try execute("BEGIN IMMEDIATE")
        do throws(CacheError) {
            let stale = try prepare("DELETE FROM message WHERE account = ?1 AND mailbox = ?2 AND uidvalidity <> ?3")
            defer { sqlite3_finalize(stale) }
            try bind(stale, key)
            _ = try step(stale)
            let insert = try prepare("INSERT OR REPLACE INTO message VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            defer { sqlite3_finalize(insert) }
            let now = Int64(Date().timeIntervalSince1970)
            try bind(insert, key)
            try bind(insert, 5, now)
            for message in messages {
                sqlite3_reset(insert)
                try bind(insert, 4, Int64(message.uid))
                let bytes = message.encoded()
                try check(
                    bytes.withUnsafeBytes { buffer in
                        sqlite3_bind_blob(
                            insert, 6, buffer.baseAddress, Int32(buffer.count), mailsearch_sqlite_transient())
                    })
                _ = try step(insert)
            }
            try execute("COMMIT")
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// Drops the older half of the entries when the pages in use exceed `maximumBytes` (freed
    /// pages are reused by later entries, so the file stays near that size).
    func trim(to maximumBytes: Int) throws(CacheError) {
        let used = try integer("PRAGMA page_count") - integer("PRAGMA freelist_count")
        guard used * (try integer("PRAGMA page_size")) > maximumBytes else { return }
        let half = try count() / 2
        try execute(
            "DELETE FROM message WHERE (account, mailbox, uid) IN"
                + " (SELECT account, mailbox, uid FROM message ORDER BY stored, uid LIMIT \(half))")
    }

    func count() throws(CacheError) -> Int { try integer("SELECT count(*) FROM message") }

    // MARK: SQLite

    private func prepare(_ sql: String) throws(CacheError) -> OpaquePointer {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil))
        guard let statement else { throw CacheError(message: "the message cache \(path) refused a statement") }
        return statement
    }

    /// Binds the key: ?1 account, ?2 mailbox, ?3 UIDVALIDITY (every statement's first three).
    private func bind(_ statement: OpaquePointer, _ key: SummaryCache.Key) throws(CacheError) {
        try check(sqlite3_bind_text(statement, 1, key.account, -1, mailsearch_sqlite_transient()))
        try check(sqlite3_bind_text(statement, 2, key.mailbox, -1, mailsearch_sqlite_transient()))
        try bind(statement, 3, Int64(key.uidValidity))
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Int64) throws(CacheError) {
        try check(sqlite3_bind_int64(statement, index, value))
    }

    /// Steps `statement`: true for a row, false when done.
    private func step(_ statement: OpaquePointer) throws(CacheError) -> Bool {
        let result = sqlite3_step(statement)
        if result == SQLITE_ROW { return true }
        if result == SQLITE_DONE { return false }
        throw failure(result)
    }

    private func execute(_ sql: String) throws(CacheError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    private func integer(_ sql: String) throws(CacheError) -> Int {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard try step(statement) else { return 0 }
        return Int(sqlite3_column_int64(statement, 0))
    }

    private func check(_ result: Int32) throws(CacheError) {
        guard result == SQLITE_OK else { throw failure(result) }
    }

    private func failure(_ result: Int32) -> CacheError {
        let primary = result & 0xFF
        return CacheError(
            message: "the message cache \(path) failed (\(String(cString: sqlite3_errmsg(handle))))",
            startsOver: primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT)
    }
}
