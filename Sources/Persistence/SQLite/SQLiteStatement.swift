import CSQLite

/// A compiled SQL statement: bind parameters (1-based), step through rows, read columns (0-based).
///
/// Text is bound with `SQLITE_TRANSIENT`, so SQLite copies it and the Swift string may go away
/// as soon as `bind` returns; ``bindStatic(_:_:)`` skips the copy for bytes that outlive the step.
/// Reset and clear a statement with `reset()` before reusing it.
final class SQLiteStatement {
    private let stmt: OpaquePointer
    private unowned let connection: SQLiteConnection
    let sql: String

    /// `SQLITE_TRANSIENT`, which the C header spells as a cast of -1 that Swift does not import.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ stmt: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.stmt = stmt
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(stmt)
    }

    /// `what` is only built on failure: binds run for every row written.
    private func check(_ rc: Int32, _ what: @autoclosure () -> String) throws(SQLiteError) {
        guard rc == SQLITE_OK else {
            throw SQLiteError.from(connection.handle, code: rc, context: "\(what()) for \(sql)")
        }
    }

    /// Binds the string's UTF-8 bytes with their length, never as a C string: a NUL inside
    /// the text would otherwise end it there (two tokens `abc` and `abc\0x` became one row).
    func bind(_ index: Int32, _ value: String?) throws(SQLiteError) {
        guard var value else { return try bindNull(index) }
        let rc = value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                // An empty buffer may have no address, and SQLite reads a null pointer as NULL.
                guard let base = text.baseAddress else { return sqlite3_bind_text(stmt, index, "", 0, Self.transient) }
                return sqlite3_bind_text(stmt, index, base, Int32(clamping: text.count), Self.transient)
            }
        }
        try check(rc, "binding text ?\(index)")
    }

    /// Binds `text` (UTF-8) without SQLite copying it: the bytes must stay where they are until
    /// the statement is reset (``run()`` resets it), so call this and step inside the closure
    /// that lends them.
    func bindStatic(_ index: Int32, _ text: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        let rc = text.withMemoryRebound(to: CChar.self) { chars in
            // An empty buffer may have no address, and SQLite reads a null pointer as NULL.
            guard let base = chars.baseAddress else { return sqlite3_bind_text(stmt, index, "", 0, Self.transient) }
            return sqlite3_bind_text(stmt, index, base, Int32(clamping: chars.count), nil)  // nil: SQLITE_STATIC
        }
        try check(rc, "binding text ?\(index)")
    }

    func bind(_ index: Int32, _ value: Int64?) throws(SQLiteError) {
        guard let value else { return try bindNull(index) }
        try check(sqlite3_bind_int64(stmt, index, value), "binding integer ?\(index)")
    }

    func bind(_ index: Int32, _ value: Int) throws(SQLiteError) {
        try bind(index, Int64(value))
    }

    func bindNull(_ index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(stmt, index), "binding null ?\(index)")
    }

    /// Advances one row: true when a row is ready to read, false when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(stmt)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError.from(connection.handle, code: rc, context: "running \(sql)")
        }
    }

    /// Steps until done, for statements that return no rows; then resets for reuse.
    func run() throws(SQLiteError) {
        defer { reset() }
        while try step() {}
    }

    /// Makes the statement ready to run again with fresh bindings.
    func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(stmt, column) == SQLITE_NULL
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(stmt, column)
    }

    func text(_ column: Int32) -> String? {
        guard let raw = sqlite3_column_text(stmt, column) else { return nil }
        let count = Int(sqlite3_column_bytes(stmt, column))
        return String(decoding: UnsafeBufferPointer(start: raw, count: count), as: UTF8.self)
    }
}
