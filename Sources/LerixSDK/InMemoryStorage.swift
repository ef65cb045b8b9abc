import Synchronization

/// The in-memory twin of ``Storage``. Share one instance across two SDK instances to model a
/// process restart with the same disk.
///
/// ```swift
/// let disk = InMemoryStorage()
/// let first = Lerix(configuration: config, scheduler: clock, transport: net, storage: disk)
/// ```
public final class InMemoryStorage: Storage {
    private let files = Mutex<[String: [UInt8]]>([:])

    public init() {}

    public func load(_ key: String) -> [UInt8]? { files.withLock { $0[key] } }

    public func save(_ key: String, _ bytes: [UInt8]) throws(StorageError) {
        files.withLock { $0[key] = bytes }
    }

    /// How many keys hold bytes.
    public var count: Int { files.withLock { $0.count } }
}
