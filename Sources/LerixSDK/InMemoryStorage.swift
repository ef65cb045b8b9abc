import Synchronization

/// The in-memory twin of ``Storage``. Share one instance across two SDK instances to model a
/// process restart with the same disk.
///
/// ```swift
/// let disk = InMemoryStorage()
/// let first = Lerix(configuration: config, clock: clock, transport: net, storage: disk)
/// first.shutdown()                  // the process ends; the disk stays
/// let second = Lerix(configuration: config, clock: clock, transport: net, storage: disk)
/// ```
public final class InMemoryStorage: Storage {
    private let files = Mutex<[String: [UInt8]]>([:])

    /// Empty storage.
    public init() {}

    /// The bytes saved under `key`.
    public func load(_ key: String) -> [UInt8]? { files.withLock { $0[key] } }

    /// Replaces the bytes under `key`; never fails.
    public func save(_ key: String, _ bytes: [UInt8]) throws(StorageError) {
        files.withLock { $0[key] = bytes }
    }

    /// How many keys hold bytes.
    public var count: Int { files.withLock { $0.count } }
}
