/// The state file's layout: its application id, its schema version, and the migrations that take
/// an older file to the current version.
///
/// Both numbers live in the SQLite header (`PRAGMA application_id`, bytes 68…71, and
/// `PRAGMA user_version`, bytes 60…63), so a file that is not ours is recognised from its first
/// 100 bytes, before SQLite ever opens it for writing.
enum StateSchema {
    /// "LRXM": marks a file as a lerix-mock state file.
    static let applicationID: UInt32 = 0x4C52_584D

    /// The schema this binary writes and understands. A file with a higher number is refused.
    static var currentVersion: Int { migrations.count }

    /// `migrations[i]` takes a file from version `i` to `i + 1`. Append only; never edit a shipped step.
    static let migrations: [String] = [
        // 1: the first layout. Each table is keyed by what the admin API addresses it with and
        // stored WITHOUT ROWID, so a write touches one b-tree, not a table and its index; `seq`
        // (one counter across tables) keeps the order items were first written.
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE projects (
            key        TEXT PRIMARY KEY NOT NULL,
            seq        INTEGER NOT NULL,
            attributes TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE rules (
            project TEXT NOT NULL,
            id      TEXT NOT NULL,
            seq     INTEGER NOT NULL,
            body    TEXT NOT NULL,
            PRIMARY KEY (project, id)
        ) WITHOUT ROWID;
        CREATE TABLE changes (
            project TEXT NOT NULL,
            id      INTEGER NOT NULL,
            seq     INTEGER NOT NULL,
            body    TEXT NOT NULL,
            PRIMARY KEY (project, id)
        ) WITHOUT ROWID;
        CREATE TABLE push_tokens (
            project TEXT NOT NULL,
            token   TEXT NOT NULL,
            seq     INTEGER NOT NULL,
            body    TEXT NOT NULL,
            PRIMARY KEY (project, token)
        ) WITHOUT ROWID;
        CREATE TABLE pushes (
            project TEXT NOT NULL,
            id      INTEGER NOT NULL,
            seq     INTEGER NOT NULL,
            body    TEXT NOT NULL,
            PRIMARY KEY (project, id)
        ) WITHOUT ROWID;
        CREATE TABLE ingest (
            project TEXT NOT NULL,
            module  TEXT NOT NULL,
            seq     INTEGER NOT NULL,
            count   INTEGER NOT NULL,
            PRIMARY KEY (project, module)
        ) WITHOUT ROWID;
        """,
        // 2: push-token registrations and removals are appended to token_log, keyed by seq, so a
        // commit writes at the b-tree's right edge instead of leaves all over push_tokens (keys
        // scatter), and folded into push_tokens when the file is opened or the log has grown
        // (StateDatabase.foldTokenLog). A NULL body marks a removal.
        """
        CREATE TABLE token_log (
            seq     INTEGER PRIMARY KEY,
            project TEXT NOT NULL,
            token   TEXT NOT NULL,
            body    TEXT
        );
        """,
        // 3: one token_log row per commit group instead of one per registration: `entries` is a
        // JSON array of the group's registrations and removals in order, each
        // {"project", "token", "seq", "record"} with a null record for a removal. SQLite's cost
        // per row (a b-tree cell, a log frame) is then shared by the group. A version-2 log
        // becomes one row per old row, in order.
        """
        ALTER TABLE token_log RENAME TO token_log_version_2;
        CREATE TABLE token_log (
            seq     INTEGER PRIMARY KEY,
            entries TEXT NOT NULL
        );
        INSERT INTO token_log (seq, entries)
            SELECT seq, json_array(json_object('project', project, 'token', token, 'seq', seq, 'record', json(body)))
            FROM token_log_version_2 ORDER BY seq;
        DROP TABLE token_log_version_2;
        """,
    ]

    /// The SQLite file header's magic string, "SQLite format 3" and a NUL.
    static let magic: [UInt8] = Array("SQLite format 3".utf8) + [0]
}
