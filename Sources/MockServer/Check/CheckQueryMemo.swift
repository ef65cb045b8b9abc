import Clock
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
    /// A query as read, and the device it names (or the 422 it earns). A class: every check
    /// takes it out of the memo's lock, and a reference is one retain where the query's and the
    /// key's strings were a dozen.
    final class Read: Sendable {
        let query: CheckQuery
        let device: Result<CheckQuery.Key, Problem>
        /// The query's device fields as every journal entry of this target shares them.
        let journalDevice: RequestJournal.Entry.Device

        init(query: CheckQuery, device: Result<CheckQuery.Key, Problem>) {
            self.query = query
            self.device = device
            journalDevice = query.journalDevice
        }

        /// The journal's line for this check.
        /// The journal's line for `answer` served to this query, a 304 when `notModified`.
        func entry(
            at: Instant,
            project: String,
            answered answer: ServedAnswer,
            notModified: Bool,
            fault: String?
        ) -> RequestJournal.Entry {
            entry(
                at: at,
                project: project,
                status: notModified ? 304 : 200,
                etag: answer.etag,
                lifetime: answer.lifetime,
                fault: fault
            )
        }

        func entry(
            at: Instant,
            project: String,
            status: Int,
            etag: String? = nil,
            lifetime: Int? = nil,
            fault: String? = nil
        ) -> RequestJournal.Entry {
            RequestJournal.Entry(
                at: at,
                project: project,
                device: journalDevice,
                status: status,
                etag: etag,
                lifetime: lifetime,
                fault: fault
            )
        }
    }

    private struct Reads {
        var byTarget: [String: Read] = [:]
        /// The last target read: checks come in runs of one device class (a fleet's devices in
        /// creation order), and comparing a target costs less than hashing it.
        var last: Last?
    }

    /// A struct, not a tuple: Swift copies tuples through a generic path, and this is read per check.
    private struct Last {
        let target: String
        let read: Read
    }

    private let capacity: Int
    private let reads = Mutex(Reads())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func read(_ request: HTTPRequest) -> Read {
        let target = request.target
        let known = reads.withLock { reads -> Read? in
            if let last = reads.last, last.target == target { return last.read }
            guard let read = reads.byTarget[target] else { return nil }
            reads.last = Last(target: target, read: read)
            return read
        }
        if let known { return known }
        let query = CheckQuery(request)
        let read = Read(query: query, device: MockServer.deviceKey(query))
        reads.withLock { reads in
            if reads.byTarget.count >= capacity { reads.byTarget.removeAll(keepingCapacity: true) }
            reads.byTarget[target] = read
            reads.last = Last(target: target, read: read)
        }
        return read
    }
}
