import AdapterProtocol
import Clock
import JSON
import LerixSDK

/// The shape of a device's `state` (ADAPTER.md "State"), so an expectation is checked before
/// it runs: a misspelt key inside `optional_update` would otherwise read as a missing value
/// and match `null` or `absent`, a check that passes by accident.
///
/// It also knows which fields are counts and which are times, for values written relative to
/// something: `checks: "+1"` (one more than the device's previous expectation saw) and
/// `last_success: +6m` (six minutes after time 0, on the device's clock).
package enum StateShape {
    static let keys = DeviceStateField.allCases.map(\.rawValue)
    static let screens = DeviceStateField.screens
    /// `optional_update.kind`: the SDK's names, not the rule types.
    static let kinds = [OptionalUpdate.Kind.optional.rawValue, OptionalUpdate.Kind.recommended.rawValue]
    /// Modules with items (`queued`, `sent`, `track`, ingest), and every module a switch can pause.
    static let modules = AdapterVocabulary.modules
    static let pausableModules = AdapterVocabulary.pausableModules

    /// Keys of the objects inside the state; `maintenance` is a list of such objects.
    package static let nested: [String: [String]] = Dictionary(
        uniqueKeysWithValues: DeviceStateField.allCases.compactMap { field in
            field.nestedKeys.map { (field.rawValue, $0) }
        }
    )
    /// Counts, at the top or inside `queued` and `sent`.
    package static let topCounts = [DeviceStateField.checks, .notModified, .failedChecks].map(\.rawValue)
    package static let countObjects = [DeviceStateField.queued, .sent].map(\.rawValue)
    /// Both, what an expectation keeps of each device's state for the next relative count.
    package static let countFields = topCounts + countObjects
    /// Stamped by the device's clock: `last_success`, `device_time`, and `at` inside `last_failure`.
    /// The times inside updates and windows are the server's.
    package static let deviceTimes = [DeviceStateField.lastSuccess, .deviceTime].map(\.rawValue)
    package static let nestedDeviceTimes = [DeviceStateField.lastFailure.rawValue: "at"]
    package static let serverTimes = ["starts_at", "ends_at", "becomes_required_on"]
    package static let keywords = ["any", "present", "absent"]

    /// Checks an expected value for the state field `key` (inside `parent`, when nested);
    /// problems are recorded at the value.
    static func check(_ node: Node, key: String, parent: String? = nil) {
        let isCount = parent.map(countObjects.contains) ?? topCounts.contains(key)
        let isTime =
            parent == nil
            ? deviceTimes.contains(key) : serverTimes.contains(key) || nestedDeviceTimes[parent ?? ""] == key
        switch node.json {
        case .string(let text) where keywords.contains(text):
            return
        case .object where parent == nil && nested[key] != nil && key != "maintenance":
            checkObject(node, key: key)
        case .array where key == "maintenance" && parent == nil:
            for item in node.list() where item.json.objectValue != nil { checkObject(item, key: key) }
        case .array where key == "paused_modules":
            for item in node.list() {
                guard let name = item.attempt({ () throws(ScenarioError) in try item.string() }) else { continue }
                if !pausableModules.contains(name) {
                    item.diagnostics.record(
                        item.error(Suggestion.message("unknown module '\(name)'", for: name, in: pausableModules))
                    )
                }
            }
        case .string(let text) where key == "screen" && parent == nil:
            if !screens.contains(text) {
                node.diagnostics.record(
                    node.error(Suggestion.message("unknown screen '\(text)'", for: text, in: screens))
                )
            }
        case .string(let text) where key == "kind" && parent == "optional_update":
            if !kinds.contains(text) {
                node.diagnostics.record(node.error(Suggestion.message("unknown kind '\(text)'", for: text, in: kinds)))
            }
        case .string(let text) where key == "kind" && parent == DeviceStateField.lastFailure.rawValue:
            let kinds = DeviceStateField.failureKinds
            if !kinds.contains(text) {
                node.diagnostics.record(
                    node.error(Suggestion.message("unknown failure kind '\(text)'", for: text, in: kinds))
                )
            }
        case .string(let text) where isCount:
            if comparison(text) == nil, relativeCount(text) == nil {
                node.diagnostics.record(
                    node.error(
                        "`\(key)` is a count: write a number, one relative to the device's previous expectation (`\"+1\"`), or a comparison (`\">= 2\"`, `\">= +1\"`), not '\(text)'"
                    )
                )
            }
        case .string(let text) where isTime:
            if Instant(rfc3339: text) == nil, TimeSyntax.milliseconds(text) == nil {
                node.diagnostics.record(
                    node.error("`\(key)` is a time: write it relative to time 0 (`+6m`) or in RFC 3339, not '\(text)'")
                )
            }
        default:
            return
        }
    }

    private static func checkObject(_ node: Node, key: String) {
        guard let allowed = nested[key] else { return }
        try? node.checkKeys(allowed, what: "`\(key)`")
        for (k, v) in (try? node.object()) ?? [] where allowed.contains(k) { check(v, key: k, parent: key) }
    }

    /// `">= 3"` → (">=", "3"): a comparison and its operand text.
    package static func comparison(_ text: String) -> (op: String, operand: String)? {
        for op in [">=", "<=", "!=", ">", "<"] where text.hasPrefix(op) {
            let operand = String(text.dropFirst(op.count)).trimmingSpaces()
            guard Double(operand) != nil || relativeCount(operand) != nil else { return nil }
            return (op, operand)
        }
        return nil
    }

    /// Whether a count written as `text` counts from the device's previous expectation (`"+1"`,
    /// `">= +1"`): then each device's counts must be kept from one expectation to the next.
    package static func countsFromPrevious(_ text: String) -> Bool {
        relativeCount(text) != nil || comparison(text).flatMap { relativeCount($0.operand) } != nil
    }

    /// `"+2"` → 2: a count relative to the previous expectation.
    package static func relativeCount(_ text: String) -> Int? {
        guard text.first == "+", let n = Int(text.dropFirst()), n >= 0 else { return nil }
        return n
    }
}
