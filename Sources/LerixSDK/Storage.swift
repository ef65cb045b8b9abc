/// Where the SDK keeps its saved answer between launches: the seam to the device's disk.
///
/// ``FileStorage`` writes files in a folder atomically; ``InMemoryStorage`` is its test twin.
public protocol Storage: Sendable {
    /// The bytes saved under `key`, or nil when there are none.
    func load(_ key: String) -> [UInt8]?
    /// Replaces the bytes under `key` all at once: a crash leaves the old bytes or the new ones.
    func save(_ key: String, _ bytes: [UInt8]) throws(StorageError)
}

/// Why saving failed, with the path and the system's reason.
public struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What failed, with the path and the system's reason.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
