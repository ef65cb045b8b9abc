import HTTP
import JSON
import Synchronization

/// The admin event stream's hub: what happens on the server (checks, changes, pushes, clock
/// moves…) goes out to every subscribed stream as Server-Sent Events.
///
/// Publishing costs one atomic load when nobody listens. Each subscriber's stream is bounded
/// (``ResponseStream``): a reader that falls behind is dropped, never buffered for, and a
/// subscriber whose connection ends is forgotten through the stream's end handler.
///
/// ```swift
/// let feed = EventFeed()
/// let stream = ResponseStream()
/// feed.subscribe(stream, filter: .init(project: "demo", kinds: nil))
/// feed.publish(.init(kind: "clock", project: nil, data: ["now": "2026-12-02T11:00:00.000Z"]))
/// ```
final class EventFeed: Sendable {
    /// One event: its SSE `event:` name, the project it concerns (nil: server-wide), its data.
    struct Event: Sendable {
        var kind: String
        var project: String?
        var data: JSON
    }

    /// Which events a subscriber wants.
    struct Filter: Sendable {
        /// Only this project's events (server-wide ones always pass).
        var project: String?
        /// Only these kinds; nil for all.
        var kinds: Set<String>?

        func admits(_ event: Event) -> Bool {
            if let kinds, !kinds.contains(event.kind) { return false }
            if let project, let other = event.project, other != project { return false }
            return true
        }
    }

    /// Every kind the feed publishes, for validating `?kinds=` and for the documentation.
    static let kinds = [
        "hello", "check", "rule", "change", "push", "token", "ingest", "fault", "project", "clock", "reset",
    ]

    private struct Subscriber {
        var stream: ResponseStream
        var filter: Filter
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextSubscriber = 0
        var nextEventId = 0
    }

    private let state = Mutex(State())
    private let count = Atomic<Int>(0)

    /// True while at least one stream listens: callers skip building events otherwise.
    var isWatched: Bool { count.load(ordering: .relaxed) > 0 }

    var subscriberCount: Int { count.load(ordering: .relaxed) }

    /// Adds `stream`; it is removed when it ends (client gone, dropped, server stopping).
    func subscribe(_ stream: ResponseStream, filter: Filter) {
        let id = state.withLock { s -> Int in
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = Subscriber(stream: stream, filter: filter)
            return s.nextSubscriber
        }
        count.add(1, ordering: .relaxed)
        stream.onEnd { [weak self] in self?.unsubscribe(id) }
    }

    private func unsubscribe(_ id: Int) {
        let removed = state.withLock { $0.subscribers.removeValue(forKey: id) != nil }
        if removed { count.subtract(1, ordering: .relaxed) }
    }

    /// Sends `event` to every subscriber that wants it. A stream that refuses the write (ended
    /// or too slow) is left to its end handler, which unsubscribes it.
    func publish(_ event: Event) {
        guard isWatched else { return }
        state.withLock { s in
            s.nextEventId += 1
            var bytes: [UInt8]?
            for subscriber in s.subscribers.values where subscriber.filter.admits(event) {
                if bytes == nil { bytes = Self.encode(event, id: s.nextEventId) }
                if let bytes { subscriber.stream.write(bytes) }
            }
        }
    }

    /// One event in the `text/event-stream` format: `id`, `event`, and the data as one line of
    /// JSON (JSON never needs a raw newline, so one `data:` field always suffices).
    static func encode(_ event: Event, id: Int?) -> [UInt8] {
        var out: [UInt8] = []
        if let id { out.append(contentsOf: Array("id: \(id)\n".utf8)) }
        out.append(contentsOf: Array("event: \(event.kind)\ndata: ".utf8))
        var data = event.data
        if let project = event.project, case .object(var object) = data, object["project"] == nil {
            object["project"] = .string(project)
            data = .object(object)
        }
        out.append(contentsOf: data.serialized())
        out.append(contentsOf: Array("\n\n".utf8))
        return out
    }

    /// A comment line: keeps proxies and the heartbeat's write check busy, ignored by readers.
    static let heartbeat: [UInt8] = Array(": keep-alive\n\n".utf8)
}
