import JSON
import ReleaseControl

/// A misbehaviour armed on one project's check endpoint, so SDK engineers can watch their
/// client survive it. Faults queue: the first armed one applies until its `count` runs out.
///
/// ```swift
/// let fault = try Fault(json: ["kind": "status", "status": 503, "count": 2])
/// ```
public struct Fault: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Answer this status with a problem body (and `Retry-After: retryAfter` seconds when set).
        case status(Int, retryAfter: Int?)
        /// Answer normally after this many seconds of real time.
        case delay(milliseconds: Int)
        /// Close the connection (or reset the stream) without answering.
        case reset
        /// 200 with a body that is not JSON.
        case malformed
        /// 200 with every part of the answer of the wrong JSON type.
        case wrongTypes
    }

    public var kind: Kind
    /// How many more checks it applies to; nil means until cleared.
    public var remaining: Int?

    public init(kind: Kind, count: Int? = nil) {
        self.kind = kind
        remaining = count
    }

    /// The kinds a fault may have, as the wire names them.
    static let kindNames = ["status", "delay", "reset", "malformed", "wrong_types"]
    /// Largest `count`, `retry_after` and `seconds` accepted (the OpenAPI document states them too).
    static let maximumCount = 1_000_000_000
    static let maximumRetryAfter = 86_400
    static let maximumDelaySeconds = 600.0

    /// The keys a fault of kind `name` may hold (`GET …/faults` shows the same keys).
    static func fields(kind name: String?) -> BodyFields {
        switch name {
        case "status"?: return BodyFields(name: "a status fault", writable: ["kind", "status", "retry_after", "count"])
        case "delay"?: return BodyFields(name: "a delay fault", writable: ["kind", "seconds", "count"])
        case let name? where kindNames.contains(name):
            return BodyFields(name: "a \(name) fault", writable: ["kind", "count"])
        default: return BodyFields(name: "a fault", writable: ["kind", "status", "retry_after", "seconds", "count"])
        }
    }

    /// Decodes a `POST …/faults` body; throws a 400/422 ``Problem`` listing every bad field.
    public init(json: JSON) throws(Problem) {
        guard let object = json.objectValue else {
            throw Problem.field(
                "",
                "expected a JSON object like {\"kind\": \"status\", \"status\": 503}, found \(json.typeName)",
                .wrongType
            )
        }
        var problems: [FieldProblem] = []
        func fail(_ key: String, _ message: String, _ kind: FieldProblem.Kind) {
            problems.append(FieldProblem(pointer: "/" + key, message: message, kind: kind))
        }
        /// The integer at `key` within `range`, nil when absent, null or bad (bad is recorded).
        func integer(_ key: String, _ range: ClosedRange<Int>, _ rule: String) -> Int? {
            guard let value = object[key], !value.isNull else { return nil }
            guard let n = value.intValue else {
                if let number = value.numberValue, number.rounded() == number {
                    fail(key, rule, .invalidValue)  // an integer, just far out of range
                } else {
                    fail(
                        key,
                        "expected an integer, found \(value.numberValue == nil ? value.typeName : "a fraction")",
                        .wrongType
                    )
                }
                return nil
            }
            guard range.contains(n) else {
                fail(key, rule, .invalidValue)
                return nil
            }
            return n
        }
        var kindName: String?
        switch object["kind"] {
        case nil, .null?: fail("kind", "required: one of " + Self.kindNames.joined(separator: ", "), .missingField)
        case .string(let name)?:
            kindName = name
            if !Self.kindNames.contains(name) {
                fail(
                    "kind",
                    "unknown kind \"\(name)\"" + KeySuggestion.hint(for: name, in: Self.kindNames),
                    .invalidValue
                )
            }
        case let other?: fail("kind", "expected a string, found \(other.typeName)", .wrongType)
        }
        problems += Self.fields(kind: kindName).problems(in: object)
        let count = integer(
            "count",
            1...Self.maximumCount,
            "must be between 1 and \(Self.maximumCount) (leave it out to keep the fault until cleared)"
        )
        var kind: Kind?
        switch kindName {
        case "status"?:
            let status = integer("status", 400...599, "must be an error status, 400 to 599")
            if object["status"] == nil || object["status"] == .null {
                fail("status", "required for kind \"status\"", .missingField)
            }
            let retryAfter = integer(
                "retry_after",
                0...Self.maximumRetryAfter,
                "must be between 0 and \(Self.maximumRetryAfter) seconds"
            )
            if let status { kind = .status(status, retryAfter: retryAfter) }
        case "delay"?:
            switch object["seconds"] {
            case nil, .null?: fail("seconds", "required for kind \"delay\"", .missingField)
            case .number(let seconds)?:
                if seconds >= 0, seconds <= Self.maximumDelaySeconds {
                    kind = .delay(milliseconds: Int((seconds * 1000).rounded()))
                } else {
                    fail("seconds", "must be between 0 and \(Int(Self.maximumDelaySeconds))", .invalidValue)
                }
            case let other?: fail("seconds", "expected a number, found \(other.typeName)", .wrongType)
            }
        case "reset"?: kind = .reset
        case "malformed"?: kind = .malformed
        case "wrong_types"?: kind = .wrongTypes
        default: break
        }
        guard problems.isEmpty, let kind else { throw Problem(ValidationFailure(problems: problems)) }
        self.kind = kind
        remaining = count
    }

    public var json: JSON {
        var pairs: [(String, JSON)]
        switch kind {
        case .status(let status, let retryAfter):
            pairs = [("kind", "status"), ("status", .number(Double(status)))]
            if let retryAfter { pairs.append(("retry_after", .number(Double(retryAfter)))) }
        case .delay(let ms): pairs = [("kind", "delay"), ("seconds", .number(Double(ms) / 1000))]
        case .reset: pairs = [("kind", "reset")]
        case .malformed: pairs = [("kind", "malformed")]
        case .wrongTypes: pairs = [("kind", "wrong_types")]
        }
        pairs.append(("count", remaining.map { .number(Double($0)) } ?? .null))
        return .object(pairs)
    }

    /// The name the journal shows for a faulted check.
    var name: String {
        switch kind {
        case .status: return "status"
        case .delay: return "delay"
        case .reset: return "reset"
        case .malformed: return "malformed"
        case .wrongTypes: return "wrong_types"
        }
    }
}

extension Array where Element == Fault {
    /// Takes the fault for one check and counts it down, dropping it once spent.
    mutating func consume() -> Fault? {
        guard var first = self.first else { return nil }
        if let remaining = first.remaining {
            if remaining <= 1 {
                removeFirst()
            } else {
                first.remaining = remaining - 1
                self[0] = first
            }
        }
        return first
    }
}
