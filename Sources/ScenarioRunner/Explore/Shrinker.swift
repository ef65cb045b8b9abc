import JSON

/// Reduces a failing history to a smallest one that fails the same way (same judge, same
/// fields): whole runs of moves removed, then single moves, time moves shortened and merged,
/// rules and the device made plainer. Each candidate runs in fresh worlds like any history.
///
/// ```swift
/// let small = Shrinker(judge: judge).shrink(history, failing: finding)
/// small.history.moves.count    // usually a handful
/// ```
public struct Shrinker {
    public let judge: HistoryJudge
    /// Candidates tried at most (each one or two SDK runs).
    public var budget: Int

    public init(judge: HistoryJudge, budget: Int = 400) {
        self.judge = judge
        self.budget = budget
    }

    public struct Result {
        public var history: History
        public var finding: Finding
        public var tried: Int
    }

    public func shrink(_ history: History, failing finding: Finding) -> Result {
        var best = Result(history: history, finding: finding, tried: 0)
        // Moves after the one that failed never matter.
        best.history.moves = Array(history.moves.prefix(finding.step + 1))
        if let f = failure(of: best.history, like: finding, tried: &best.tried) {
            best.finding = f
        } else {
            best.history = history
        }
        var improved = true
        while improved && best.tried < budget {
            improved = false
            // Runs of moves, halving the run length down to one move (the first move stays:
            // histories start with a launch).
            var size = max(1, best.history.moves.count / 2)
            while size >= 1 && best.tried < budget {
                var start = 1
                while start < best.history.moves.count && best.tried < budget {
                    var candidate = best.history
                    candidate.moves.removeSubrange(start..<min(start + size, candidate.moves.count))
                    candidate.moves = Self.consistent(candidate.moves)
                    if candidate.moves.count < best.history.moves.count, take(candidate, &best) {
                        improved = true
                    } else {
                        start += size
                    }
                }
                size /= 2
            }
            for candidate in simpler(best.history) where best.tried < budget {
                if take(candidate, &best) { improved = true }
            }
        }
        return best
    }

    /// Takes `candidate` when it still fails the same way.
    private func take(_ candidate: History, _ best: inout Result) -> Bool {
        guard candidate != best.history else { return false }
        guard let f = failure(of: candidate, like: best.finding, tried: &best.tried) else { return false }
        best.history = candidate
        best.history.moves = Array(candidate.moves.prefix(f.step + 1))
        best.finding = f
        return true
    }

    private func failure(of candidate: History, like finding: Finding, tried: inout Int) -> Finding? {
        tried += 1
        guard let f = judge.verdict(candidate).finding, f.signature == finding.signature else { return nil }
        return f
    }

    /// Plainer versions of the history, one change each: merged and shortened time moves, rule
    /// bodies without optional keys, a device with no push, no wrong clock, no build.
    func simpler(_ h: History) -> [History] {
        var out: [History] = []
        for (i, move) in h.moves.enumerated() {
            switch move {
            case .after(let ms):
                if i + 1 < h.moves.count, case .after(let next) = h.moves[i + 1] {
                    var c = h
                    c.moves[i] = .after(milliseconds: ms + next)
                    c.moves.remove(at: i + 1)
                    out.append(c)
                }
                for shorter in [ms / 2, Self.round(ms)] where shorter >= 1000 && shorter < ms {
                    var c = h
                    c.moves[i] = .after(milliseconds: shorter)
                    out.append(c)
                }
            case .createRule(let name, let body):
                if body["platforms"] != nil, var o = body.objectValue {
                    o["platforms"] = nil
                    var c = h
                    c.moves[i] = .createRule(name: name, body: .object(o))
                    out.append(c)
                }
            case .fault(let body):
                if body["count"] != nil, var o = body.objectValue {
                    o["count"] = nil
                    var c = h
                    c.moves[i] = .fault(.object(o))
                    out.append(c)
                }
            default:
                break
            }
        }
        if h.push {
            var c = h
            c.push = false
            out.append(c)
        }
        if h.clockOffsetSeconds != 0 {
            var c = h
            c.clockOffsetSeconds = 0
            out.append(c)
        }
        if h.build != nil {
            var c = h
            c.build = nil
            out.append(c)
        }
        return out
    }

    /// A round duration just below `ms`: whole days, hours, minutes or seconds.
    static func round(_ ms: Int64) -> Int64 {
        for unit in [Int64(86_400_000), 3_600_000, 60_000, 1000] where ms >= unit {
            return ms / unit * unit
        }
        return ms
    }

    /// Rules lift-all removes: required updates, maintenance windows, and recommended updates
    /// (those before their deadline stay on the server, but a history never edits them again).
    static func liftedByLiftAll(_ body: JSON) -> Bool {
        ["required_update", "maintenance", "recommended_update"].contains(body["type"]?.stringValue ?? "")
    }

    /// Moves that still make sense once others are gone: an edit or deletion of a rule that
    /// no longer exists (never created, deleted, lifted) goes too.
    static func consistent(_ moves: [HistoryMove]) -> [HistoryMove] {
        var alive: [String: JSON] = [:]
        var out: [HistoryMove] = []
        for move in moves {
            switch move {
            case .createRule(let name, let body):
                alive[name] = body
            case .liftAll:
                alive = alive.filter { !liftedByLiftAll($0.value) }
            case .updateRule(let name, _):
                if alive[name] == nil { continue }
            case .deleteRule(let name):
                if alive[name] == nil { continue }
                alive[name] = nil
            default:
                break
            }
            out.append(move)
        }
        return out
    }
}
