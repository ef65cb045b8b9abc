import CSQLite
import JSON
import POSIX

extension StateDatabase {
    /// Opens the state file at `path`, creating it from `seed` when there is none (or it is empty),
    /// and checks it is ours, whole, and not newer than this binary. Every refusal happens before
    /// anything is written to the file.
    ///
    /// Connection settings, made here once:
    /// - `journal_mode=WAL` with `synchronous` from `durability`: see ``StateDurability`` for why
    ///   NORMAL is the default. A new file is built in rollback-journal mode with FULL (it is
    ///   renamed into place only once it is whole) and switched to WAL when first opened.
    /// - `wal_autocheckpoint=4000`, `cache_size=32 MB`: throughput settings, explained inline. When
    ///   commits do not sync (``StateDurability/processCrash``), SQLite's own checkpoints are off
    ///   and ``GroupCommitter`` runs them in the background instead, every 4,000 frames.
    /// - `locking_mode=EXCLUSIVE`: the server holds the file for its lifetime, so a second
    ///   `serve --state` on the same file is refused rather than silently forking the state; it
    ///   also keeps the WAL index in memory, so no `-shm` file is needed.
    static func open(
        path: String,
        seed: StoredState,
        durability: StateDurability,
        validate: (StoredState) throws(StateFileError) -> Void = { _ throws(StateFileError) in }
    ) throws(StateFileError) -> (database: StateDatabase, created: Bool) {
        var created = false
        let head: [UInt8]?
        do {
            head = try prefix(of: path, count: 100)
        } catch {
            throw .cannotOpen(path: path, detail: error.description)
        }
        switch head {
        case nil:
            try create(path: path, seed: seed)
            created = true
        case let bytes?:
            switch StateFileHeader.inspect(bytes) {
            case .empty:
                try create(path: path, seed: seed)
                created = true
            case .notSQLite:
                throw .notADatabase(path: path)
            case .sqlite(let applicationID, _) where applicationID != StateSchema.applicationID:
                throw .foreign(path: path, applicationID: applicationID)
            case .sqlite(_, let version) where version > StateSchema.currentVersion:
                throw .newerSchema(path: path, found: version, supported: StateSchema.currentVersion)
            case .sqlite(_, let version) where version == StateSchema.currentVersion:
                // Opening for writing switches the log mode, folds the token log and checkpoints:
                // it writes the header (bytes 24-27, the change counter, and 92-95). A file whose
                // rows do not read back must be refused before that, so it is read first, read-only.
                try inspectReadOnly(path: path, validate: validate)
            case .sqlite:
                break  // an older schema is migrated forward on open; its rows read back after
            }
        }
        return (try openExisting(path: path, durability: durability), created)
    }

    /// The file's first `count` bytes, or nil when there is no file at `path`.
    private static func prefix(of path: String, count: Int) throws(SystemCallError) -> [UInt8]? {
        do {
            return try Posix.readPrefix(path, count: count)
        } catch {
            if error.isMissing { return nil }
            throw error
        }
    }

    /// Builds a complete file beside `path` and renames it into place, so a crash while creating
    /// leaves either no state file or a whole one (schema and seed), never half of one.
    private static func create(path: String, seed: StoredState) throws(StateFileError) {
        // Named for this process, so two servers started at once on a new path never build
        // into the same temporary file (the loser of the rename then finds the file in use).
        let temporary = path + ".creating-\(Posix.processID)"
        for leftover in [temporary, temporary + "-journal"] where !Posix.remove(leftover) {
            throw .cannotOpen(path: path, detail: "cannot remove the leftover \(leftover)")
        }
        do {
            let connection = try SQLiteConnection(
                path: temporary,
                flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
            )
            try connection.execute("PRAGMA synchronous = FULL")
            let database = StateDatabase(connection: connection)
            try database.transaction(
                { () throws(SQLiteError) in
                    try connection.execute("PRAGMA application_id = \(Int32(bitPattern: StateSchema.applicationID))")
                    try database.migrate(from: 0)
                    try database.apply(.replaced(seed))
                },
                context: "creating the state file"
            )
        } catch {
            Posix.remove(temporary)
            throw .cannotOpen(path: path, detail: error.description)
        }
        do {
            try Posix.moveIntoPlace(temporary, to: path)
        } catch {
            Posix.remove(temporary)
            throw .cannotOpen(path: path, detail: error.description)
        }
    }

    /// Log frames between checkpoints (16 MB of log with 4 KB pages).
    static let logFramesPerCheckpoint = 4000

    private static func openExisting(path: String, durability: StateDurability) throws(StateFileError) -> StateDatabase
    {
        var connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE)
            // A writable file in a folder it may not write is served read-only too: the write-ahead
            // log (FILE-wal) could not be created beside it, so writing would fail at start.
            if connection.isReadOnly || !Posix.canCreateFiles(beside: path) {
                connection = try openReadOnly(path: path)
            }
        } catch {
            throw classify(error, path: path)
        }
        do {
            sqlite3_busy_timeout(connection.handle, 1000)
            if !connection.isReadOnly {
                try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            }
            let applicationID = UInt32(truncatingIfNeeded: try connection.pragmaInteger("application_id"))
            guard applicationID == StateSchema.applicationID else {
                throw StateFileError.foreign(path: path, applicationID: applicationID)
            }
            let version = Int(try connection.pragmaInteger("user_version"))
            guard version <= StateSchema.currentVersion else {
                throw StateFileError.newerSchema(path: path, found: version, supported: StateSchema.currentVersion)
            }
            let problems = try connection.pragmaTexts("quick_check")
            guard problems == ["ok"] else {
                let detail = problems.prefix(3).joined(separator: "; ")
                throw StateFileError.corrupt(path: path, detail: "integrity check: \(detail)")
            }
            let database = StateDatabase(connection: connection)
            if !connection.isReadOnly {
                try connection.execute("PRAGMA journal_mode = WAL")
                try connection.execute(durability.pragma)
                // A checkpoint copies the WAL into the file and syncs twice while writers wait;
                // every 4,000 pages (16 MB of log) instead of SQLite's 1,000 costs a few percent of
                // write throughput instead of about a third, for a rarer, longer pause.
                try connection.execute("PRAGMA wal_autocheckpoint = \(logFramesPerCheckpoint)")
                // 32 MB of page cache keeps the tables of a busy mock in memory between commits.
                try connection.execute("PRAGMA cache_size = -32768")
                // Takes the exclusive lock now, so a second server fails at start, not at its first write.
                try connection.transaction(
                    { () throws(SQLiteError) in
                        if version < StateSchema.currentVersion { try database.migrate(from: version) }
                        try database.foldTokenLog()
                    },
                    context: "locking the state file"
                )
                if !durability.syncsEachCommit {
                    // Commits then run on server loops, which must never sync: the committer
                    // checkpoints in the background, and the log starts over here, not in a
                    // request's commit (whose first frame would sync the log's header).
                    connection.takeOverCheckpoints()
                    try database.checkpointAndRestartLog()
                }
            }
            return database
        } catch {
            throw openingError(error, path: path)
        }
    }

    /// Reads the whole file without writing a byte and hands its state to `validate`: every
    /// refusal a read-write open would make, made before anything is written.
    private static func inspectReadOnly(
        path: String,
        validate: (StoredState) throws(StateFileError) -> Void
    ) throws(StateFileError) {
        let state: StoredState
        do {
            let connection = try openReadOnly(path: path)
            sqlite3_busy_timeout(connection.handle, 1000)
            let applicationID = UInt32(truncatingIfNeeded: try connection.pragmaInteger("application_id"))
            guard applicationID == StateSchema.applicationID else {
                throw StateFileError.foreign(path: path, applicationID: applicationID)
            }
            let problems = try connection.pragmaTexts("quick_check")
            guard problems == ["ok"] else {
                let detail = problems.prefix(3).joined(separator: "; ")
                throw StateFileError.corrupt(path: path, detail: "integrity check: \(detail)")
            }
            state = try StateDatabase(connection: connection).load()
        } catch {
            throw openingError(error, path: path)
        }
        try validate(state)
    }

    /// A file we may not write (read-only file or directory): served from what it holds, every
    /// write refused. Without a log beside it the file is opened immutable, which needs no lock
    /// and no `-shm` file (neither can be had on a read-only file or directory); with one (the
    /// last server did not stop cleanly), SQLite must read the log, which works when the
    /// directory lets it create the `-shm` index.
    private static func openReadOnly(path: String) throws(SQLiteError) -> SQLiteConnection {
        // No log, or an empty one: nothing for SQLite to read but the file (a log that cannot
        // be read is left to SQLite).
        let noLog: Bool
        do {
            noLog = try prefix(of: path + "-wal", count: 1)?.isEmpty ?? true
        } catch {
            noLog = false
        }
        if noLog {
            return try SQLiteConnection(
                path: path,
                uri: SQLiteConnection.uri(forPath: path, parameters: "immutable=1"),
                flags: SQLITE_OPEN_READONLY
            )
        }
        return try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
    }

    /// What a failure while opening or inspecting `path` means: a StateFileError as it is,
    /// SQLite's classified, anything else a file that cannot be opened.
    private static func openingError(_ error: any Error, path: String) -> StateFileError {
        switch error {
        case let error as StateFileError: return error
        case let error as SQLiteError: return classify(error, path: path)
        default: return .cannotOpen(path: path, detail: "\(error)")
        }
    }

    private static func classify(_ error: SQLiteError, path: String) -> StateFileError {
        if error.isNotADatabase { return .notADatabase(path: path) }
        if error.isCorrupt { return .corrupt(path: path, detail: error.message) }
        if error.isBusy { return .inUse(path: path) }
        return .cannotOpen(path: path, detail: error.description)
    }

    /// Runs the migrations from `version` to the current one, inside the caller's transaction.
    func migrate(from version: Int) throws(SQLiteError) {
        for step in version..<StateSchema.currentVersion {
            try connection.execute(StateSchema.migrations[step], context: "migrating the schema to version \(step + 1)")
        }
        try connection.execute("PRAGMA user_version = \(StateSchema.currentVersion)")
    }
}
