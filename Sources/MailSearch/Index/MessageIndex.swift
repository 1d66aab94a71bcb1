import CSQLite
import FoundationEssentials
public import IMAPCore
import MailMIME
public import SearchSemantics
import Synchronization
import SystemLayer

/// The local index of an account's mailboxes: one SQLite file, fed from the IMAP stream by
/// ``IndexSync`` and searched by ``LocalSearch`` with the server's own semantics.
///
/// ## Schema, and why
/// - `mailbox`: one row per indexed mailbox under its UIDVALIDITY, with the HIGHESTMODSEQ and
///   UIDNEXT of the last sync, its message count (kept with every change: counting the rows of a
///   100,000-message mailbox took 5 ms, 40 ms from a cold cache, on every search and catch-up), and `resume_below`: while a first sync runs (newest first), the
///   lowest UID indexed so far, so a killed sync goes on from there; and what the server was
///   seen to do where servers differ (`attached_headers_in_body`: whether its BODY finds a word
///   in an attached message's header; `undated_sent_date`: what sent date it gives a message
///   without a readable Date header), learned by asking it (``IndexSync``).
/// - `message`: what a search compares besides text (flags, INTERNALDATE, size, MODSEQ), a few
///   dozen bytes a row, so a search that reads every row of a mailbox reads little. Its rowid is
///   `mailbox id << 32 | UID`: a message is found by key without an index, and a mailbox's rows
///   are a range. `message_date` (INTERNALDATE, then rowid) walks the messages newest first as
///   `SORT (REVERSE ARRIVAL)` orders them, so the newest matches are found without a sort.
/// - `message_content`: under the same rowid, the decoded search text (`SearchableText`, what
///   SEARCH looks at) in two parts, its header side and its body side (only BODY and TEXT read
///   the second), and the listing summary (``CachedMessage``), each deflated (``Deflate``: about
///   three to one). The text confirms every text match, so an answer is exactly what the
///   rules of `SearchMatcher` say (the mock server's rules, checked against Dovecot); a search
///   inflates only the rows it must confirm. Apart from `message`, so the big rows are not in
///   the way of a scan of the small ones.
/// - Three contentless FTS5 tables (the text is in `message_content` already) with the
///   `trigram` tokenizer (substrings, as IMAP matches, not words) over text case folded *by our
///   own folding* (`case_sensitive 1`), so their trigrams are exactly those of what the matcher
///   compares: they narrow a text search to candidates and never drop a match.
///   `message_address` (FROM, TO, CC, BCC: short) keeps `detail=column`, so FROM looks at the
///   from column only; `message_body` and `message_header` (every header field and the parts'
///   MIME headers) keep `detail=none`, a third of `detail=column`'s size on mail text, and one
///   table each so BODY does not narrow to header matches. Terms shorter than three characters
///   cannot use them: those read every row of the mailbox.
/// - `listed`: what lists showed of messages not indexed (MessageIndex+Listings.swift): the index
///   is the one local store of messages, and a page takes indexed rows first, then these.
/// - WAL, `synchronous=NORMAL` and one transaction per batch of a sync: a kill loses at most the
///   batch in flight; `BEGIN IMMEDIATE` with a busy timeout makes two syncs take turns. (A
///   memory map was tried for reads: no less CPU for a search, and a sync's resident memory
///   doubled with the mapped pages.)
///
/// The file is 0600 in a 0700 directory (it holds mail text, never a password).
public final class MessageIndex: Sendable {
    /// A mailbox as the index holds it.
    public struct Mailbox: Sendable, Equatable {
        public var name: String
        public var uidValidity: UInt32
        public var highestModificationSequence: UInt64?
        public var uidNext: UInt32?
        /// While the first sync is not finished: the lowest UID indexed so far (newest first).
        public var resumeBelow: UInt32?
        /// Seconds since 1970 of the last finished sync.
        public var syncedAt: Int?
        public var messageCount: Int
        /// Whether the server's BODY finds a word in the header of an attached message (RFC
        /// 5322 2.1 says it is in the body; Dovecot 2.3 does not look there); nil until a sync
        /// has asked the server.
        public var attachedHeadersInBody: Bool?
        /// What the server's SENTBEFORE, SENTON and SENTSINCE take for the sent date of a
        /// message without a readable Date header; nil until a sync has asked the server.
        public var undatedSentDate: UndatedRule?
    }

    /// One message to store.
    public struct Record: Sendable {
        public var uid: UInt32
        public var flags: [Flag]
        public var internalDate: IMAPDateTime
        public var size: Int
        public var modificationSequence: UInt64
        public var text: SearchableText
        /// What a listing shows of it (``CachedMessage``): sender, subject, date, preview.
        public var summary: CachedMessage

        public init(
            uid: UInt32, flags: [Flag], internalDate: IMAPDateTime, size: Int, modificationSequence: UInt64,
            text: SearchableText, summary: CachedMessage
        ) {
            self.summary = summary
            self.uid = uid
            self.flags = flags
            self.internalDate = internalDate
            self.size = size
            self.modificationSequence = modificationSequence
            self.text = text
        }
    }

    /// The index file.
    public let path: String
    private let database: Mutex<SQLiteConnection?>

    /// The schema's version (`PRAGMA user_version`): a file of another version is rebuilt (the
    /// index can always be rebuilt from the server).
    static let version: Int64 = 8

    /// The path of an index held in memory only (``init(path:)``): gone when it is closed,
    /// for the demo mailbox.
    public static let inMemory = ":memory:"

    /// The index at `path`, opened (and created) now; at ``inMemory``, one in memory.
    public init(path: String) throws(StoreError) {
        self.path = path
        database = Mutex(nil)
        if path != Self.inMemory {
            // The file is checked and made private (opened and closed outside SQLite) only while
            // this process has no connection to it: closing any descriptor of a file drops every
            // POSIX lock the process holds on it, and another process that then finds the file
            // unlocked takes itself for the last connection and deletes the WAL that this one
            // still writes to (a `watch` whose index stopped being seen by `search --offline`).
            if OpenIndexFiles.shared.opening(path) {
                do throws(StoreError) {
                    try Self.prepareFiles(path)
                } catch {
                    OpenIndexFiles.shared.closed(path)
                    throw error
                }
            }
        }
        let connection: SQLiteConnection
        do throws(StoreError) {
            connection = try Self.open(path)
        } catch {
            if path != Self.inMemory { OpenIndexFiles.shared.closed(path) }
            throw error
        }
        database.withLock { $0 = connection }
    }

    /// `$XDG_CACHE_HOME/mailsearch/index-<account>.sqlite`, or under `~/.cache` when
    /// XDG_CACHE_HOME is unset or not absolute; nil without either.
    public static func defaultPath(account: String, environment: [String: String]) -> String? {
        let safe = String(account.map { $0.isLetter || $0.isNumber || "@.-_".contains($0) ? $0 : "_" })
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return cache + "/mailsearch/index-\(safe).sqlite"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.cache/mailsearch/index-\(safe).sqlite"
    }

    private static func prepareFiles(_ path: String) throws(StoreError) {
        do throws(PrivateFileError) {
            try PrivateFiles.prepareDirectory(PrivateFiles.directory(of: path))
            try PrivateFiles.prepareFile(path)
        } catch {
            throw StoreError(message: "the index \(error)")
        }
    }

    private static func open(_ path: String) throws(StoreError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 30_000)
        try connection.execute("PRAGMA journal_mode=WAL")
        try connection.execute("PRAGMA synchronous=NORMAL")
        guard try connection.integer("PRAGMA user_version") != Self.version else { return connection }
        let rebuilt = try connection.transaction { () throws(StoreError) -> Bool in
            let version = try connection.integer("PRAGMA user_version") ?? 0
            guard version != Self.version else { return false }
            if version != 0 {
                // Virtual tables first: an FTS5 table's own tables go with it.
                let tables = try connection.prepare(
                    "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY sql LIKE 'CREATE VIRTUAL%' DESC")
                var names: [String] = []
                while try tables.step() { names.append(tables.text(0)) }
                // An FTS5 table takes its own tables with it: those are gone when their turn comes.
                // (No statement may be left reading while a table is dropped: SQLITE_LOCKED.)
                for name in names where !name.hasPrefix("sqlite_") {
                    try connection.execute("DROP TABLE IF EXISTS \"\(name.replacing("\"", with: "\"\""))\"")
                }
            }
            try connection.execute(
                """
                CREATE TABLE mailbox(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, uidvalidity INTEGER NOT NULL,
                    highestmodseq INTEGER, uidnext INTEGER, resume_below INTEGER, synced_at INTEGER,
                    attached_headers_in_body INTEGER, undated_sent_date TEXT,
                    message_count INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE message(rowid INTEGER PRIMARY KEY, modseq INTEGER NOT NULL, flags TEXT NOT NULL,
                    internal_date INTEGER NOT NULL, zone INTEGER NOT NULL, size INTEGER NOT NULL);
                CREATE INDEX message_date ON message(internal_date);
                CREATE TABLE message_content(rowid INTEGER PRIMARY KEY, header BLOB NOT NULL, body BLOB NOT NULL,
                    summary BLOB NOT NULL);
                CREATE VIRTUAL TABLE message_address USING fts5(addr_from, addr_to, addr_cc, addr_bcc,
                    content='', detail=column, tokenize='trigram case_sensitive 1');
                CREATE VIRTUAL TABLE message_header USING fts5(headers, parts,
                    content='', detail=none, tokenize='trigram case_sensitive 1');
                CREATE VIRTUAL TABLE message_body USING fts5(body,
                    content='', detail=none, tokenize='trigram case_sensitive 1');
                PRAGMA user_version=\(Self.version);
                """)
            return version != 0
        }
        if rebuilt { try connection.execute("VACUUM") }
        try connection.execute(listingSchema)
        return connection
    }

    /// Runs `body` with the connection on a blocking-work thread (SQLite blocks; the cooperative
    /// pool must not).
    func withConnection<Value: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        let outcome: Result<Value, StoreError>
        do throws(SystemCallError) {
            // SQLite blocks on the disk and on the lock below, which the pool must never wait on.
            outcome = try await WorkerThreads.shared.value {
                self.database.withLock { connection -> Result<Value, StoreError> in
                    guard let connection else { return .failure(StoreError(message: "the index is closed")) }
                    return Result { () throws(StoreError) -> Value in try body(connection) }
                }
            }
        } catch {
            throw StoreError(message: "no thread for the index: \(error)")
        }
        return try outcome.get()
    }

    // MARK: Mailboxes

    /// Every indexed mailbox.
    public func mailboxes() async throws(StoreError) -> [Mailbox] {
        try await withConnection { (connection) throws(StoreError) in try Self.mailboxes(connection) }
    }

    /// The mailbox called `name`, nil when it is not indexed.
    public func mailbox(_ name: String) async throws(StoreError) -> Mailbox? {
        try await mailboxes().first { $0.name == name }
    }

    static func mailboxes(_ connection: SQLiteConnection) throws(StoreError) -> [Mailbox] {
        let statement = try connection.prepare(
            """
            SELECT name, uidvalidity, highestmodseq, uidnext, resume_below, synced_at,
                message_count, attached_headers_in_body, undated_sent_date
            FROM mailbox ORDER BY name
            """)
        var found: [Mailbox] = []
        while try statement.step() {
            found.append(
                Mailbox(
                    name: statement.text(0), uidValidity: UInt32(truncatingIfNeeded: statement.int64(1)),
                    highestModificationSequence: statement.isNull(2) ? nil : UInt64(statement.int64(2)),
                    uidNext: statement.isNull(3) ? nil : UInt32(truncatingIfNeeded: statement.int64(3)),
                    resumeBelow: statement.isNull(4) ? nil : UInt32(truncatingIfNeeded: statement.int64(4)),
                    syncedAt: statement.isNull(5) ? nil : Int(statement.int64(5)),
                    messageCount: Int(statement.int64(6)),
                    attachedHeadersInBody: statement.isNull(7) ? nil : statement.int64(7) != 0,
                    undatedSentDate: statement.isNull(8) ? nil : UndatedRule(rawValue: statement.text(8))))
        }
        return found
    }

    /// The mailbox's id; with `uidValidity` other than the stored one, its messages are dropped
    /// first (its UIDs now name other messages). Creates the row when missing.
    static func mailboxID(
        _ name: String, uidValidity: UInt32, in connection: SQLiteConnection
    ) throws(StoreError)
        -> Int64
    {
        let find = try connection.prepare("SELECT id, uidvalidity FROM mailbox WHERE name = ?1")
        try find.bind(1, name)
        if try find.step() {
            let id = find.int64(0)
            if UInt32(truncatingIfNeeded: find.int64(1)) != uidValidity {
                try removeMessages(ofMailbox: id, in: connection)
                let reset = try connection.prepare(
                    """
                    UPDATE mailbox SET uidvalidity = ?2, highestmodseq = NULL, uidnext = NULL, resume_below = NULL,
                        synced_at = NULL WHERE id = ?1
                    """)
                try reset.bind(1, id)
                try reset.bind(2, Int64(uidValidity))
                try reset.run()
            }
            return id
        }
        let insert = try connection.prepare("INSERT INTO mailbox(name, uidvalidity) VALUES (?1, ?2)")
        try insert.bind(1, name)
        try insert.bind(2, Int64(uidValidity))
        try insert.run()
        return sqlite3_last_insert_rowid(connection.handle)
    }

    /// Deletes the messages of mailbox `id` from both tables.
    static func removeMessages(ofMailbox id: Int64, in connection: SQLiteConnection) throws(StoreError) {
        let rows = try connection.prepare("SELECT rowid FROM message WHERE rowid >= ?1 AND rowid < ?2")
        try rows.bind(1, id << 32)
        try rows.bind(2, (id + 1) << 32)
        var uids: [UInt32] = []
        while try rows.step() { uids.append(UInt32(truncatingIfNeeded: rows.int64(0))) }
        try remove(uids, mailboxID: id, in: connection)
    }

    /// Drops the index of `name`, or of every mailbox; the file's free pages are given back
    /// (VACUUM) so nothing of the mail stays in it.
    public func drop(mailbox name: String?) async throws(StoreError) {
        try await withConnection { (connection) throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                for mailbox in try Self.mailboxes(connection) where name == nil || mailbox.name == name {
                    let find = try connection.prepare("SELECT id FROM mailbox WHERE name = ?1")
                    try find.bind(1, mailbox.name)
                    guard try find.step() else { continue }
                    let id = find.int64(0)
                    try Self.removeMessages(ofMailbox: id, in: connection)
                    let delete = try connection.prepare("DELETE FROM mailbox WHERE id = ?1")
                    try delete.bind(1, id)
                    try delete.run()
                }
                try Self.dropListed(name, in: connection)
                // A contentless FTS5 table keeps a deleted row's terms until its segments merge.
                for table in Self.textTables {
                    let command = name == nil ? "delete-all" : "optimize"
                    try connection.execute("INSERT INTO \(table)(\(table)) VALUES('\(command)')")
                }
            }
            try connection.execute("VACUUM")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Bytes the index takes on disk (the file and its WAL).
    public func bytesOnDisk() -> Int {
        ["", "-wal"].reduce(0) { total, suffix in total + (PrivateFiles.size(path + suffix) ?? 0) }
    }

    /// Closes the file (later calls fail).
    public func close() {
        let wasOpen = database.withLock { database -> Bool in
            defer { database = nil }
            return database != nil
        }
        if wasOpen && path != Self.inMemory { OpenIndexFiles.shared.closed(path) }
    }

    deinit { close() }

    // MARK: Messages

    /// Stores `records` (new, or replacing the same UIDs) in one transaction, with the mailbox's
    /// progress: `resumeBelow` during a first sync, and the server's state when the sync is done.
    public func store(
        _ records: [Record], in name: String, uidValidity: UInt32, progress: Progress
    ) async throws(StoreError) {
        try await withConnection { (connection) throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                let id = try Self.mailboxID(name, uidValidity: uidValidity, in: connection)
                try Self.remove(records.map(\.uid), mailboxID: id, in: connection)
                let insert = try connection.prepare(
                    "INSERT INTO message(rowid, modseq, flags, internal_date, zone, size) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
                )
                let insertContent = try connection.prepare(
                    "INSERT INTO message_content(rowid, header, body, summary) VALUES (?1, ?2, ?3, ?4)")
                let insertText = try TextStatements(connection, deleting: false)
                for record in records {
                    let rowid = id << 32 | Int64(record.uid)
                    try insert.bind(1, rowid)
                    try insert.bind(2, Int64(bitPattern: record.modificationSequence))
                    try insert.bind(3, Self.flagText(record.flags))
                    try insert.bind(4, Int64(record.internalDate.secondsSinceEpoch))
                    try insert.bind(5, Int64(record.internalDate.zoneMinutes))
                    try insert.bind(6, Int64(record.size))
                    try insert.run()
                    try insertContent.bind(1, rowid)
                    let (header, body) = record.text.encodedParts()
                    try insertContent.bind(2, Deflate.packed(header))
                    try insertContent.bind(3, Deflate.packed(body))
                    try insertContent.bind(4, Deflate.packed(record.summary.encoded()))
                    try insertContent.run()
                    try insertText.run(record.text, rowid: rowid)
                }
                try Self.count(records.count, mailboxID: id, in: connection)
                try Self.record(progress, mailboxID: id, in: connection)
            }
        }
    }

    /// Sets the flags and mod-sequences of messages already indexed (a UID not indexed is left
    /// out: it comes with the next fetch of new mail).
    public func updateFlags(
        _ changes: [(uid: UInt32, flags: [Flag], modificationSequence: UInt64)], in name: String,
        uidValidity: UInt32, progress: Progress
    ) async throws(StoreError) {
        try await withConnection { (connection) throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                let id = try Self.mailboxID(name, uidValidity: uidValidity, in: connection)
                let update = try connection.prepare("UPDATE message SET flags = ?2, modseq = ?3 WHERE rowid = ?1")
                for change in changes {
                    try update.bind(1, id << 32 | Int64(change.uid))
                    try update.bind(2, Self.flagText(change.flags))
                    try update.bind(3, Int64(bitPattern: change.modificationSequence))
                    try update.run()
                }
                try Self.record(progress, mailboxID: id, in: connection)
            }
        }
    }

    /// Removes messages (expunged on the server); returns how many were indexed (a UID not
    /// indexed is passed over).
    @discardableResult
    public func remove(
        _ uids: [UInt32], in name: String, uidValidity: UInt32, progress: Progress
    ) async throws(StoreError) -> Int {
        try await withConnection { (connection) throws(StoreError) -> Int in
            try connection.transaction { () throws(StoreError) -> Int in
                let id = try Self.mailboxID(name, uidValidity: uidValidity, in: connection)
                let removed = try Self.remove(uids, mailboxID: id, in: connection)
                try Self.record(progress, mailboxID: id, in: connection)
                return removed
            }
        }
    }

    /// `uids` of `name` newest first as the server's `SORT (REVERSE ARRIVAL)` orders them: by
    /// INTERNALDATE, later first, a tie by UID (RFC 5256: by sequence number, which follows UIDs).
    public func newestFirst(_ uids: [UInt32], in name: String) async throws(StoreError) -> [UInt32] {
        try await newestFirst([name: uids]).map(\.uid)
    }

    /// Messages of several mailboxes (an `in:all` answer) in one order, newest first: by
    /// INTERNALDATE, then UID, as the server's answer of several mailboxes is ordered
    /// (`OtherMailboxes.search`); those not indexed are left out.
    public func newestFirst(
        _ matches: [String: [UInt32]]
    ) async throws(StoreError) -> [(mailbox: String, uid: UInt32)] {
        try await withConnection { (connection) throws(StoreError) -> [(mailbox: String, uid: UInt32)] in
            let find = try connection.prepare("SELECT id FROM mailbox WHERE name = ?1")
            let read = try connection.prepare("SELECT internal_date FROM message WHERE rowid = ?1")
            var dated: [(mailbox: String, uid: UInt32, date: Int64)] = []
            dated.reserveCapacity(matches.values.reduce(0) { $0 + $1.count })
            for (name, uids) in matches {
                try find.bind(1, name)
                defer { find.reset() }
                guard try find.step() else { continue }
                let id = find.int64(0)
                for uid in uids {
                    try read.bind(1, id << 32 | Int64(uid))
                    defer { read.reset() }
                    if try read.step() { dated.append((name, uid, read.int64(0))) }
                }
            }
            dated.sort { $0.date != $1.date ? $0.date > $1.date : $0.uid > $1.uid }
            return dated.map { ($0.mailbox, $0.uid) }
        }
    }

    /// The UIDs indexed in `name`, ascending.
    public func uids(in name: String) async throws(StoreError) -> [UInt32] {
        try await withConnection { (connection) throws(StoreError) in
            let find = try connection.prepare("SELECT id FROM mailbox WHERE name = ?1")
            try find.bind(1, name)
            guard try find.step() else { return [] }
            let id = find.int64(0)
            let rows = try connection.prepare(
                "SELECT rowid FROM message WHERE rowid >= ?1 AND rowid < ?2 ORDER BY rowid")
            try rows.bind(1, id << 32)
            try rows.bind(2, (id + 1) << 32)
            var uids: [UInt32] = []
            while try rows.step() { uids.append(UInt32(truncatingIfNeeded: rows.int64(0))) }
            return uids
        }
    }

    /// Where a sync stands, stored with each batch.
    public enum Progress: Sendable {
        /// A first sync has indexed every UID from the top down to this one.
        case indexedDownTo(UInt32)
        /// The mailbox is in step with the server at this state.
        case inStep(highestModificationSequence: UInt64?, uidNext: UInt32?, at: Int)
        /// Nothing about the progress changes.
        case unchanged
    }

    private static func record(
        _ progress: Progress, mailboxID id: Int64, in connection: SQLiteConnection
    )
        throws(StoreError)
    {
        switch progress {
        case .unchanged: return
        case .indexedDownTo(let uid):
            let update = try connection.prepare("UPDATE mailbox SET resume_below = ?2 WHERE id = ?1")
            try update.bind(1, id)
            try update.bind(2, Int64(uid))
            try update.run()
        case .inStep(let modificationSequence, let uidNext, let time):
            let update = try connection.prepare(
                "UPDATE mailbox SET highestmodseq = ?2, uidnext = ?3, synced_at = ?4, resume_below = NULL WHERE id = ?1"
            )
            try update.bind(1, id)
            try update.bind(2, modificationSequence.map { Int64(bitPattern: $0) })
            try update.bind(3, uidNext.map { Int64($0) })
            try update.bind(4, Int64(time))
            try update.run()
        }
    }

    /// Removes the indexed messages of `uids`; returns how many there were.
    @discardableResult
    private static func remove(
        _ uids: [UInt32], mailboxID id: Int64, in connection: SQLiteConnection
    )
        throws(StoreError) -> Int
    {
        guard !uids.isEmpty else { return 0 }
        let read = try connection.prepare("SELECT header, body FROM message_content WHERE rowid = ?1")
        let deleteText = try TextStatements(connection, deleting: true)
        let delete = try connection.prepare("DELETE FROM message WHERE rowid = ?1")
        let deleteContent = try connection.prepare("DELETE FROM message_content WHERE rowid = ?1")
        let inflater = Inflater()
        var removed = 0
        for uid in uids {
            let rowid = id << 32 | Int64(uid)
            try read.bind(1, rowid)
            guard try read.step() else {
                read.reset()
                continue
            }
            let (storedHeader, storedBody) = (read.blob(0), read.blob(1))
            read.reset()
            // A contentless FTS5 row is deleted by giving it the values it was indexed with.
            guard let header = inflater.unpacked(storedHeader), let body = inflater.unpacked(storedBody),
                let text = SearchableText(header: header, body: body)
            else {
                throw StoreError(
                    message: "the index \(connection.path) holds a damaged message; drop it", startsOver: true)
            }
            try deleteText.run(text, rowid: rowid)
            try delete.bind(1, rowid)
            try delete.run()
            try deleteContent.bind(1, rowid)
            try deleteContent.run()
            removed += 1
        }
        try count(-removed, mailboxID: id, in: connection)
        return removed
    }

    /// Adds `change` to the mailbox's message count, kept in its row (in the transaction that
    /// changed the messages) so reading it costs nothing whatever the mailbox's size.
    private static func count(_ change: Int, mailboxID id: Int64, in connection: SQLiteConnection) throws(StoreError) {
        guard change != 0 else { return }
        let update = try connection.prepare("UPDATE mailbox SET message_count = message_count + ?2 WHERE id = ?1")
        try update.bind(1, id)
        try update.bind(2, Int64(change))
        try update.run()
    }

    /// The FTS5 tables, for commands to all of them.
    static let textTables = ["message_address", "message_header", "message_body"]

    /// Inserts into (or, `deleting`, deletes from) the FTS5 tables a message's text, case folded
    /// (see the schema).
    private struct TextStatements {
        let address: SQLiteConnection.Statement
        let header: SQLiteConnection.Statement
        let body: SQLiteConnection.Statement

        init(_ connection: SQLiteConnection, deleting: Bool) throws(StoreError) {
            func statement(_ table: String, _ columns: [String]) throws(StoreError) -> SQLiteConnection.Statement {
                let values = (2...columns.count + 1).map { "?\($0)" }.joined(separator: ", ")
                let names = columns.joined(separator: ", ")
                return try connection.prepare(
                    deleting
                        ? "INSERT INTO \(table)(\(table), rowid, \(names)) VALUES ('delete', ?1, \(values))"
                        : "INSERT INTO \(table)(rowid, \(names)) VALUES (?1, \(values))")
            }
            address = try statement("message_address", ["addr_from", "addr_to", "addr_cc", "addr_bcc"])
            header = try statement("message_header", ["headers", "parts"])
            body = try statement("message_body", ["body"])
        }

        func run(_ text: SearchableText, rowid: Int64) throws(StoreError) {
            try address.bind(1, rowid)
            for (column, name) in ["from", "to", "cc", "bcc"].enumerated() {
                try address.bind(Int32(column + 2), text.addressText[name] ?? "")
            }
            try address.run()
            try header.bind(1, rowid)
            try header.bind(2, CaseFolding.fold(text.allHeadersText))
            try header.bind(3, CaseFolding.fold(text.partHeadersText))
            try header.run()
            try body.bind(1, rowid)
            try body.bind(2, CaseFolding.fold(text.bodyText))
            try body.run()
        }
    }

    static func flagText(_ flags: [Flag]) -> String { flags.map(\.rawValue).joined(separator: " ") }

    static func flags(_ text: String) -> [Flag] { text.split(separator: " ").map { Flag(String($0)) } }
}
