import CSQLite

/// A failed SQLite call: its result code and `sqlite3_errmsg`'s text, read at the moment it failed.
///
/// Carries what we were doing (`context`) so the message a user sees names the step, e.g.
/// `committing a batch of 12 writes: database or disk is full (SQLite code 13)`.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code.
    public var code: Int32
    /// SQLite's own text for the failure.
    public var message: String
    /// What we were doing when it failed.
    public var context: String

    public init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// The primary result code (the low byte of the extended one).
    public var primaryCode: Int32 { code & 0xff }

    public var description: String { "\(context): \(message) (SQLite code \(code))" }

    /// The file is not an SQLite database at all.
    public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB }
    /// The file is a damaged SQLite database.
    public var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT }
    /// Another process holds the file.
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// Builds the error from the connection's current error state.
    static func from(_ handle: OpaquePointer?, code: Int32, context: String) -> SQLiteError {
        let text: String
        if let handle, let raw = sqlite3_errmsg(handle) {
            text = String(cString: raw)
        } else if let raw = sqlite3_errstr(code) {
            text = String(cString: raw)
        } else {
            text = "unknown error"
        }
        return SQLiteError(code: code, message: text, context: context)
    }
}
