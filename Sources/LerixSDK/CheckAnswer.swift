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
        if let answer = readPlainAnswer(body) { return answer }
        return try parseTree(body)
    }

    /// The general reader: the body as a JSON tree, then its parts (``init(object:)``).
    package static func parseTree(_ body: [UInt8]) throws(Unreadable) -> CheckAnswer {
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

    /// The answer of a project with no rule in force, as the server writes it (every device's
    /// launch and most checks get one), read straight from its bytes: no tree, no key Strings.
    /// Nil for anything else (white space, an escape, a non-ASCII byte, a member of another name
    /// or repeated, a rule's object, a window or switch, a number that is not a plain positive
    /// integer), which ``parseTree(_:)`` then reads: the answer is the one it gives.
    package static func readPlainAnswer(_ body: [UInt8]) -> CheckAnswer? {
        body.withUnsafeBufferPointer { b -> CheckAnswer? in
            var i = 1
            guard b.count > 2, b[0] == UInt8(ascii: "{") else { return nil }
            /// A string without escapes, control or non-ASCII bytes at `i` (its quote): the bytes
            /// between the quotes, `i` past the closing one.
            func plainString() -> Range<Int>? {
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
                let start = i + 1
                var end = start
                while end < b.count {
                    let c = b[end]
                    if c == UInt8(ascii: "\"") {
                        i = end + 1
                        return start..<end
                    }
                    guard c >= 0x20, c < 0x80, c != UInt8(ascii: "\\") else { return nil }
                    end += 1
                }
                return nil
            }
            func named(_ range: Range<Int>, _ name: StaticString) -> Bool {
                range.count == name.utf8CodeUnitCount
                    && UnsafeBufferPointer(rebasing: b[range]).elementsEqual(
                        UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
                    )
            }
            func literal(_ word: StaticString) -> Bool {
                let count = word.utf8CodeUnitCount
                guard i + count <= b.count, named(i..<(i + count), word) else { return false }
                i += count
                return true
            }
            var answer = CheckAnswer()
            var seen: UInt8 = 0
            while true {
                guard let key = plainString(), i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                let member: UInt8
                if named(key, "project") {
                    member = 1
                    guard plainString() != nil else { return nil }
                } else if named(key, "server_time") {
                    member = 2
                    guard let text = plainString() else { return nil }
                    if let time = Instant(rfc3339Bytes: UnsafeBufferPointer(rebasing: b[text])) {
                        answer.serverTime = .value(time)
                    }
                } else if named(key, "lifetime") {
                    member = 4
                    // 1 to 15 digits, no leading zero: exact as the parser's Double, an Int as `intValue` reads it.
                    guard i < b.count, b[i] >= UInt8(ascii: "1"), b[i] <= UInt8(ascii: "9") else { return nil }
                    var seconds = 0
                    var digits = 0
                    while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9"), digits < 15 {
                        seconds = seconds * 10 + Int(b[i] - UInt8(ascii: "0"))
                        digits += 1
                        i += 1
                    }
                    answer.lifetime = .value(seconds)
                } else if named(key, "required_update") {
                    member = 8
                    guard literal("null") else { return nil }
                    answer.requiredUpdate = .value(nil)
                } else if named(key, "optional_update") {
                    member = 16
                    guard literal("null") else { return nil }
                    answer.optionalUpdate = .value(nil)
                } else if named(key, "maintenance") {
                    member = 32
                    guard literal("[]") else { return nil }
                    answer.maintenance = .value([])
                } else if named(key, "sdk_switch") {
                    member = 64
                    guard literal("[]") else { return nil }
                    answer.sdkSwitches = .value([])
                } else {
                    return nil
                }
                guard seen & member == 0, i < b.count else { return nil }
                seen |= member
                // Anything but a comma or the closing brace (a fraction, an exponent, a 16th
                // digit, white space) is left to the general reader.
                if b[i] == UInt8(ascii: ",") {
                    i += 1
                } else if b[i] == UInt8(ascii: "}") {
                    return i + 1 == b.count ? answer : nil
                } else {
                    return nil
                }
            }
        }
    }
}
