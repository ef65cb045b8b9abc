import Clock
import JSON

extension ScenarioExecution {
    func perform(_ step: Step) throws {
        let project = "/admin/projects/\(scenario.project)"
        switch step.action {
        case .device(let command, let names):
            for name in names {
                _ = try adapter.command(command, [("device", .string(name))])
                if command == "launch" { running.insert(name) }
                if command == "terminate" { running.remove(name) }
            }
        case .network(let names, let online):
            for name in names {
                _ = try adapter.command("network", [("device", .string(name)), ("online", .bool(online))])
                if online { offline.remove(name) } else { offline.insert(name) }
            }
        case .install(let names, let version, let build):
            for name in names {
                let previous = installed[name] ?? (nil, nil)
                let newBuild = build ?? previous.build
                _ = try adapter.command("install", [("device", .string(name)), ("app_version", version.map(JSON.string) ?? .null),
                                                    ("build", newBuild.map(JSON.string) ?? .null)])
                installed[name] = (version, newBuild)
                running.remove(name)
            }
        case .track(let names, let module, let count):
            for name in names {
                _ = try adapter.command("track", [("device", .string(name)), ("module", .string(module)), ("count", .number(Double(count)))])
            }
        case .createRule(let rule) where rule.expectRejected:
            let reply = try server.request("POST", "\(project)/rules", body: resolveTimes(rule.body))
            guard (400..<500).contains(reply.status) else {
                throw StepFailure("rule '\(rule.name)': expected the server to refuse it (4xx), seen \(reply.status)")
            }
            note("refused as expected: \(reply.json?["detail"]?.stringValue ?? "")")
        case .createRule(let rule):
            let body = resolveTimes(rule.body)
            let created = try server.admin("POST", "\(project)/rules", body)
            guard let id = created["id"]?.stringValue ?? created["id"]?.intValue.map(String.init) else {
                throw StepFailure("the server created rule '\(rule.name)' without an id: \(created.serializedString)")
            }
            ruleIds[rule.name] = id
            ruleBodies[rule.name] = body
            note("rule \(rule.name) is \(id) on the server")
        case .updateRule(let name, let fields):
            guard let id = ruleIds[name], case .object(var body)? = ruleBodies[name] else { throw StepFailure("rule '\(name)' was never created") }
            for (k, v) in resolveTimes(fields).objectValue ?? JSONObject() { body[k] = v }
            try server.admin("PUT", "\(project)/rules/\(id)", .object(body))
            ruleBodies[name] = .object(body)
        case .deleteRule(let name):
            guard let id = ruleIds[name] else { throw StepFailure("rule '\(name)' was never created") }
            try server.admin("DELETE", "\(project)/rules/\(id)")
        case .liftAll:
            let lifted = try server.admin("POST", "\(project)/lift-all")
            note("lift-all: \(lifted.serializedString)")
        case .fault(let body):
            try server.admin("POST", "\(project)/faults", body)
        case .clearFaults:
            try server.admin("DELETE", "\(project)/faults")
        case .addPushToken(let token, let platform):
            let reply = try server.request("PUT", "/v1/projects/\(scenario.project)/push-tokens/\(token)",
                                           body: .object([("platform", .string(platform))]))
            guard (200..<300).contains(reply.status) else { throw StepFailure("registering push token \(token) answered \(reply.status)") }
        case .deletePushToken(let token):
            let reply = try server.request("DELETE", "/v1/projects/\(scenario.project)/push-tokens/\(token)", body: nil)
            guard (200..<300).contains(reply.status) else { throw StepFailure("deleting push token \(token) answered \(reply.status)") }
        case .after(let ms):
            try advance(to: now.adding(milliseconds: ms))
        case .at(let ms):
            let target = t0.adding(milliseconds: ms)
            guard target >= now else {
                throw StepFailure("`at: \(TimeSyntax.relative(ms))` is in the past (time is already \(TimeSyntax.relative(now.milliseconds(since: t0)))); time only moves forward")
            }
            try advance(to: target)
        case .until(let expectation, let within):
            let limit = now.adding(milliseconds: within)
            while true {
                guard let failure = try check(expectation) else { break }
                guard now < limit else {
                    throw StepFailure("still not so after waiting \(TimeSyntax.relative(within).dropFirst()): \(failure.message)", devices: failure.devices)
                }
                let stop = try nextStop(limit: limit)
                try moveClocks(to: stop)
            }
        case .gatewayReject(let names, let status):
            guard let reject = world.rejectToken else {
                throw StepFailure("`gateway_reject` needs the in-process push gateway (not --server, not --direct-push)")
            }
            for name in names { if let token = devices[name]?.pushToken { reject(token, status) } }
        case .pushDelivery(let names, let policy):
            for name in names { policies[name] = policy }
        case .expect(let expectation):
            if let failure = try check(expectation) { throw failure }
        }
    }
}
