import AdapterProtocol
import AdminClient
import Clock
import JSON

extension ScenarioExecution {
    /// Moves true time to `target`, stopping at every device timer, server timer and push
    /// delivery on the way. At each stop: the server's clock first (due pushes go out), then
    /// the devices' clocks (due timers fire and check), then the pushes the gateway accepted
    /// meanwhile reach their devices. In process both clocks are one scheduler, so the adapter's
    /// `advance` moves them at once (server and device timers in one deadline order).
    func advance(to target: Instant) throws {
        while now < target {
            let stop = try nextStop(limit: target)
            try moveClocks(to: stop)
        }
    }

    /// The earliest instant in (now, limit] at which something happens, or `limit`: a device
    /// timer (the adapter's `next_deadline`), a server timer (the server's `next_deadline`, a
    /// combined push) or a push due at a device.
    func nextStop(limit: Instant) throws -> Instant {
        var next = limit
        let answer = try adapter.command(.nextDeadline)
        if let text = answer[AdapterCommand.nextDeadline.rawValue]?.stringValue {
            guard let d = Instant(rfc3339: text) else {
                throw AdapterFailure("next_deadline is not an RFC 3339 time: \(text)")
            }
            if d > now, d < next { next = d }
            if d <= now {
                // A timer the adapter left due: run it at once rather than loop forever.
                next = now.adding(milliseconds: 1) < next ? now.adding(milliseconds: 1) : next
            }
        }
        if let first = pendingDeliveries.first?.at, first > now, first < next { next = first }
        if let serverNext = serverClock?.nextDeadline, serverNext > now, serverNext < next { next = serverNext }
        return next
    }

    func moveClocks(to t: Instant) throws {
        if !world.serverTimeFollowsAdapter { try setServerClock(t) }
        now = t
        _ = try adapter.command(.advance(to: t))
        try settle()
    }

    /// After a step or a move: the server's pushes have reached the gateway, and those due now
    /// reach their devices.
    func settle() throws {
        try observePushes()
        try deliverDuePushes()
    }

    /// Waits until the server has no push in flight (every token has its gateway's answer), then
    /// routes what the gateway accepted to the devices owning the tokens. The wait is bounded
    /// only by the world's ``ScenarioWorld/pushWaitLimit`` (none in process).
    func observePushes() throws {
        var clock = try readServerClock()
        let limit = world.pushWaitLimit
        let giveUp = limit.map { ContinuousClock.now + $0 }
        while clock.pushesInFlight > 0 {
            if let giveUp, let limit, ContinuousClock.now >= giveUp {
                throw ServerFailure(
                    "the server still has \(clock.pushesInFlight) push(es) waiting for the gateway's answer after \(limit.components.seconds) s of real time"
                )
            }
            world.gateway.waitForDelivery(milliseconds: 5)
            clock = try readServerClock()
        }
        let accepted = world.gateway.drain()
        guard !accepted.isEmpty else { return }
        let push = try newestPush()
        // Gateway answers arrive in any order; device order keeps seeded drops reproducible.
        let tokens = Set(accepted.map(\.token))
        for device in scenario.devices {
            guard let token = device.pushToken, tokens.contains(token), tokenOwner[token] == device.name else {
                continue
            }
            let policy = policies[device.name] ?? .deliver
            if policy.dropProbability > 0, policy.dropProbability >= 1 || rng.unit() < policy.dropProbability {
                note("push \(push.id) to \(device.name) dropped")
                recordTimelinePush(device: device.name, push: push.id, outcome: .dropped)
                continue
            }
            let at = max(push.sentAt, now).adding(milliseconds: policy.delayMilliseconds)
            deliverySequence += 1
            pendingDeliveries.append((at, deliverySequence, device.name, push.id))
        }
        pendingDeliveries.sort { ($0.at, $0.sequence) < ($1.at, $1.sequence) }
    }

    /// The server's clock state; kept for the next stop's server deadline.
    @discardableResult
    func readServerClock() throws(ServerFailure) -> ServerClockState {
        let state: ServerClockState
        if let reading = server.clockReading() {
            state = ServerClockState(reading)
        } else {
            state = try server.admin(Admin.clock)
        }
        serverClock = state
        return state
    }

    /// The push whose deliveries the gateway just accepted: the newest the server recorded (it
    /// sends at most one per project per instant). Read once per push, for its id and time.
    func newestPush() throws -> (id: Int, sentAt: Instant) {
        var newest = (id: lastPushId, sentAt: now)
        for record in try pushRecords(after: lastPushId) {
            guard let id = record["id"]?.intValue, id > newest.id else { continue }
            newest = (id, record["sent_at"]?.stringValue.flatMap(Instant.init(rfc3339:)) ?? now)
        }
        lastPushId = newest.id
        return newest
    }

    /// The project's push records after `after`, every page.
    func pushRecords(after: Int) throws(ServerFailure) -> [JSON] {
        var records: [JSON] = []
        var page = try server.admin(Admin.project(scenario.project).pushes(after: after))
        records += page.items
        while let next = page.nextCall {
            page = try server.admin(next)
            records += page.items
        }
        return records
    }

    func deliverDuePushes() throws {
        // The due ones leave the queue's front at once: one by one, each removal moved the whole
        // queue (quadratic for a fleet's 75,000 deliveries).
        var handled = 0
        defer { pendingDeliveries.removeFirst(handled) }
        for delivery in pendingDeliveries {
            guard delivery.at <= now else { break }
            handled += 1
            if offline.contains(delivery.device) {
                note("push \(delivery.push) to \(delivery.device) lost: the device is offline")
                recordTimelinePush(device: delivery.device, push: delivery.push, outcome: .lostOffline)
                continue
            }
            if !running.contains(delivery.device) {
                note("push \(delivery.push) to \(delivery.device) ignored: the app is not running")
                recordTimelinePush(device: delivery.device, push: delivery.push, outcome: .ignoredNotRunning)
                continue
            }
            note("push \(delivery.push) reaches \(delivery.device)")
            recordTimelinePush(device: delivery.device, push: delivery.push, outcome: .received)
            _ = try adapter.command(.appEvent(.push, device: delivery.device))
        }
    }
}
