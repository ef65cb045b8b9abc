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
        // 1: the first layout. Rows keep insertion order through `rowid`; an upsert keeps its rowid.
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        );
        CREATE TABLE projects (
            key        TEXT NOT NULL UNIQUE,
            attributes TEXT NOT NULL
        );
        CREATE TABLE rules (
            project TEXT NOT NULL,
            id      TEXT NOT NULL,
            body    TEXT NOT NULL,
            UNIQUE (project, id)
        );
        CREATE TABLE changes (
            project TEXT NOT NULL,
            id      INTEGER NOT NULL,
            body    TEXT NOT NULL,
            UNIQUE (project, id)
        );
        CREATE TABLE push_tokens (
            project TEXT NOT NULL,
            token   TEXT NOT NULL,
            body    TEXT NOT NULL,
            UNIQUE (project, token)
        );
        CREATE TABLE pushes (
            project TEXT NOT NULL,
            id      INTEGER NOT NULL,
            body    TEXT NOT NULL,
            UNIQUE (project, id)
        );
        CREATE TABLE ingest (
            project TEXT NOT NULL,
            module  TEXT NOT NULL,
            count   INTEGER NOT NULL,
            UNIQUE (project, module)
        );
        """,
    ]

    /// The SQLite file header's magic string, "SQLite format 3" and a NUL.
    static let magic: [UInt8] = Array("SQLite format 3".utf8) + [0]
}
