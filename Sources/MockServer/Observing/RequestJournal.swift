import Clock
import JSON

/// The last checks, newest first, in a fixed-size ring so a busy server's memory stays flat.
///
/// ```swift
/// var journal = RequestJournal(capacity: 1000)
/// journal.append(entry)
/// journal.newest(limit: 10, project: "demo")
/// ```
public struct RequestJournal: Sendable {
    public struct Entry: Sendable, Equatable {
        public var at: Instant
        public var project: String
        public var platform: String?
        public var version: String?
        public var build: String?
        public var sdk: String?
        public var sdkVersion: String?
        /// The status answered; 0 when a reset fault closed the connection.
        public var status: Int
        public var etag: String?
        public var lifetime: Int?
        public var fault: String?

        public var json: JSON {
            func optional(_ s: String?) -> JSON { s.map(JSON.string) ?? .null }
            return .object([
                ("at", .string(at.rfc3339)),
                ("project", .string(project)),
                (
                    "device",
                    .object([
                        ("platform", optional(platform)), ("version", optional(version)),
                        ("build", optional(build)), ("sdk", optional(sdk)),
                        ("sdk_version", optional(sdkVersion)),
                    ])
                ),
                ("status", .number(Double(status))),
                ("etag", optional(etag)),
                ("lifetime", lifetime.map { .number(Double($0)) } ?? .null),
                ("fault", optional(fault)),
            ])
        }
    }

    public let capacity: Int
    private var ring: [Entry] = []
    private var next = 0
    /// Every entry appended since the journal began, by project, the ones the ring has dropped
    /// too: a count needs no listing (a fleet's 600,000 checks were read back as JSON to count them).
    private var appendedByProject: [String: Int] = [:]

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring.reserveCapacity(min(self.capacity, 1024))
    }

    public mutating func append(_ entry: Entry) {
        appendedByProject[entry.project, default: 0] += 1
        if ring.count < capacity {
            ring.append(entry)
        } else {
            ring[next] = entry
        }
        next = (next + 1) % capacity
    }

    public var count: Int { ring.count }

    /// How many checks of `project` were appended since the journal began, kept or not.
    public func appended(project: String) -> Int { appendedByProject[project] ?? 0 }

    /// `project`'s entries after the first `count` appended since the journal began, oldest
    /// first (those the ring has dropped are gone): a reader that keeps its count reads only
    /// what is new.
    public func appended(project: String, after count: Int) -> [Entry] {
        let new = appended(project: project) - count
        guard new > 0 else { return [] }
        return newest(limit: new, project: project).reversed()
    }

    /// Newest first, at most `limit`, only `project`'s when given.
    public func newest(limit: Int, project: String? = nil) -> [Entry] {
        var out: [Entry] = []
        var i = next
        for _ in 0..<ring.count {
            i = (i - 1 + ring.count) % ring.count
            let entry = ring[i]
            if let project, entry.project != project { continue }
            out.append(entry)
            if out.count >= limit { break }
        }
        return out
    }
}
