import AdapterProtocol
import JSON
import MockServer
import Randomness
import ScenarioLanguage

/// Draws random valid histories from the scenario vocabulary, the same for the same seed and
/// run on every machine (``SplitMix64``, salted per run).
///
/// What it draws: rules of every type created, edited and deleted (maintenance now and later,
/// recommended updates with deadlines, SDK switches), lift-all; time moves from seconds to days;
/// launch, foreground, background, terminate, offline and online, refresh, silent push, install
/// of another version, the device clock set either way, Later and Skip, tracked items; faults of
/// every kind on the check endpoint but `delay` (real time, see ``fault(_:)``). Moves an adapter cannot take (its `hello` lacks the
/// capability) are never drawn.
///
/// ```swift
/// let generator = HistoryGenerator(platform: "web", flavor: "native", capabilities: ["refresh", "install"])
/// let history = generator.history(seed: 1, run: 0)   // 30 moves
/// ```
public struct HistoryGenerator: Sendable {
    public var platform: String
    public var flavor: String
    public var capabilities: Set<String>
    public var steps: Int

    public init(platform: String, flavor: String = "native", capabilities: Set<String>, steps: Int = 30) {
        self.platform = platform
        self.flavor = flavor
        self.capabilities = capabilities
        self.steps = steps
    }

    static let versions = ["1.0.0", "2.0.0", "3.0.0"]
    static let belows = ["1.5.0", "2.5.0", "3.5.0"]
    static let modules = ["errors", "analytics", "tracing", "feedback", "surveys"]
    static let switchModules: [[String]] = [
        ["analytics"], ["errors", "tracing"], ["all"], ["push_token_registration"], ["feedback", "surveys"],
    ]

    func can(_ capability: AdapterCapability) -> Bool { capabilities.contains(capability.rawValue) }

    public func history(seed: UInt64, run: Int) -> History {
        var draw = Draw(SplitMix64(seed: seed, salt: "explore run \(run)"))
        let pushable = AdapterVocabulary.pushPlatforms.contains(platform) && can(.push)
        var history = History(
            seed: seed,
            run: run,
            platform: platform,
            flavor: flavor,
            appVersion: draw.chance(0.1) ? nil : draw.pick(["1.0.0", "2.0.0"]),
            build: draw.chance(0.5) ? "100" : nil,
            push: pushable && draw.chance(0.7),
            clockOffsetSeconds: can(.clockOffset) && draw.chance(0.3)
                ? draw.pick([-86_400, -7_200, -300, -90, 90, 300, 7_200, 86_400]) : 0,
            moves: []
        )
        var world = DrawnWorld()
        history.moves.append(.app(.launch))
        world.running = true
        while history.moves.count < steps {
            // One move, or one of the short runs the spec's rows are about (``motif(_:_:)``).
            let moves = draw.chance(Self.motifShare) ? motif(&draw, &world) : nextMove(&draw, &world).map { [$0] } ?? []
            history.moves += moves.prefix(steps - history.moves.count)
        }
        return history
    }

    /// What the generator keeps track of to draw sensible moves (existing rules, time, network).
    struct DrawnWorld {
        var nowMilliseconds: Int64 = 0
        var running = false
        var online = true
        var rules: [(name: String, body: JSON)] = []
        var created = 0
        var build = 100

        /// Modules a live SDK switch pauses now (by the times the history wrote).
        var pausedModules: [String] {
            var out: [String] = []
            for (_, body) in rules where body["type"]?.stringValue == "sdk_switch" {
                guard let end = body["ends_at"]?.stringValue.flatMap(TimeSyntax.milliseconds), end > nowMilliseconds
                else { continue }
                for m in (body["modules"]?.arrayValue ?? []).compactMap(\.stringValue) {
                    // Push token registration queues nothing a history can track.
                    out += m == "all" ? HistoryGenerator.modules : HistoryGenerator.modules.contains(m) ? [m] : []
                }
            }
            return out
        }
    }

    /// The share of draws that are a motif rather than a single move.
    static let motifShare = 0.3

    /// A short run of moves that one spec row is about, so that histories reach the shapes a
    /// row needs (a return to the foreground after the lifetime, a failed check with an answer
    /// saved, Later and Skip while a prompt shows, a tracked item under a switch) far more often
    /// than independent draws would put them together.
    func motif(_ draw: inout Draw, _ w: inout DrawnWorld) -> [HistoryMove] {
        func after(_ ms: Int64) -> HistoryMove {
            w.nowMilliseconds += ms
            return .after(milliseconds: ms)
        }
        // A wait that lands on either side of a threshold the spec names: the 60 s poll, the
        // 5-minute lifetime, the 30 minutes after a change, an hour, a day, the 7-day drop.
        func straddling() -> Int64 {
            let thresholds: [Int64] = [60_000, 300_000, 1_800_000, 3_600_000, 86_400_000, 7 * 86_400_000]
            let threshold = draw.pick(thresholds)
            let offsets: [Int64] = [-20_000, -1000, 1000, 20_000, threshold / 2]
            return max(1000, threshold + draw.pick(offsets))
        }
        // A move that makes an online, running app check: refresh(), or a restart.
        func check() -> [HistoryMove] {
            if can(.refresh), draw.chance(0.6) { return [.app(.refresh)] }
            w.running = true
            return [.app(.terminate), .app(.launch)]
        }
        switch draw.weighted([16, 12, 12, 12, 14, 12, 8, 8]) {
        case 0:
            // Leave and come back (check.foreground, check.foreground-polling).
            return [.app(.background), after(straddling()), .app(.foreground)]
        case 1:
            // A restart (check.app-start; the saved answer applies before any request).
            w.running = true
            return [.app(.terminate), after(straddling()), .app(.launch)]
        case 2:
            // An outage, with or without a try in it (check.foreground-web, offline.*).
            var moves: [HistoryMove] = [.network(online: false), after(straddling())]
            if draw.chance(0.5) { moves += check() }
            moves.append(.network(online: true))
            w.online = true
            return moves
        case 3:
            // A check that fails while an answer is saved (offline.*.no-network, safe.bad-answer).
            var body = fault(&draw).objectValue ?? JSONObject()
            body["count"] = .number(1)
            return [.fault(.object(body))] + check()
        case 4:
            // A prompt answered: a check brings the optional update, the user presses Later or
            // Skip, and another check or restart follows (offline.optional.no-network).
            var moves = check()
            moves.append(.app(draw.chance(0.5) ? .skip : .later))
            if draw.chance(0.5) {
                w.created += 1
                let name = "r\(w.created)"
                var fields: [(String, JSON)] = [
                    ("type", "optional_update"), ("below", .string(draw.pick(Self.belows))),
                ]
                if draw.chance(0.3) {
                    fields[0].1 = "recommended_update"
                    fields.append(("becomes_required_on", Self.relative(w.nowMilliseconds + 2 * 86_400_000)))
                }
                let body: JSON = .object(fields)
                w.rules.append((name, body))
                moves.append(.createRule(name: name, body: body))
            }
            return moves + check()
        case 5:
            // A change, then time across the 60 s polls and the 30 minutes that follow it
            // (lifetime.recent-change, lifetime.default, check.foreground-polling).
            guard let create = nextMoveCreating(&draw, &w) else { return [] }
            return [create, after(straddling())]
        case 6:
            // Items tracked for a module a live switch pauses (switch.pauses-modules, switch.queue-flushes).
            guard can(.track) else { return [] }
            let paused = w.pausedModules
            let module = paused.isEmpty ? draw.pick(Self.modules) : draw.pick(paused)
            return [.track(module: module, count: 1 + draw.index(3)), after(straddling())]
        default:
            // Days without a successful check, with the app open or closed (offline.*.expired).
            var moves: [HistoryMove] = []
            if draw.chance(0.5) {
                moves.append(.network(online: false))
                w.online = false
            }
            moves.append(after(Int64(1 + draw.index(9)) * 86_400_000 + draw.pick([-60_000, 0, 60_000])))
            return moves
        }
    }

    /// A rule created now (one of every type), for motifs that follow a change.
    func nextMoveCreating(_ draw: inout Draw, _ w: inout DrawnWorld) -> HistoryMove? {
        w.created += 1
        let name = "r\(w.created)"
        let body = ruleBody(&draw, now: w.nowMilliseconds)
        w.rules.append((name, body))
        return .createRule(name: name, body: body)
    }

    func nextMove(_ draw: inout Draw, _ w: inout DrawnWorld) -> HistoryMove? {
        switch draw.weighted([26, 30, 8, 13, 5, 3, 3, 5, 3, 3, 3, 3]) {
        case 0:
            let ms = duration(&draw)
            w.nowMilliseconds += ms
            return .after(milliseconds: ms)
        case 1:
            var events: [AdapterCommand] = [.launch, .foreground, .background, .terminate, .later, .skip]
            if can(.refresh) { events += [.refresh, .refresh] }
            if can(.push), AdapterVocabulary.pushPlatforms.contains(platform) { events.append(.push) }
            let event = draw.pick(events)
            if event == .launch { w.running = true }
            if event == .terminate { w.running = false }
            return .app(event)
        case 2:
            w.online.toggle()
            return .network(online: w.online)
        case 3:
            return nextMoveCreating(&draw, &w)
        case 4:
            guard !w.rules.isEmpty else { return nil }
            let index = draw.index(w.rules.count)
            guard let fields = ruleChange(&draw, body: w.rules[index].body, now: w.nowMilliseconds) else { return nil }
            var object = w.rules[index].body.objectValue ?? JSONObject()
            for (k, v) in fields.objectValue ?? JSONObject() { object[k] = v }
            w.rules[index].body = .object(object)
            return .updateRule(name: w.rules[index].name, fields: fields)
        case 5:
            guard !w.rules.isEmpty else { return nil }
            let index = draw.index(w.rules.count)
            let name = w.rules[index].name
            w.rules.remove(at: index)
            return .deleteRule(name: name)
        case 6:
            w.rules.removeAll { Shrinker.liftedByLiftAll($0.body) }
            return .liftAll
        case 7:
            return .fault(fault(&draw))
        case 8:
            return .clearFaults
        case 9:
            guard can(.install) else { return nil }
            w.build += 10
            w.running = false
            return .install(appVersion: draw.chance(0.1) ? nil : draw.pick(Self.versions), build: "\(w.build)")
        case 10:
            guard can(.track) else { return nil }
            return .track(module: draw.pick(Self.modules), count: 1 + draw.index(4))
        default:
            guard can(.clockOffset) else { return nil }
            return .setClock(offsetSeconds: draw.pick([0, 0, -86_400, -7_200, -600, -60, 60, 600, 7_200, 86_400]))
        }
    }

    /// Seconds to days: most moves are short, some cross a lifetime, a window, the 7-day drop.
    func duration(_ draw: inout Draw) -> Int64 {
        switch draw.weighted([20, 30, 25, 15, 10]) {
        case 0: return Int64(1 + draw.index(59)) * 1000
        case 1: return Int64(1 + draw.index(10)) * 60_000
        case 2: return Int64(10 + draw.index(110)) * 60_000
        case 3: return Int64(2 + draw.index(22)) * 3_600_000
        default: return Int64(1 + draw.index(8)) * 86_400_000
        }
    }

    static func relative(_ ms: Int64) -> JSON { .string(FlowYAML.duration(ms, signed: true)) }

    func ruleBody(_ draw: inout Draw, now: Int64) -> JSON {
        var fields: [(String, JSON)] = []
        switch draw.weighted([22, 18, 15, 25, 20]) {
        case 0:
            fields = [("type", "required_update"), ("below", .string(draw.pick(Self.belows)))]
        case 1:
            fields = [("type", "optional_update"), ("below", .string(draw.pick(Self.belows)))]
        case 2:
            let deadline = now + Int64(10 + draw.index(3 * 24 * 60)) * 60_000
            fields = [
                ("type", "recommended_update"), ("below", .string(draw.pick(Self.belows))),
                ("becomes_required_on", Self.relative(deadline)),
            ]
        case 3:
            // Now, soon (within the hour: lifetime 60) or later; up to three days long.
            let start = now + draw.pick([-600_000, 0, 120_000, 1_800_000, 7_200_000, 86_400_000])
            let end = start + draw.pick([60_000, 600_000, 3_600_000, 14_400_000, 86_400_000, 259_200_000])
            fields = [("type", "maintenance"), ("starts_at", Self.relative(start)), ("ends_at", Self.relative(end))]
        default:
            let end = now + draw.pick([300_000, 3_600_000, 14_400_000, 86_400_000, 172_800_000])
            fields = [
                ("type", "sdk_switch"), ("modules", .array(draw.pick(Self.switchModules).map(JSON.string))),
                ("ends_at", Self.relative(end)),
            ]
        }
        if draw.chance(0.2) {
            if fields[0].1 == "sdk_switch" {
                let sdk = DeviceSpec.defaultSDK(platform: draw.pick([platform, "ios", "web"]), flavor: flavor)
                fields.append(("sdks", .array([.object([("name", .string(sdk))])])))
            } else {
                fields.append(("platforms", .array([.string(draw.pick([platform, "ios", "web"]))])))
            }
        }
        return .object(fields)
    }

    /// Fields an edit changes: another version bound, window end, deadline or module list.
    func ruleChange(_ draw: inout Draw, body: JSON, now: Int64) -> JSON? {
        switch body["type"]?.stringValue {
        case "required_update", "optional_update":
            return .object([("below", .string(draw.pick(Self.belows)))])
        case "recommended_update":
            return draw.chance(0.5)
                ? .object([("below", .string(draw.pick(Self.belows)))])
                : .object([("becomes_required_on", Self.relative(now + Int64(1 + draw.index(48 * 60)) * 60_000))])
        case "maintenance":
            guard let start = body["starts_at"]?.stringValue.flatMap(TimeSyntax.milliseconds) else { return nil }
            let end = max(start + 60_000, now + draw.pick([-60_000, 60_000, 900_000, 7_200_000]))
            guard end - start <= 7 * 86_400_000 else { return nil }
            return .object([("ends_at", Self.relative(end))])
        case "sdk_switch":
            return draw.chance(0.5)
                ? .object([("modules", .array(draw.pick(Self.switchModules).map(JSON.string)))])
                : .object([("ends_at", Self.relative(now + draw.pick([60_000, 600_000, 7_200_000])))])
        default:
            return nil
        }
    }

    func fault(_ draw: inout Draw) -> JSON {
        var fields: [(String, JSON)]
        // No `delay`: it waits in real time (CONTRACT.md), and in process the SDK takes it as a
        // timeout while the server still answers later, so its outcome would depend on the machine.
        switch draw.weighted([40, 20, 20, 20]) {
        case 0: fields = [("kind", "status"), ("status", .number(Double(draw.pick([500, 503, 404, 429]))))]
        case 1: fields = [("kind", "reset")]
        case 2: fields = [("kind", "malformed")]
        default: fields = [("kind", "wrong_types")]
        }
        if draw.chance(0.7) { fields.append(("count", .number(Double(1 + draw.index(3))))) }
        return .object(fields)
    }
}

/// Typed draws over the seeded generator.
struct Draw {
    var rng: SplitMix64
    init(_ rng: SplitMix64) { self.rng = rng }

    mutating func index(_ n: Int) -> Int { rng.below(n) }
    mutating func chance(_ p: Double) -> Bool { rng.unit() < p }
    mutating func pick<T>(_ items: [T]) -> T { items[index(items.count)] }
    mutating func weighted(_ weights: [Int]) -> Int {
        var roll = index(weights.reduce(0, +))
        for (i, w) in weights.enumerated() {
            if roll < w { return i }
            roll -= w
        }
        return weights.count - 1
    }
}
