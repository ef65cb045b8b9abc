import AdapterProtocol
import AdminClient
import Clock
import JSON
import ScenarioLanguage

extension ScenarioExecution {
    func perform(_ step: Step) throws {
        let project = Admin.project(scenario.project)
        switch step.action {
        case .device(let command, let names):
            for name in names {
                _ = try adapter.command(.appEvent(command, device: name))
                if command == .launch { running.insert(name) }
                if command == .terminate { running.remove(name) }
            }
        case .network(let names, let online):
            for name in names {
                _ = try adapter.command(.network(device: name, online: online))
                if online { offline.remove(name) } else { offline.insert(name) }
            }
        case .install(let names, let version, let build):
            for name in names {
                let previous = installed[name] ?? (nil, nil)
                let newBuild = build ?? previous.build
                _ = try adapter.command(.install(device: name, appVersion: version, build: newBuild))
                installed[name] = (version, newBuild)
                running.remove(name)
            }
        case .track(let names, let module, let count):
            for name in names {
                _ = try adapter.command(.track(device: name, module: module, count: count))
            }
        case .createRule(let rule) where rule.expectRejected:
            let reply = try server.request(project.createRule(resolveTimes(rule.body)))
            try expectRefusal(reply, of: "rule '\(rule.name)'")
        case .createRule(let rule):
            let id = try createRule(rule, "creating rule '\(rule.name)'") { answer in
                StepFailure("the server created rule '\(rule.name)' without an id: \(answer)")
            }
            note("rule \(rule.name) is \(id) on the server")
        case .updateRule(let update):
            guard let id = ruleIds[update.name], let before = ruleBodies[update.name] else {
                throw StepFailure("rule '\(update.name)' was never created")
            }
            let body = resolveTimes(update.applied(to: before))
            let reply = try server.request(project.replaceRule(id, with: body))
            if update.expectRejected {
                try expectRefusal(reply, of: "the change to rule '\(update.name)'")
            } else {
                try expectAcceptance(reply, of: "updating rule '\(update.name)'")
                ruleBodies[update.name] = body
            }
        case .deleteRule(let name):
            guard let id = ruleIds[name] else { throw StepFailure("rule '\(name)' was never created") }
            try server.admin(project.deleteRule(id))
        case .liftAll:
            let lifted = try server.admin(project.liftAll)
            note("lift-all: \(lifted.serializedString)")
        case .fault(let body):
            try server.admin(project.addFault(body))
        case .clearFaults:
            try server.admin(project.clearFaults)
        case .addPushToken(let token, let platform):
            let reply = try server.request(project.registerPushToken(token, platform: platform))
            guard (200..<300).contains(reply.status) else {
                throw StepFailure("registering push token \(token) answered \(reply.status)")
            }
        case .deletePushToken(let token):
            let reply = try server.request(project.unregisterPushToken(token))
            guard (200..<300).contains(reply.status) else {
                throw StepFailure("deleting push token \(token) answered \(reply.status)")
            }
        case .after(let ms):
            try advance(to: now.adding(milliseconds: ms))
        case .at(let ms):
            let target = t0.adding(milliseconds: ms)
            guard target >= now else {
                throw StepFailure(
                    "`at: \(TimeSyntax.relative(ms))` is in the past (time is already \(TimeSyntax.relative(now.milliseconds(since: t0)))); time only moves forward"
                )
            }
            try advance(to: target)
        case .until(let expectation, let within):
            defer { finishExpectation() }
            let limit = now.adding(milliseconds: within)
            while true {
                guard let failure = try check(expectation) else { break }
                guard now < limit else {
                    throw StepFailure(
                        "still not so after waiting \(TimeSyntax.relative(within).dropFirst()): \(failure.message)",
                        devices: failure.devices
                    )
                }
                let stop = try nextStop(limit: limit)
                try moveClocks(to: stop)
            }
        case .gatewayReject(let names, let status):
            for name in names {
                guard let device = devices[name], let token = device.pushToken else { continue }
                world.gateway.reject(token: token, status: status ?? (device.platform == "android" ? 404 : 410))
            }
        case .setClock(let names, let seconds):
            for name in names {
                _ = try adapter.command(.setClock(device: name, clockOffsetSeconds: Double(seconds)))
                clockOffsets[name] = seconds
            }
        case .pushDelivery(let names, let policy):
            for name in names { policies[name] = policy }
        case .expect(let expectation):
            defer { finishExpectation() }
            if let failure = try check(expectation) { throw failure }
        }
    }
}

extension ScenarioExecution {
    /// The states the expectation saw become the base of the next relative counts.
    func finishExpectation() {
        previousStates.merge(seenStates) { $1 }
        seenStates = [:]
    }

    /// A `rejected: true` step: the server must refuse with a 4xx (its reason goes to the log).
    func expectRefusal(_ reply: ServerReply, of what: String) throws(StepFailure) {
        guard (400..<500).contains(reply.status) else {
            throw StepFailure("\(what): expected the server to refuse it (4xx), seen \(reply.status)")
        }
        note("refused as expected: \(reply.json?["detail"]?.stringValue ?? "")")
    }

    /// A rule the scenario expects to be taken: a refusal names each field the server
    /// objected to, as the problem+json lists them.
    /// `POST …/rules` with `rule`'s body (its times resolved), held to a 2xx (`what` names it in
    /// a refusal): the server's id, kept with the body sent for later updates. An answer without
    /// an id throws `noID(answer)`: set-up and steps report it each in their own terms.
    @discardableResult
    func createRule(_ rule: RuleSpec, _ what: String, noID: (String) -> any Error) throws -> String {
        let body = resolveTimes(rule.body)
        let create = Admin.project(scenario.project).createRule(body)
        let reply = try server.request(create)
        try expectAcceptance(reply, of: what)
        guard let created = reply.json, let id = (try? create.answer(from: created)) ?? nil else {
            throw noID(reply.json?.serializedString ?? "no body")
        }
        ruleIds[rule.name] = id
        ruleBodies[rule.name] = body
        return id
    }

    func expectAcceptance(_ reply: ServerReply, of what: String) throws(StepFailure) {
        guard !(200..<300).contains(reply.status) else { return }
        var lines = [
            "\(what): the server refused it with \(reply.status)"
                + (reply.json?["detail"]?.stringValue.map { ": " + $0 } ?? "")
        ]
        for problem in reply.json?["errors"]?.arrayValue ?? [] {
            lines.append(
                "  \(problem["pointer"]?.stringValue ?? ""): \(problem["message"]?.stringValue ?? problem.serializedString)"
            )
        }
        if reply.json?["errors"] == nil, let body = reply.json, body["detail"] == nil {
            lines.append("  " + body.serializedString)
        }
        lines.append("(write `rejected: true` on the step if the scenario expects the refusal)")
        throw StepFailure(lines.joined(separator: "\n"))
    }
}
