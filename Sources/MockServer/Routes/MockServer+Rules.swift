import Clock
import HTTP
import JSON
import ReleaseControl

extension MockServer {
    func listRules(_ call: Call) throws(Problem) -> HTTPResponse {
        jsonResponse(200, try projectState(call.project).rulesJSON)
    }

    func getRule(_ call: Call) throws(Problem) -> HTTPResponse {
        let project = try projectState(call.project)
        guard let rule = project.rule(id: call["rule"]) else { throw missingRule(call, in: project) }
        return jsonResponse(200, rule.json)
    }

    /// A rule id the project does not hold: 410 naming the change that removed it when one did
    /// (ids are never reused, so it is gone for good), else 404. A rule that lift-all took away
    /// (a recommended update past its `becomes_required_on` is a blocking state, so lift-all
    /// lifts it) would otherwise read as a rule that never was.
    func missingRule(_ call: Call, in project: ProjectState) -> Problem {
        let id = call["rule"]
        guard let change = project.removal(ofRule: id) else { return unknownRule(call) }
        let how =
            change.kind == .liftedAll
            ? "lifted by lift-all (it removes required updates, recommended updates past their "
                + "becomes_required_on and maintenance windows)"
            : "deleted"
        return Problem(
            status: 410,
            title: "Rule removed",
            detail:
                "rule \"\(id)\" of project \"\(call.project)\" was \(how) in change \(change.id) at \(change.at.rfc3339); "
                + "rule ids are never reused (GET /admin/projects/\(call.project)/changes lists the change)"
        )
    }

    func unknownRule(_ call: Call) -> Problem {
        Problem(
            status: 404,
            title: "Unknown rule",
            detail:
                "project \"\(call.project)\" has no rule \"\(call["rule"])\"; GET /admin/projects/\(call.project)/rules lists them"
        )
    }

    func createRule(_ call: Call) throws(Problem) -> HTTPResponse {
        let rule = try changeRules(call) { (state, now) throws(Problem) in
            let body = try parseBody(call)
            do throws(ValidationFailure) {
                let (rule, change) = try state.createRule(body, now: now)
                return (rule, change, [.ruleUpserted(project: call.project, rule: rule)])
            } catch {
                throw Problem(error)
            }
        }
        var headers = HTTPHeaders()
        headers.set("Location", "/admin/projects/\(call.project)/rules/\(rule.id)")
        return jsonResponse(201, rule.json, headers: headers)
    }

    func replaceRule(_ call: Call) throws(Problem) -> HTTPResponse {
        let rule = try changeRules(call) { (state, now) throws(Problem) in
            guard state.rule(id: call["rule"]) != nil else { throw missingRule(call, in: state) }
            let body = try parseBody(call)
            let replaced: (Rule, Change)?
            do throws(ValidationFailure) {
                replaced = try state.replaceRule(id: call["rule"], with: body, now: now)
            } catch {
                throw Problem(error)
            }
            guard let (rule, change) = replaced else { throw missingRule(call, in: state) }
            return (rule, change, [.ruleUpserted(project: call.project, rule: rule)])
        }
        return jsonResponse(200, rule.json)
    }

    func deleteRule(_ call: Call) throws(Problem) -> HTTPResponse {
        try changeRules(call) { (state, now) throws(Problem) in
            guard let change = state.deleteRule(id: call["rule"], now: now) else { throw missingRule(call, in: state) }
            return (0, change, [.ruleDeleted(project: call.project, ruleId: call["rule"])])
        }
        return noContent()
    }

    func liftAll(_ call: Call) throws(Problem) -> HTTPResponse {
        let (lifted, change) = try changeRules(call) { (state, now) throws(Problem) in
            let (lifted, change) = state.liftAll(now: now)
            let events: [StateEvent] = lifted.map { .ruleDeleted(project: call.project, ruleId: $0.id) }
            return ((lifted, change), change, events)
        }
        return jsonResponse(200, .object([("lifted", .array(lifted.map(\.json))), ("change", change.json)]))
    }

    func listChanges(_ call: Call) throws(Problem) -> HTTPResponse {
        let page = try ListPage(call.request, defaultLimit: 1000)
        let changes = try projectState(call.project).changes
        let (items, next) = page.take(changes, cursor: \.id)
        return jsonResponse(
            200,
            .object([
                ("changes", .array(items.map(\.json))),
                ("next", page.link("/admin/projects/\(call.project)/changes", next: next)),
            ])
        )
    }

    /// One release-control change to `call`'s project: `mutate` edits a copy of the project's
    /// state and says what it did; the change is stored with its events, the project's answers go
    /// stale, and a blocking change feeds the push throttle. Its pushes go to the sink once the
    /// change is durable.
    @discardableResult
    func changeRules<T: Sendable>(
        _ call: Call,
        _ mutate: (inout ProjectState, Instant) throws(Problem) -> (T, Change, [StateEvent])
    )
        throws(Problem) -> T
    {
        let key = call.project
        let (result, pushes) = try write(for: call.commits) { () throws(Problem) in
            let now = clock.now
            guard let runtime = state.withLock({ $0.projects[key] }) else { throw Problem.unknownProject(key) }
            // A snapshot may start a project at the largest id; past it ids would not read back.
            // A change may push now and once more when the throttle's timer fires: two ids.
            if runtime.state.changeIdsUsedUp || runtime.nextPushId >= Identifier.maximumNumber {
                throw Problem(
                    ValidationFailure(
                        "",
                        "project \"\(key)\" has used every change or push id up to \(Identifier.maximumNumber); "
                            + "ids are never reused (POST /admin/reset, or PUT /admin/state with lower ids, starts again)",
                        kind: .invalidValue
                    )
                )
            }
            var projectState = runtime.state
            let (result, change, ruleEvents) = try mutate(&projectState, now)
            var events = ruleEvents
            events.append(.changeAppended(project: key, change: change))
            var plan = PushPlan(runtime: runtime)
            if change.blocking {
                plan.handle(plan.throttle.blockingChange(id: change.id, now: now), now: now)
            }
            events.append(contentsOf: plan.records.map { .pushRecorded(project: key, push: $0) })
            let outgoing = plan.outgoing(project: projectState, generation: state.withLock { $0.generation })
            let stamp = state.withLock { $0.takeStamp() }
            let finalState = projectState
            return (
                events,
                { s in
                    s.projects[key]?.state = finalState
                    s.projects[key]?.cache.removeAll()
                    s.projects[key]?.stamp = stamp
                    plan.apply(to: &s, key: key, server: self)
                }, (result, outgoing)
            )
        }
        deliver(pushes, after: call.commits)
        return result
    }
}
