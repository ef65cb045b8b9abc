import Adapter
import AdapterProtocol
import JSON

/// A device's `state` as the runner reads it: an adapter's `state` answer, or the in-process
/// host's typed ``DeviceState``. Expectations read fields by name from either, and one matcher
/// judges them, so both give the same verdicts and messages.
///
/// ```swift
/// let state = try adapter.deviceState("phone")
/// state["screen"]            // .string("none"), however the adapter answered
/// ```
public enum DeviceStateReading: Sendable {
    /// The answer object of a `state` command (with its `id` and `ok`).
    case answer(JSON)
    /// The host's typed state: a field is written out only when it is read.
    case typed(DeviceState)

    /// The field named `key`, as the `state` answer writes it; nil when the answer has none.
    public subscript(key: String) -> JSON? {
        switch self {
        case .answer(let answer): return answer[key]
        case .typed(let state):
            guard let field = DeviceStateField(rawValue: key) else { return nil }
            return state.value(field)
        }
    }
}
