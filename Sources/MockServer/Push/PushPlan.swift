import Clock
import ReleaseControl

/// What one write does to a project's pushes: the throttle's next state, the push records it
/// creates, and the timer it wants. Built under the writer lock, applied once stored.
struct PushPlan: Sendable {
    var throttle: PushThrottle
    var records: [PushRecord] = []
    var wakeAt: Instant?
    private var nextId: Int
    private let tokens: [String: (token: StateSnapshot.Token, sequence: Int)]
    /// The project's targets in registration order (the runtime's, or sorted here once).
    private(set) var cachedTargets: [PushTarget]?

    init(runtime: ProjectRuntime) {
        throttle = runtime.throttle
        nextId = runtime.nextPushId
        tokens = runtime.tokens
        cachedTargets = runtime.pushTargets
    }

    mutating func handle(_ actions: [PushThrottle.Action], now: Instant) {
        for action in actions {
            switch action {
            case .sendNow(let changeIds):
                // Changes stop two ids short (``MockServer/changeRules``); never store an id
                // that would not read back.
                guard nextId <= Identifier.maximumNumber else { continue }
                if cachedTargets == nil {
                    cachedTargets = tokens.values.sorted { $0.sequence < $1.sequence }
                        .map { PushTarget(token: $0.token.token, platform: $0.token.platform) }
                }
                records.append(PushRecord(id: nextId, sentAt: now, changes: changeIds, targets: cachedTargets ?? []))
                nextId += 1
            case .wakeAt(let instant):
                wakeAt = instant
            }
        }
    }

    /// The pushes to hand to the sink, tagged with the state generation they belong to.
    func outgoing(project: ProjectState, generation: UInt64) -> PushBatch {
        PushBatch(
            generation: generation,
            pushes: records.map { record in
                OutgoingPush(
                    id: record.id,
                    project: project.key,
                    apnsTopic: project.apnsTopic,
                    fcmProject: project.fcmProject,
                    tokens: record.targets
                )
            }
        )
    }

    /// Installs the throttle and records, and (re)arms the timer on the server's scheduler.
    func apply(to s: inout ServerState, key: String, server: MockServer) {
        _ = s.updateProject(key) { project in
            project.throttle = throttle
            project.pushes.append(contentsOf: records)
            // Tokens cannot change between planning and here (both under the writer lock).
            if let cachedTargets, project.pushTargets == nil { project.pushTargets = cachedTargets }
            if let wakeAt {
                project.timer?.cancel()
                project.timer = server.clock.schedule(at: wakeAt) { [weak server] in
                    server?.pushTimerFired(project: key)
                }
            }
        }
    }
}

/// Pushes to hand to the sink once the writer lock is released.
struct PushBatch: Sendable {
    var generation: UInt64
    var pushes: [OutgoingPush]

    static let none = PushBatch(generation: 0, pushes: [])
}
