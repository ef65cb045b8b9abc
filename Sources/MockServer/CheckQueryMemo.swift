import HTTP
import Synchronization

/// Check queries already read, by raw request target: a fleet's checks repeat a few targets
/// (one per device class and build), and reading one (the query's five parameters, the device
/// key and its hash) cost more than the rest of a cached answer. A target reads the same every
/// time, so a hit is exact. Bounded: when full it starts over, like the answer cache.
///
/// ```swift
/// let memo = CheckQueryMemo(capacity: 1000)
/// let read = memo.read(request)     // parsed once per distinct target
/// read.query.platform               // "ios"
/// ```
final class CheckQueryMemo: Sendable {
    /// A query as read, and the device it names (or the 422 it earns).
    struct Read: Sendable {
        let query: CheckQuery
        let device: Result<CheckQuery.Key, Problem>
    }

    private let capacity: Int
    private let reads = Mutex<[String: Read]>([:])

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func read(_ request: HTTPRequest) -> Read {
        let target = request.target
        if let known = reads.withLock({ $0[target] }) { return known }
        let query = CheckQuery(request)
        let read = Read(query: query, device: MockServer.deviceKey(query))
        reads.withLock { reads in
            if reads.count >= capacity { reads.removeAll(keepingCapacity: true) }
            reads[target] = read
        }
        return read
    }
}
