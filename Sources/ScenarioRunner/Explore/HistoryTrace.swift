import AdapterProtocol
import AdminClient
import Clock
import JSON
import MockServer

/// What one SDK did over one history: after every move, what the device showed and held, and
/// the checks the server answered during that move.
public struct HistoryTrace: Sendable {
    public var observations: [StepObservation] = []
    /// Set when the history could not go on (the adapter refused a command, the server broke):
    /// which move, and why. Not a verdict by itself; the judges compare it.
    public var stopped: (step: Int, reason: String)? = nil
    /// The server's answer to the setup, when the world could not even be built.
    public var setupError: String? = nil
    /// An online device counted a check the server never received by the end of the move: a
    /// request lost on the way (an adapter's HTTP timing out in real time on a loaded machine),
    /// not something the history did. The history has no verdict then.
    public var lostCheck: String? = nil
}

/// The device after one move.
public struct StepObservation: Sendable {
    /// Virtual milliseconds since time 0, after the move.
    public var time: Int64
    /// The adapter's whole `state` answer, rule ids replaced by the history's rule names and
    /// server times by times relative to time 0 (`+1h30m`), as a scenario file writes them.
    public var state: JSONObject
    /// Checks the server answered during the move, oldest first.
    public var checks: [CheckRecord]
    /// App events the device received during the move (the move's own, and pushes delivered).
    public var events: [AdapterCommand]
}

/// One line of the server's journal for the device.
public struct CheckRecord: Sendable, Equatable {
    /// Virtual milliseconds since time 0.
    public var time: Int64
    public var status: Int
    public var lifetime: Int?
    /// The fault the server answered with instead (`malformed`, `reset` …), if any.
    public var fault: String?
    /// The device as the check described itself (the query's `platform`, `version`, `build`).
    public var platform: String? = nil
    public var version: String? = nil
    public var build: String? = nil

    /// A successful check: a 200 or 304 that is an answer. A 200 of the wrong types is one (a
    /// JSON object whose parts are each ignored: it renews the answer's age, docs/behaviour.md
    /// `safe.bad-answer`); a malformed body is not.
    public var succeeded: Bool { (status == 200 || status == 304) && (fault == nil || fault == "wrong_types") }
}

extension CheckRecord {
    /// A journal line as `GET /admin/requests` lists it; `fallback` when it has no time.
    init(line: JSON, t0: Instant, fallback: Instant) {
        self.init(
            time: (line["at"]?.stringValue.flatMap(Instant.init(rfc3339:)) ?? fallback).milliseconds(since: t0),
            status: line["status"]?.intValue ?? 0,
            lifetime: line["lifetime"]?.intValue,
            fault: line["fault"]?.stringValue,
            platform: line["device"]?["platform"]?.stringValue,
            version: line["device"]?["version"]?.stringValue,
            build: line["device"]?["build"]?.stringValue
        )
    }

    /// The same line read from a server in this process.
    init(entry: RequestJournal.Entry, t0: Instant) {
        self.init(
            time: entry.at.milliseconds(since: t0),
            status: entry.status,
            lifetime: entry.lifetime,
            fault: entry.fault,
            platform: entry.platform,
            version: entry.version,
            build: entry.build
        )
    }
}

/// The server's journal, only the checks since the last read. A server in this process hands
/// them over typed, by count. Over HTTP the journal is read from its newest end, found by where
/// the newest lines overlap those already seen (the journal has no sequence numbers), asking for
/// twice as many lines until they do. Reading the whole journal after every move made a
/// history's cost grow with the square of its checks.
struct JournalTail {
    let server: any ServerConnection
    let project: String
    let t0: Instant
    /// Every line seen so far, oldest first (over HTTP).
    private var seen: [JSON] = []
    /// Lines of the project since the reset (in process).
    private var read = 0

    init(server: any ServerConnection, project: String, t0: Instant) {
        self.server = server
        self.project = project
        self.t0 = t0
    }

    /// The checks since the last call, oldest first; `now` stands for a line without a time.
    mutating func fresh(now: Instant) throws(ServerFailure) -> [CheckRecord] {
        if let typed = server.checksJournaled(project: project, after: read) {
            read = typed.total
            return typed.lines.map { CheckRecord(entry: $0, t0: t0) }
        }
        return try freshLines().map { CheckRecord(line: $0, t0: t0, fallback: now) }
    }

    private mutating func freshLines() throws(ServerFailure) -> [JSON] {
        var limit = 8
        while true {
            // The journal lists newest first: oldest first here.
            let newest = Array(try server.admin(Admin.journal(project: project, limit: limit)).reversed())
            let complete = newest.count < limit
            // The longest run at the end of `seen` that starts `newest`.
            var overlap = min(newest.count, seen.count)
            while overlap > 0, Array(seen.suffix(overlap)) != Array(newest.prefix(overlap)) { overlap -= 1 }
            if overlap > 0 || complete || seen.isEmpty && complete {
                let new = Array(newest.dropFirst(overlap))
                seen += new
                return new
            }
            limit *= 2
        }
    }
}

/// The adapter as the runner sees it, with every app event sent to the device written down:
/// a push the runner delivers is an event the properties must know of.
final class RecordingAdapter: AdapterConnection {
    let inner: any AdapterConnection
    var events: [AdapterCommand] = []

    init(_ inner: any AdapterConnection) { self.inner = inner }

    func send(_ command: JSON) throws(AdapterFailure) -> JSON {
        if let name = command["cmd"]?.stringValue, let c = AdapterCommand(rawValue: name) { note(c) }
        return try inner.send(command)
    }

    func command(_ request: AdapterRequest) throws(AdapterFailure) -> JSON {
        note(request.command)
        return try inner.command(request)
    }

    private func note(_ command: AdapterCommand) {
        if AdapterCommand.appEvents.contains(command) || [.install, .network].contains(command) {
            events.append(command)
        }
    }

    func close() { inner.close() }
}

extension ScenarioExecution {
    /// Sets up, performs every move and observes the device after each; never throws: a move
    /// that cannot be made ends the trace with its reason.
    func observe(recorder: RecordingAdapter) -> HistoryTrace {
        var trace = HistoryTrace()
        do {
            try setUp()
        } catch {
            trace.setupError = "\(error)"
            return trace
        }
        var journal = JournalTail(server: server, project: scenario.project, t0: t0)
        var lastCounted = 0
        var online = true
        for (index, step) in scenario.steps.enumerated() {
            if case .network(_, let now) = step.action { online = now }
            recorder.events = []
            do {
                try perform(step)
                try settle()
                let state = try adapter.command(.state(device: History.device))
                // The journal is read only when a check can have reached the server: the device
                // counted one, or time moved (its timers). An SDK that miscounts still differs
                // from the reference in `checks`. Reading it after every move cost 40% of a history.
                let counted = state["checks"]?.intValue ?? -1
                let moved: Bool
                if case .after = step.action { moved = true } else { moved = false }
                let checks = counted != lastCounted || moved ? try journal.fresh(now: now) : []
                if online, counted - lastCounted > checks.count {
                    trace.lostCheck =
                        "move \(index + 1): the device counted \(counted - lastCounted) check(s), the server received \(checks.count): a request lost on the way (a loaded machine?), so no verdict"
                }
                lastCounted = counted
                trace.observations.append(
                    StepObservation(
                        time: now.milliseconds(since: t0),
                        state: normalized(state),
                        checks: checks,
                        events: recorder.events
                    )
                )
            } catch {
                trace.stopped = (index, "\(error)")
                break
            }
        }
        return trace
    }

    /// Rule ids become the history's names; the server's times become times relative to time 0.
    func normalized(_ state: JSON) -> JSONObject {
        let names =
            ruleIds.isEmpty ? [:] : Dictionary(ruleIds.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        func fix(_ value: JSON, key: String?) -> JSON {
            switch value {
            case .object(let o):
                // The keys of an object differ already: kept as they come, not searched one by one
                // (inserting them cost more than the rest of the normalising).
                var pairs: [(key: String, value: JSON)] = []
                pairs.reserveCapacity(o.pairs.count)
                for (k, v) in o where k != "id" && k != "ok" { pairs.append((key: k, value: fix(v, key: k))) }
                return .object(JSONObject(uniqueKeysWithValues: pairs))
            case .array(let items):
                return .array(items.map { fix($0, key: key) })
            case .string(let s) where key == "rule":
                return .string(names[s] ?? s)
            case .string(let s) where key == "starts_at" || key == "ends_at" || key == "becomes_required_on":
                guard let t = Instant(rfc3339: s) else { return value }
                return .string(FlowYAML.duration(t.milliseconds(since: t0), signed: true))
            default:
                return value
            }
        }
        return fix(state, key: nil).objectValue ?? JSONObject()
    }
}
