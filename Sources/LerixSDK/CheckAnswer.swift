package import Clock
package import JSON

/// One release control answer read part by part: each part is either a usable value or
/// ``Part/unusable`` (absent or of the wrong type), in which case the SDK keeps its saved value.
///
/// ```swift
/// let answer = try CheckAnswer.parse(Array(#"{"lifetime": "60", "maintenance": []}"#.utf8))
/// print(answer.lifetime)       // unusable: a string is not a lifetime
/// print(answer.maintenance)    // value([])
/// ```
package struct CheckAnswer: Equatable, Sendable {
    /// A part of the answer: a value to apply, or nothing usable.
    package enum Part<Value: Equatable & Sendable>: Equatable, Sendable {
        case value(Value)
        case unusable

        package var value: Value? {
            if case .value(let v) = self { return v }
            return nil
        }

        package var isUsable: Bool { value != nil }
    }

    /// Why a body is not an answer at all (then the check failed and nothing changes).
    package struct Unreadable: Error, Equatable, Sendable, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    package var serverTime: Part<Instant> = .unusable
    package var lifetime: Part<Int> = .unusable
    package var requiredUpdate: Part<RequiredUpdate?> = .unusable
    package var optionalUpdate: Part<OptionalUpdate?> = .unusable
    package var maintenance: Part<[MaintenanceWindow]> = .unusable
    package var sdkSwitches: Part<[SDKSwitch]> = .unusable

    package init() {}

    /// Whether every part could be used (only then is the answer's ETag worth keeping: a 304 on
    /// it would otherwise freeze a part the SDK never read).
    package var isComplete: Bool {
        serverTime.isUsable && lifetime.isUsable && requiredUpdate.isUsable && optionalUpdate.isUsable
            && maintenance.isUsable && sdkSwitches.isUsable
    }

    /// Reads a 200 body. Throws only when the body is not a JSON object; any part of the wrong
    /// type becomes ``Part/unusable`` and the rest is kept.
    package static func parse(_ body: [UInt8]) throws(Unreadable) -> CheckAnswer {
        let json: JSON
        do {
            json = try JSON.parse(body)
        } catch {
            throw Unreadable(reason: "the answer is not JSON: \(error)")
        }
        guard let object = json.objectValue else {
            throw Unreadable(reason: "the answer is a JSON \(json.typeName), not an object")
        }
        return CheckAnswer(object: object)
    }

    /// Reads the parts of an answer object.
    package init(object: JSONObject) {
        if let text = object["server_time"]?.stringValue, let time = Instant(rfc3339: text) {
            serverTime = .value(time)
        }
        if let seconds = object["lifetime"]?.intValue, seconds > 0 {
            lifetime = .value(seconds)
        }
        switch object["required_update"] {
        case .null?: requiredUpdate = .value(nil)
        case let part?: requiredUpdate = RequiredUpdate(json: part).map { .value($0) } ?? .unusable
        case nil: break
        }
        switch object["optional_update"] {
        case .null?: optionalUpdate = .value(nil)
        case let part?: optionalUpdate = OptionalUpdate(json: part).map { .value($0) } ?? .unusable
        case nil: break
        }
        if let windows = object["maintenance"]?.arrayValue {
            maintenance = .value(windows.compactMap(MaintenanceWindow.init(json:)))
        }
        if let switches = object["sdk_switch"]?.arrayValue {
            sdkSwitches = .value(switches.compactMap(SDKSwitch.init(json:)))
        }
    }
}
