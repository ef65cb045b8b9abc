/// What the first 100 bytes of a file say about it, read before SQLite is allowed near the file,
/// so that a file that is not ours is refused without a single byte of it (or a journal beside
/// it) being written.
enum StateFileHeader: Equatable {
    /// No bytes at all: SQLite treats an empty file as an empty database, and so do we.
    case empty
    /// Not an SQLite database.
    case notSQLite
    /// An SQLite database with this application id and schema version.
    case sqlite(applicationID: UInt32, userVersion: Int)

    /// Reads the header fields out of a file's first bytes (fewer than 100 only when the file is shorter).
    static func inspect(_ bytes: [UInt8]) -> StateFileHeader {
        if bytes.isEmpty { return .empty }
        guard bytes.count >= 100, Array(bytes[0..<16]) == StateSchema.magic else { return .notSQLite }
        return .sqlite(applicationID: bigEndian(bytes, at: 68), userVersion: Int(bigEndian(bytes, at: 60)))
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
