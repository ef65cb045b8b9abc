/// Why an acknowledged-write could not be made durable. MockServer answers 503 problem+json
/// with `description` as the detail; reads keep working from memory.
public enum StateStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite refused the write: disk full, read-only file or directory, I/O error.
    case writeRefused(path: String, detail: String)
    /// Reading the file back failed (only `loadSnapshot()` after start can hit this).
    case readFailed(path: String, detail: String)
    /// The store was closed before the write could run.
    case closed(path: String)
    /// A pipelined write was planned on top of an earlier one the file refused, so it was not tried.
    case refusedEarlier(path: String)

    public var description: String {
        switch self {
        case .writeRefused(let path, let detail):
            return "the state file \(path) refused the write (\(detail)); nothing was saved"
        case .readFailed(let path, let detail):
            return "reading the state file \(path) failed (\(detail))"
        case .closed(let path):
            return "the state file \(path) is closed; nothing was saved"
        case .refusedEarlier(let path):
            return "the state file \(path) refused an earlier write this one builds on; nothing was saved"
        }
    }
}
