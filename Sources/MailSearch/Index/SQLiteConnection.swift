import CSQLite

/// A failure of an SQLite file, in words for a person.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// The file is not a database this version can read (not SQLite, damaged): removing it and
    /// starting over is the remedy.
    public var startsOver = false
    /// Another process holds the file's write lock.
    public var isBusy = false
    /// The caller's deadline passed and the work was stopped
    /// (``SQLiteConnection/stopping(at:_:)``); nothing is wrong with the file.
    public var isOverdue = false

    public var description: String { message }
}

/// One open SQLite connection (SQLITE_OPEN_NOMUTEX): its owner calls it from one thread at a
/// time, never from the cooperative pool.
final class SQLiteConnection: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String

    /// Opens (creating) `path`, which the caller made private first.
    init(path: String, busyTimeoutMilliseconds: Int32 = 0) throws(StoreError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            if let handle { sqlite3_close(handle) }
            throw StoreError(message: "\(path) cannot be opened (SQLite error \(result))")
        }
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit { sqlite3_close(handle) }

    func execute(_ sql: String) throws(StoreError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    func prepare(_ sql: String) throws(StoreError) -> Statement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil))
        guard let statement else { throw StoreError(message: "\(path) refused a statement") }
        return Statement(statement, connection: self)
    }

    /// The first column of the first row of `sql`, or nil without a row.
    func integer(_ sql: String) throws(StoreError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.int64(0)
    }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE), committed when it returns and
    /// rolled back when it throws.
    func transaction<Value>(_ body: () throws(StoreError) -> Value) throws(StoreError) -> Value {
        try execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// Runs `body` with its statements stopped once `deadline` passes: SQLite looks at the clock
    /// every thousand steps of its virtual machine (a progress handler), so one statement that
    /// reads a great many rows cannot run on past it. A stopped statement throws a
    /// ``StoreError`` whose `isOverdue` is set. Nil: no deadline.
    func stopping<Value>(
        at deadline: ContinuousClock.Instant?, _ body: () throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        guard let deadline else { return try body() }
        let box = Deadline(deadline)
        sqlite3_progress_handler(
            handle, 1000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<Deadline>.fromOpaque(context).takeUnretainedValue().isPast ? 1 : 0
            }, Unmanaged.passUnretained(box).toOpaque())
        defer { sqlite3_progress_handler(handle, 0, nil, nil) }
        return try withExtendedLifetime(box) { () throws(StoreError) -> Value in try body() }
    }

    /// A deadline a progress handler reads through a pointer.
    final class Deadline {
        let instant: ContinuousClock.Instant
        init(_ instant: ContinuousClock.Instant) { self.instant = instant }
        var isPast: Bool { ContinuousClock.now >= instant }
    }

    /// The error of work stopped at its deadline.
    static func overdue(_ what: String) -> StoreError {
        var error = StoreError(message: "the local answer took longer than the caller would wait (\(what))")
        error.isOverdue = true
        return error
    }

    func check(_ result: Int32) throws(StoreError) {
        guard result == SQLITE_OK else { throw failure(result) }
    }

    func failure(_ result: Int32) -> StoreError {
        let primary = result & 0xFF
        if primary == SQLITE_INTERRUPT { return Self.overdue("stopped by SQLite") }
        return StoreError(
            message: "\(path) failed (\(String(cString: sqlite3_errmsg(handle))))",
            startsOver: primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT,
            isBusy: primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    }

    /// A prepared statement, finalized when released.
    final class Statement {
        let handle: OpaquePointer
        private let connection: SQLiteConnection

        init(_ handle: OpaquePointer, connection: SQLiteConnection) {
            self.handle = handle
            self.connection = connection
        }

        deinit { sqlite3_finalize(handle) }

        /// Clears the bindings' use: the statement can run again.
        func reset() {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }

        func bind(_ index: Int32, _ value: Int64) throws(StoreError) {
            try connection.check(sqlite3_bind_int64(handle, index, value))
        }

        func bind(_ index: Int32, _ value: Int64?) throws(StoreError) {
            if let value { try bind(index, value) } else { try connection.check(sqlite3_bind_null(handle, index)) }
        }

        func bind(_ index: Int32, _ value: String) throws(StoreError) {
            try connection.check(sqlite3_bind_text(handle, index, value, -1, mailsearch_sqlite_transient()))
        }

        func bind(_ index: Int32, _ value: String?) throws(StoreError) {
            if let value { try bind(index, value) } else { try connection.check(sqlite3_bind_null(handle, index)) }
        }

        func bind(_ index: Int32, _ value: [UInt8]) throws(StoreError) {
            let result = value.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), mailsearch_sqlite_transient())
            }
            try connection.check(result)
        }

        /// Steps: true for a row, false when done.
        func step() throws(StoreError) -> Bool {
            let result = sqlite3_step(handle)
            if result == SQLITE_ROW { return true }
            if result == SQLITE_DONE { return false }
            throw connection.failure(result)
        }

        /// Runs to the end, for a statement that returns no rows.
        func run() throws(StoreError) {
            while try step() {}
            reset()
        }

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

        func text(_ column: Int32) -> String {
            guard let pointer = sqlite3_column_text(handle, column) else { return "" }
            return String(cString: pointer)
        }

        func blob(_ column: Int32) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: pointer, count: count))
        }
    }
}
