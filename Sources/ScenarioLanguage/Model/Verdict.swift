import JSON

/// What "asserts something" means, decided once: a scenario passes only if it could have failed.
///
/// A step *can fail* when it is an expectation (`expect`, `expect_server`, `expect_pushes`,
/// `expect_ingest`, `until`) that checks at least one thing, or a rule step written with
/// `rejected: true` (the server might accept it). Setting-up steps (`launch`, `after`,
/// `create_rule` …) fail only when the harness breaks, which is no verdict about the SDK.
///
/// An expectation *checks nothing* when every value it holds matches whatever is seen:
/// no fields at all (`expect_pushes: {}`), `any`, or a count bound every count meets
/// (`checks: ">= 0"`). Such a step, and a scenario with no step that can fail, are load-time
/// errors, so a green run always means something was compared.
///
/// ```swift
/// Verdict.vacuity(of: .pushes([:]))            // "checks nothing: …"
/// Verdict.vacuity(of: .ingest(["analytics": 3])) // nil
/// ```
enum Verdict {
    /// The steps that can fail, in the wording of the load-time error.
    static let failingSteps =
        "an expectation (`expect`, `expect_server`, `expect_pushes`, `expect_ingest`, `until`) or a rule step with `rejected: true`"

    /// Whether `step` could ever fail the scenario (for a vacuous expectation: no).
    static func canFail(_ step: StepAction) -> Bool {
        switch step {
        case .expect(let e), .until(let e, _): return vacuity(of: e) == nil
        case .createRule(let rule): return rule.expectRejected
        case .updateRule(let update): return update.expectRejected
        default: return false
        }
    }

    /// Nil when `expectation` compares at least one value, else why it never can fail.
    static func vacuity(of expectation: Expectation) -> String? {
        let fields: JSONObject
        switch expectation {
        case .device(_, let f):
            fields = f
        case .server(_, let counts, let last):
            // `last`, even empty, demands a latest check (of each device named): that can fail.
            if last != nil { return nil }
            fields = counts
        case .pushes(let f), .ingest(let f):
            fields = f
        }
        if fields.count == 0 {
            return "checks nothing: it names no value to compare, so it would pass whatever happened"
        }
        let nothing = fields.allSatisfy { key, value in
            matchesAnything(value, isCount: isCountField(key, in: expectation))
        }
        return nothing
            ? "checks nothing: every value in it (`any`, or a count bound every count meets) matches whatever is seen"
            : nil
    }

    /// Whether `expected` matches every value a field of this kind can have.
    static func matchesAnything(_ expected: JSON, isCount: Bool) -> Bool {
        switch expected {
        case .string("any"):
            return true
        case .string(let text) where isCount:
            // Counts are never negative: `>= 0`, `>= +0` and `> -1` always hold.
            guard let (op, operand) = StateShape.comparison(text) else { return false }
            let bound = Double(operand) ?? StateShape.relativeCount(operand).map { Double($0) } ?? .nan
            if operand.hasPrefix("+") { return op == ">=" && bound == 0 }
            return (op == ">=" && bound <= 0) || (op == ">" && bound < 0)
        case .object(let o) where isCount:
            // `queued` and `sent` always hold every module: an empty map, or only loose bounds, checks nothing.
            return o.allSatisfy { matchesAnything($0.value, isCount: true) }
        default:
            return false
        }
    }

    /// Whether `key` of this expectation is a count (compared as a number, never negative).
    static func isCountField(_ key: String, in expectation: Expectation) -> Bool {
        switch expectation {
        case .device: return StateShape.countFields.contains(key)
        case .server: return true
        case .pushes: return ["count", "tokens", "changes"].contains(key)
        case .ingest: return true
        }
    }
}
