import Clock
import JSON

extension ScenarioExecution {
    /// Moves true time to `target`, stopping at every device timer, server timer and push
    /// delivery on the way. At each stop: the server's clock first (due pushes go out), then
    /// the devices' clocks (due timers fire and check), then pushes due to devices arrive.
    /// In process both clocks are one scheduler, so the adapter's `advance` moves them at once
    /// (server and device timers in one deadline order) and nothing else sets time.
    func advance(to target: Instant) throws {
        while now < target {
            let stop = try nextStop(limit: target)
            try moveClocks(to: stop)
        }
    }

    /// The earliest instant in (now, limit] at which something happens, or `limit`.
    func nextStop(limit: Instant) throws -> Instant {
        var next = limit
        let answer = try adapter.command("next_deadline")
        if let text = answer["next_deadline"]?.stringValue {
            guard let d = Instant(rfc3339: text) else { throw AdapterFailure("next_deadline is not an RFC 3339 time: \(text)") }
            if d > now, d < next { next = d }
            if d <= now {
                // A timer the adapter left due: run it at once rather than loop forever.
                next = now.adding(milliseconds: 1) < next ? now.adding(milliseconds: 1) : next
            }
        }
        if let first = pendingDeliveries.first?.at, first > now, first < next { next = first }
        if let serverNext = world.serverNextDeadline?(), serverNext > now, serverNext < next { next = serverNext }
        if world.serverNextDeadline == nil, let checkpoint = pushCheckpoint, checkpoint > now, checkpoint < next { next = checkpoint }
        return next
    }

    func moveClocks(to t: Instant) throws {
        if world.serverTimeFollowsAdapter {
            now = t
            _ = try adapter.command("advance", [("to", .string(t.rfc3339))])
            try observePushes()
        } else {
            try setServerClock(t)
            now = t
            if world.pushTap != nil || pushCheckpoint.map({ $0 <= t }) == true { try observePushes() }
            _ = try adapter.command("advance", [("to", .string(t.rfc3339))])
        }
        try deliverDuePushes()
    }

    /// After a step: pushes it caused reach their devices (a push due at once arrives now).
    func settle() throws {
        try observePushes()
        try deliverDuePushes()
    }

    /// New pushes since the last look, routed to the devices that own their tokens.
    func observePushes() throws {
        let fresh = try drainPushes().filter { !seenPushes.contains($0.id) && !baselinePushes.contains($0.id) }
        if world.pushTap == nil, fresh.isEmpty, let checkpoint = pushCheckpoint, checkpoint <= now {
            pushCheckpoint = nil   // the throttle window passed without a combined push
        }
        for push in fresh.sorted(by: { $0.id < $1.id }) {
            seenPushes.insert(push.id)
            if world.pushTap == nil { pushCheckpoint = push.sentAt.adding(seconds: 60) }
            for token in push.tokens {
                guard let device = tokenOwner[token] else { continue }
                let policy = policies[device] ?? .deliver
                if policy.dropProbability > 0, policy.dropProbability >= 1 || rng.unit() < policy.dropProbability {
                    note("push \(push.id) to \(device) dropped")
                    recordTimelinePush(device: device, push: push.id, outcome: .dropped)
                    continue
                }
                let at = max(push.sentAt, now).adding(milliseconds: policy.delayMilliseconds)
                deliverySequence += 1
                pendingDeliveries.append((at, deliverySequence, device, push.id))
            }
        }
        pendingDeliveries.sort { ($0.at, $0.sequence) < ($1.at, $1.sequence) }
    }

    /// Pushes the server sent (in process: handed over; remote: listed since the last look).
    func drainPushes() throws -> [ObservedPush] {
        if let tap = world.pushTap { return try tap.drain() }
        let listed = try server.admin("GET", "/admin/projects/\(scenario.project)/pushes")
        var out: [ObservedPush] = []
        for p in listed["pushes"]?.arrayValue ?? [] {
            guard let id = p["id"]?.intValue, !seenPushes.contains(id), let sent = p["sent_at"]?.stringValue.flatMap(Instant.init(rfc3339:)) else { continue }
            let tokens = (p["results"]?.arrayValue ?? []).compactMap { r -> String? in
                let result = r["result"]?.stringValue ?? "delivered"
                guard ["delivered", "no_gateway", "pending"].contains(result) else { return nil }
                return r["token"]?.stringValue
            }
            out.append(ObservedPush(id: id, sentAt: sent, tokens: tokens))
        }
        return out
    }

    func deliverDuePushes() throws {
        while let first = pendingDeliveries.first, first.at <= now {
            pendingDeliveries.removeFirst()
            if offline.contains(first.device) {
                note("push \(first.push) to \(first.device) lost: the device is offline")
                recordTimelinePush(device: first.device, push: first.push, outcome: .lostOffline)
                continue
            }
            if !running.contains(first.device) {
                note("push \(first.push) to \(first.device) ignored: the app is not running")
                recordTimelinePush(device: first.device, push: first.push, outcome: .ignoredNotRunning)
                continue
            }
            note("push \(first.push) reaches \(first.device)")
            recordTimelinePush(device: first.device, push: first.push, outcome: .received)
            _ = try adapter.command("push", [("device", .string(first.device))])
        }
    }
}
