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

        /// Matched, not read out: a part's value (an update's Strings) is not copied to be tested.
        package var isUsable: Bool {
            if case .value = self { return true }
            return false
        }
    }

    /// Why a body is not an answer at all (then the check failed and nothing changes).
    package struct Unreadable: Error, Equatable, Sendable, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    package var serverTime: Part<Instant>
    package var lifetime: Part<Int>
    package var requiredUpdate: Part<RequiredUpdate?>
    package var optionalUpdate: Part<OptionalUpdate?>
    package var maintenance: Part<[MaintenanceWindow]>
    package var sdkSwitches: Part<[SDKSwitch]>

    /// An answer with no usable part.
    package init() {
        self.init(
            serverTime: .unusable,
            lifetime: .unusable,
            requiredUpdate: .unusable,
            optionalUpdate: .unusable,
            maintenance: .unusable,
            sdkSwitches: .unusable
        )
    }

    /// An answer of these parts, each stored once (not set over an unusable one first).
    package init(
        serverTime: Part<Instant>,
        lifetime: Part<Int>,
        requiredUpdate: Part<RequiredUpdate?>,
        optionalUpdate: Part<OptionalUpdate?>,
        maintenance: Part<[MaintenanceWindow]>,
        sdkSwitches: Part<[SDKSwitch]>
    ) {
        self.serverTime = serverTime
        self.lifetime = lifetime
        self.requiredUpdate = requiredUpdate
        self.optionalUpdate = optionalUpdate
        self.maintenance = maintenance
        self.sdkSwitches = sdkSwitches
    }

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
        self.init()
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
                guard range.count == name.utf8CodeUnitCount else { return false }
                let spelled = name.utf8Start
                for k in 0..<range.count where b[range.lowerBound &+ k] != spelled[k] { return false }
                return true
            }
            func literal(_ word: StaticString) -> Bool {
                let count = word.utf8CodeUnitCount
                guard i + count <= b.count, named(i..<(i + count), word) else { return false }
                i += count
                return true
            }
            var serverTime: Instant?
            var lifetime = 0
            var seen: UInt8 = 0
            while true {
                guard let key = plainString(), i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                let member: UInt8
                // Told apart by length (and a first letter), then checked whole.
                switch key.count {
                case 7 where named(key, "project"):
                    member = 1
                    guard plainString() != nil else { return nil }
                case 11 where b[key.lowerBound] == UInt8(ascii: "s") && named(key, "server_time"):
                    member = 2
                    guard let text = plainString() else { return nil }
                    serverTime = Instant(rfc3339Bytes: UnsafeBufferPointer(rebasing: b[text]))
                case 8 where named(key, "lifetime"):
                    member = 4
                    // 1 to 15 digits, no leading zero: exact as the parser's Double, an Int as `intValue` reads it.
                    guard i < b.count, b[i] >= UInt8(ascii: "1"), b[i] <= UInt8(ascii: "9") else { return nil }
                    var digits = 0
                    while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9"), digits < 15 {
                        lifetime = lifetime * 10 + Int(b[i] - UInt8(ascii: "0"))
                        digits += 1
                        i += 1
                    }
                case 15 where b[key.lowerBound] == UInt8(ascii: "r") && named(key, "required_update"):
                    member = 8
                    guard literal("null") else { return nil }
                case 15 where named(key, "optional_update"):
                    member = 16
                    guard literal("null") else { return nil }
                case 11 where named(key, "maintenance"):
                    member = 32
                    guard literal("[]") else { return nil }
                case 10 where named(key, "sdk_switch"):
                    member = 64
                    guard literal("[]") else { return nil }
                default:
                    return nil
                }
                guard seen & member == 0, i < b.count else { return nil }
                seen |= member
                // Anything but a comma or the closing brace (a fraction, an exponent, a 16th
                // digit, white space) is left to the general reader.
                if b[i] == UInt8(ascii: ",") {
                    i += 1
                } else if b[i] == UInt8(ascii: "}") {
                    guard i + 1 == b.count else { return nil }
                    return CheckAnswer(
                        serverTime: serverTime.map { .value($0) } ?? .unusable,
                        lifetime: seen & 4 != 0 ? .value(lifetime) : .unusable,
                        requiredUpdate: seen & 8 != 0 ? .value(nil) : .unusable,
                        optionalUpdate: seen & 16 != 0 ? .value(nil) : .unusable,
                        maintenance: seen & 32 != 0 ? .value([]) : .unusable,
                        sdkSwitches: seen & 64 != 0 ? .value([]) : .unusable
                    )
                } else {
                    return nil
                }
            }
        }
    }
}
