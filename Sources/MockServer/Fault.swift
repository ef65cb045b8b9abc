import JSON

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

    /// Decodes a `POST …/faults` body; throws a 400/422 ``Problem`` pointing at the field.
    public init(json: JSON) throws(Problem) {
        guard let object = json.objectValue else { throw Problem.field("", "expected a JSON object", typeError: true) }
        guard let kindValue = object["kind"] else { throw Problem.field("/kind", "required", typeError: false) }
        guard let kindName = kindValue.stringValue else {
            throw Problem.field("/kind", "expected a string, got \(kindValue.typeName)", typeError: true)
        }
        var count: Int?
        if let value = object["count"], !value.isNull {
            guard let n = value.intValue else {
                throw Problem.field("/count", "expected an integer, got \(value.typeName)", typeError: true)
            }
            guard n >= 1 else { throw Problem.field("/count", "must be at least 1", typeError: false) }
            count = n
        }
        switch kindName {
        case "status":
            guard let value = object["status"] else { throw Problem.field("/status", "required for kind \"status\"", typeError: false) }
            guard let status = value.intValue else {
                throw Problem.field("/status", "expected an integer, got \(value.typeName)", typeError: true)
            }
            guard (400...599).contains(status) else { throw Problem.field("/status", "must be an error status, 400 to 599", typeError: false) }
            var retryAfter: Int?
            if let value = object["retry_after"], !value.isNull {
                guard let seconds = value.intValue else {
                    throw Problem.field("/retry_after", "expected an integer number of seconds, got \(value.typeName)", typeError: true)
                }
                guard seconds >= 0 else { throw Problem.field("/retry_after", "must not be negative", typeError: false) }
                retryAfter = seconds
            }
            kind = .status(status, retryAfter: retryAfter)
        case "delay":
            guard let value = object["seconds"] else { throw Problem.field("/seconds", "required for kind \"delay\"", typeError: false) }
            guard let seconds = value.numberValue else {
                throw Problem.field("/seconds", "expected a number, got \(value.typeName)", typeError: true)
            }
            guard seconds >= 0, seconds <= 600 else { throw Problem.field("/seconds", "must be between 0 and 600", typeError: false) }
            kind = .delay(milliseconds: Int((seconds * 1000).rounded()))
        case "reset": kind = .reset
        case "malformed": kind = .malformed
        case "wrong_types": kind = .wrongTypes
        default:
            throw Problem.field("/kind", "unknown kind \"\(kindName)\"; expected status, delay, reset, malformed or wrong_types",
                                typeError: false)
        }
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
            if remaining <= 1 { removeFirst() } else { first.remaining = remaining - 1; self[0] = first }
        }
        return first
    }
}
