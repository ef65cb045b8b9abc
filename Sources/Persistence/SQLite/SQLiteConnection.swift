import CSQLite

/// One open SQLite database handle: open with explicit flags, run SQL, prepare statements.
///
/// Not thread-safe by itself: its owner lets one thread at a time use it (the opening thread, then
/// whoever holds the `GroupCommitter`'s lock). Opened with `SQLITE_OPEN_NOMUTEX` for that reason.
///
/// ```swift
/// let db = try SQLiteConnection(path: "/tmp/x.db", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
/// try db.execute("CREATE TABLE t (a TEXT)")
/// let insert = try db.prepare("INSERT INTO t (a) VALUES (?1)")
/// try insert.bind(1, "hello"); try insert.run()
/// ```
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String

    /// `SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE`, for callers that do not import CSQLite.
    static let readWriteCreate = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE

    /// Opens `path` with `flags` (`SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE` and friends).
    /// `uri`, when given, is what SQLite opens (`file:…?immutable=1`); `path` still names the
    /// file in messages.
    init(path: String, uri: String? = nil, flags: Int32) throws(SQLiteError) {
        _ = Self.configured
        var db: OpaquePointer?
        let target = uri ?? path
        let uriFlag: Int32 = uri == nil ? 0 : SQLITE_OPEN_URI
        let rc = sqlite3_open_v2(target, &db, flags | uriFlag | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError.from(db, code: rc, context: "opening \(path)")
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
    }

    /// SQLite's process-wide settings, made once before the first open (SQLite takes them only
    /// before it initializes): no memory statistics, which we never read and which cost a global
    /// mutex on every allocation (a few per commit).
    private static let configured: Int32 = lerix_sqlite3_disable_memory_statistics()

    /// `file:` URI for `path` with `parameters`, escaping what URIs reserve.
    static func uri(forPath path: String, parameters: String) -> String {
        var escaped = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x20, 0x7f...:
                let hex = Array("0123456789ABCDEF".utf8)
                escaped += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xf)]], as: UTF8.self)
            default:
                escaped += String(decoding: [byte], as: UTF8.self)
            }
        }
        return "file:" + escaped + "?" + parameters
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows we need.
    func execute(_ sql: String, context: String? = nil) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else {
            throw SQLiteError.from(handle, code: rc, context: context ?? "running \(sql)")
        }
    }

    /// Compiles one statement; `persistent` hints SQLite that it will be reused many times.
    func prepare(_ sql: String, persistent: Bool = false) throws(SQLiteError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sqlite3_prepare_v3(handle, sql, -1, flags, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteError.from(handle, code: rc, context: "preparing \(sql)")
        }
        return SQLiteStatement(stmt, connection: self, sql: sql)
    }

    /// The single integer a pragma such as `user_version` answers.
    func pragmaInteger(_ name: String) throws(SQLiteError) -> Int64 {
        let stmt = try prepare("PRAGMA \(name)")
        guard try stmt.step() else { return 0 }
        return stmt.int64(0)
    }

    /// The text rows a pragma such as `quick_check` answers.
    func pragmaTexts(_ pragma: String) throws(SQLiteError) -> [String] {
        let stmt = try prepare("PRAGMA \(pragma)")
        var rows: [String] = []
        while try stmt.step() {
            rows.append(stmt.text(0) ?? "")
        }
        return rows
    }

    /// True when SQLite opened (or fell back to opening) the main database read-only.
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// True while a transaction is open (not autocommit).
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Frames in the write-ahead log after the last commit, kept by SQLite's WAL hook once
    /// ``takeOverCheckpoints()`` installed it.
    private final class LogFrames {
        var count = 0
    }

    private let logFrames = LogFrames()

    /// Frames in the write-ahead log after the last commit (0 until ``takeOverCheckpoints()``).
    var framesInLog: Int { logFrames.count }

    /// Turns SQLite's automatic checkpoints off: a commit never copies the log into the file (nor
    /// syncs) on its own; the owner watches ``framesInLog`` and calls ``checkpoint()`` when and
    /// where it chooses.
    func takeOverCheckpoints() {
        // The hook replaces the one wal_autocheckpoint installs.
        sqlite3_wal_hook(
            handle,
            { context, _, _, frames in
                if let context { Unmanaged<LogFrames>.fromOpaque(context).takeUnretainedValue().count = Int(frames) }
                return SQLITE_OK
            },
            Unmanaged.passUnretained(logFrames).toOpaque()
        )
    }

    /// Copies the write-ahead log into the file (PASSIVE: as far as no reader needs the log; with
    /// the exclusive lock that is all of it) and syncs both, so the next commit starts the log over.
    func checkpoint() throws(SQLiteError) {
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        guard rc == SQLITE_OK else {
            throw SQLiteError.from(handle, code: rc, context: "checkpointing the write-ahead log")
        }
    }

    /// `BEGIN IMMEDIATE` and `COMMIT`, compiled once: every acknowledged write runs both.
    private var begin: SQLiteStatement?
    private var commit: SQLiteStatement?

    private func cached(_ slot: inout SQLiteStatement?, _ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = slot { return statement }
        let statement = try prepare(sql, persistent: true)
        slot = statement
        return statement
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; rolls back when `body` or the commit throws.
    /// `context` (what the transaction is for) is only built when something fails.
    func transaction(_ body: () throws(SQLiteError) -> Void, context: @autoclosure () -> String) throws(SQLiteError) {
        do throws(SQLiteError) {
            let begin = try cached(&self.begin, "BEGIN IMMEDIATE")
            try begin.run()
            do throws(SQLiteError) {
                try body()
                let commit = try cached(&self.commit, "COMMIT")
                try commit.run()
            } catch {
                if inTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
                throw error
            }
        } catch {
            throw SQLiteError(code: error.code, message: error.message, context: "\(context()): \(error.context)")
        }
    }
}
