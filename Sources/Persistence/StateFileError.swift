/// Why a state file cannot be used at start. Each message names the file, says what is wrong
/// with it, that lerix-mock left it as it was, and what to do.
///
/// ```swift
/// do { store = try SQLiteStateStore.open(path: path) }
/// catch { print("lerix-mock: \(error)"); exit(1) }   // every case reads as a sentence
/// ```
public enum StateFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's bytes are not an SQLite database.
    case notADatabase(path: String)
    /// An SQLite database, but another program's (its application id is not ours).
    case foreign(path: String, applicationID: UInt32)
    /// Ours, but damaged (quick_check failed, or SQLite reported corruption while reading it).
    case corrupt(path: String, detail: String)
    /// Ours, written by a newer lerix-mock whose schema this binary does not know.
    case newerSchema(path: String, found: Int, supported: Int)
    /// Another process holds the file (SQLite's lock is taken).
    case inUse(path: String)
    /// The file or its directory cannot be opened or created at all.
    case cannotOpen(path: String, detail: String)

    public var description: String {
        switch self {
        case .notADatabase(let path):
            return "state file \(path) is not a lerix-mock state file (it is not an SQLite database); "
                + "it was left untouched. Pass a different --state path, or move the file away."
        case .foreign(let path, let id):
            let hex = "0x" + String(id, radix: 16)
            return "state file \(path) is an SQLite database of another program (application_id \(hex), "
                + "lerix-mock uses 0x" + String(StateSchema.applicationID, radix: 16) + "); "
                + "it was left untouched. Pass a different --state path."
        case .corrupt(let path, let detail):
            return "state file \(path) is damaged (\(detail)); it was left untouched. "
                + "Restore it from a copy, or move it away to start from the seed."
        case .newerSchema(let path, let found, let supported):
            return "state file \(path) has schema version \(found), written by a newer lerix-mock; "
                + "this one understands versions up to \(supported). It was left untouched. "
                + "Run a newer lerix-mock on it, or pass a different --state path."
        case .inUse(let path):
            return "state file \(path) is in use by another process (another lerix-mock serve?); "
                + "stop it first, or pass a different --state path."
        case .cannotOpen(let path, let detail):
            return "cannot open state file \(path): \(detail)"
        }
    }
}
