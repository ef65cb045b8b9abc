import HTTPClient

/// Which h2c connection carries which request: a state machine with no I/O.
///
/// The owner feeds it events (work submitted, a connection became ready with the peer's
/// `SETTINGS_MAX_CONCURRENT_STREAMS`, a stream closed, a connection failed) and performs the
/// actions it returns. It opens connections lazily, one at a time, up to `maxConnections`;
/// never puts more streams on a connection than the peer allows (nor more than our own
/// `maxStreamsPerConnection`); and when no connection can be had, fails what is queued so the
/// caller can record the reason instead of waiting forever.
///
/// ```swift
/// var pool = ConnectionPool(maxConnections: 2)
/// pool.submit(1)                                   // [.open(0)]
/// pool.connected(0, maxConcurrentStreams: 100)     // [.send(1, on: 0)]
/// pool.streamClosed(on: 0)                         // []
/// ```
public struct ConnectionPool: Sendable {
    public typealias ConnectionID = Int
    public typealias RequestID = Int

    public enum Action: Sendable, Equatable {
        case open(ConnectionID)
        case send(RequestID, on: ConnectionID)
        /// Requests that could not get a connection; the reason says why.
        case fail([RequestID], reason: String)
        /// A drained connection (after GOAWAY) to close.
        case close(ConnectionID)
    }

    enum Phase: Sendable, Equatable { case connecting, ready, draining }

    struct Connection: Sendable {
        let id: ConnectionID
        var phase: Phase
        var maxStreams: Int
        var inFlight: Int
    }

    public let maxConnections: Int
    public let maxStreamsPerConnection: Int
    /// In opening order, so the oldest ready one fills first. A handful at most: found by a
    /// scan, not a hash (a fan-out closes a stream per token).
    var connections: [Connection] = []
    var queue = FIFO<RequestID>()
    var nextConnection: ConnectionID = 0
    /// Set when a connect failed while other connections still serve: keep using those rather
    /// than hammering a refusing peer with new connects. Cleared when no connection is left.
    var growthBlocked = false
    /// The array the last dispatch returned, emptied and refilled by the next one: a fan-out
    /// dispatches once an answer and its caller is done with the array by then, so it is
    /// reused, not allocated (while a caller still holds it, copy-on-write makes a new one).
    /// Kept only while small: a first dispatch of thousands of sends is not held on to.
    var spareActions: [Action] = []

    public init(maxConnections: Int = 4, maxStreamsPerConnection: Int = 1000) {
        self.maxConnections = max(1, maxConnections)
        self.maxStreamsPerConnection = max(1, maxStreamsPerConnection)
    }

    /// Requests waiting for a stream.
    public var queuedCount: Int { queue.count }
    /// Streams open across connections.
    public var inFlightCount: Int { connections.reduce(0) { $0 + $1.inFlight } }
    public var connectionCount: Int { connections.count }

    /// Streams open on one connection (0 for unknown ones).
    public func inFlight(on id: ConnectionID) -> Int { index(of: id).map { connections[$0].inFlight } ?? 0 }

    public mutating func submit(_ request: RequestID) -> [Action] {
        queue.append(request)
        return dispatch()
    }

    public mutating func submit(_ requests: [RequestID]) -> [Action] {
        for r in requests { queue.append(r) }
        return dispatch()
    }

    /// The peer's SETTINGS arrived: the connection can carry streams.
    public mutating func connected(_ id: ConnectionID, maxConcurrentStreams: Int) -> [Action] {
        guard let i = index(of: id) else { return [] }
        connections[i].phase = .ready
        connections[i].maxStreams = clampStreams(maxConcurrentStreams)
        return dispatch()
    }

    /// The peer changed SETTINGS_MAX_CONCURRENT_STREAMS on a live connection.
    public mutating func settingsChanged(_ id: ConnectionID, maxConcurrentStreams: Int) -> [Action] {
        guard let i = index(of: id) else { return [] }
        connections[i].maxStreams = clampStreams(maxConcurrentStreams)
        return dispatch()
    }

    public mutating func streamClosed(on id: ConnectionID) -> [Action] {
        guard let i = index(of: id) else { return [] }
        connections[i].inFlight = max(0, connections[i].inFlight - 1)
        if connections[i].phase == .draining && connections[i].inFlight == 0 {
            connections.remove(at: i)
            return [.close(id)] + dispatch()
        }
        // Nothing waits: no action (the common case once a fan-out's last requests are out).
        if queue.isEmpty { return [] }
        return dispatch()
    }

    /// The peer sent GOAWAY: finish what is open, start nothing new there.
    public mutating func goingAway(_ id: ConnectionID) -> [Action] {
        guard let i = index(of: id) else { return [] }
        connections[i].phase = .draining
        if connections[i].inFlight == 0 {
            connections.remove(at: i)
            return [.close(id)] + dispatch()
        }
        return dispatch()
    }

    /// Connecting failed, or a live connection broke. The owner fails that connection's open
    /// streams itself; queued work fails here when no other connection is left to carry it.
    public mutating func connectionLost(_ id: ConnectionID, reason: String) -> [Action] {
        guard let i = index(of: id) else { return [] }
        let lost = connections.remove(at: i)
        let others = connections.contains { $0.phase != .draining }
        if lost.phase == .connecting {
            if others {
                growthBlocked = true
            } else {
                growthBlocked = false
                return queue.isEmpty ? [] : [.fail(queue.removeAll(), reason: reason)]
            }
        } else if !others {
            growthBlocked = false
        }
        return dispatch()
    }

    /// Takes a request out of the queue (its deadline passed while it waited); false when it
    /// was not queued (already sent).
    public mutating func cancelQueued(_ request: RequestID) -> Bool {
        queue.remove(request)
    }

    mutating func dispatch() -> [Action] {
        var actions: [Action] = []
        swap(&actions, &spareActions)
        actions.removeAll(keepingCapacity: true)
        defer { spareActions = actions.capacity <= 64 ? actions : [] }
        for i in connections.indices where !queue.isEmpty {
            guard connections[i].phase == .ready else { continue }
            let id = connections[i].id
            while connections[i].inFlight < connections[i].maxStreams, let request = queue.popFirst() {
                connections[i].inFlight += 1
                actions.append(.send(request, on: id))
            }
        }
        if !queue.isEmpty, !growthBlocked, connections.count < maxConnections,
            !connections.contains(where: { $0.phase == .connecting })
        {
            let id = nextConnection
            nextConnection += 1
            connections.append(Connection(id: id, phase: .connecting, maxStreams: 0, inFlight: 0))
            actions.append(.open(id))
        }
        return actions
    }

    func index(of id: ConnectionID) -> Int? { connections.firstIndex { $0.id == id } }

    func clampStreams(_ n: Int) -> Int { min(max(0, n), maxStreamsPerConnection) }
}
