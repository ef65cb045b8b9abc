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
        /// The query's device fields, one value shared by every check of a request target: a
        /// fleet's journal holds 200,000 entries, and five optional strings each made an entry
        /// 160 bytes where this reference makes it 88.
        var device: Device
        /// The status answered; 0 when a reset fault closed the connection.
        public var status: Int
        public var etag: String?
        public var lifetime: Int?
        public var fault: String?

        init(
            at: Instant,
            project: String,
            device: Device,
            status: Int,
            etag: String? = nil,
            lifetime: Int? = nil,
            fault: String? = nil
        ) {
            self.at = at
            self.project = project
            self.device = device
            self.status = status
            self.etag = etag
            self.lifetime = lifetime
            self.fault = fault
        }

        public var platform: String? {
            get { device.platform }
            set { device = device.with { $0.platform = newValue } }
        }
        public var version: String? {
            get { device.version }
            set { device = device.with { $0.version = newValue } }
        }
        public var build: String? {
            get { device.build }
            set { device = device.with { $0.build = newValue } }
        }
        public var sdk: String? {
            get { device.sdk }
            set { device = device.with { $0.sdk = newValue } }
        }
        public var sdkVersion: String? {
            get { device.sdkVersion }
            set { device = device.with { $0.sdkVersion = newValue } }
        }

        /// The device fields of a check's query, immutable and shared between entries.
        final class Device: Sendable, Equatable {
            struct Fields: Equatable {
                var platform: String?
                var version: String?
                var build: String?
                var sdk: String?
                var sdkVersion: String?
            }

            let fields: Fields
            var platform: String? { fields.platform }
            var version: String? { fields.version }
            var build: String? { fields.build }
            var sdk: String? { fields.sdk }
            var sdkVersion: String? { fields.sdkVersion }

            init(_ fields: Fields) { self.fields = fields }

            /// A new value with `change` made (entries stay values: no other entry sees it).
            func with(_ change: (inout Fields) -> Void) -> Device {
                var copy = fields
                change(&copy)
                return Device(copy)
            }

            static func == (lhs: Device, rhs: Device) -> Bool { lhs === rhs || lhs.fields == rhs.fields }
        }

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
    /// The project of the latest appends and how many of them are not yet in ``appendedByProject``:
    /// checks come in long runs of one project, and comparing its key costs less than hashing it.
    private var run: Run?

    /// A struct, not a tuple: tuples are copied through the runtime's generic path.
    private struct Run {
        let project: String
        var count: Int
    }

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring.reserveCapacity(min(self.capacity, 1024))
    }

    /// Takes `entry` over: a check builds its line once and moves it here (no copy).
    public mutating func append(_ entry: consuming Entry) {
        if run?.project == entry.project {
            run?.count += 1
        } else {
            if let current = run { appendedByProject[current.project, default: 0] += current.count }
            run = Run(project: entry.project, count: 1)
        }
        if ring.count < capacity {
            // The whole ring at once (pages are touched only as entries come): grown by doubling,
            // a fleet's 200,000-entry ring was copied a dozen times on its way up.
            if ring.capacity == 0 { ring.reserveCapacity(capacity) }
            ring.append(consume entry)
        } else {
            ring[next] = consume entry
        }
        next = next + 1 == capacity ? 0 : next + 1
    }

    public var count: Int { ring.count }

    /// How many checks of `project` were appended since the journal began, kept or not.
    public func appended(project: String) -> Int {
        (appendedByProject[project] ?? 0) + (run.map { $0.project == project ? $0.count : 0 } ?? 0)
    }

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
