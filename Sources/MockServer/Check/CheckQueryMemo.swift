import Clock
import HTTP
import Synchronization

/// Check targets already read, by raw request target: a fleet's checks repeat a few targets
/// (one per device class and build), and reading one (the project in the path, the query's five
/// parameters, the device key and its hash) cost more than the rest of a cached answer. A
/// target reads the same every time, so a hit is exact. Bounded: when full it starts over, like
/// the answer cache.
///
/// ```swift
/// let memo = CheckQueryMemo(capacity: 1000)
/// let read = memo.check(request)    // nil when not a check; parsed once per distinct target
/// read?.project                     // "demo"
/// read?.query.platform              // "ios"
/// ```
final class CheckQueryMemo: Sendable {
    /// A query as read, and the device it names (or the 422 it earns). A class: every check
    /// takes it out of the memo's lock, and a reference is one retain where the query's and the
    /// key's strings were a dozen.
    final class Read: Sendable {
        /// The project in the target's path: one string shared by every check of the target,
        /// which the journal compares with the last check's by identity instead of bytes.
        let project: String
        let query: CheckQuery
        /// The device the query names; nil when it earns ``problem`` instead. Two fields, not
        /// a `Result`: the hot path reads the key in place, where a `Result` was copied out
        /// and destroyed through generic value witnesses.
        let key: CheckQuery.Key?
        /// The 422 the query earns (no or an unknown platform); nil when ``key`` is set.
        let problem: Problem?
        /// The query's device fields as every journal entry of this target shares them.
        let journalDevice: RequestJournal.Entry.Device

        init(project: String, query: CheckQuery, device: Result<CheckQuery.Key, Problem>) {
            self.project = project
            self.query = query
            switch device {
            case .success(let key):
                self.key = key
                problem = nil
            case .failure(let refusal):
                key = nil
                problem = refusal
            }
            journalDevice = query.journalDevice
        }

        /// ``query`` of `request`, read: the device key or the 422 it earns.
        convenience init(project: String, request: HTTPRequest) {
            let query = CheckQuery(request)
            self.init(project: project, query: query, device: MockServer.deviceKey(query))
        }

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

    /// The read of `request` when it is a check (`GET|HEAD /v1/projects/{project}/release-control`
    /// in the plain form ``Router/checkProject(_:)`` reads), else nil: a target read before
    /// costs one comparison (or one hash) and no parsing.
    func check(_ request: HTTPRequest) -> Read? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        let target = request.target
        let known = reads.withLock { reads -> Read? in
            if let last = reads.last, last.target == target { return last.read }
            guard let read = reads.byTarget[target] else { return nil }
            reads.last = Last(target: target, read: read)
            return read
        }
        if let known { return known }
        // Only checks are kept: the memo never fills up with other requests' targets.
        guard let project = Router.checkProject(request) else { return nil }
        let read = Read(project: project, request: request)
        reads.withLock { reads in
            if reads.byTarget.count >= capacity { reads.byTarget.removeAll(keepingCapacity: true) }
            reads.byTarget[target] = read
            reads.last = Last(target: target, read: read)
        }
        return read
    }
}
