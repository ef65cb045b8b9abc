import AdapterProtocol
import JSON

/// The seam to an SDK adapter (ADAPTER.md): one command in, one answer out, in order.
///
/// The in-process Swift host and a spawned adapter of another language both sit behind it;
/// tests use an in-memory twin.
///
/// ```swift
/// let answer = try adapter.send(.object([("cmd", "state"), ("device", "phone")]))
/// answer["screen"]?.stringValue
/// ```
public protocol AdapterConnection: AnyObject {
    /// Sends one command (the runner adds `id`) and returns the adapter's answer. Throws
    /// ``AdapterFailure`` when the adapter answers `ok: false` or the connection breaks.
    func send(_ command: JSON) throws(AdapterFailure) -> JSON
    /// Sends one typed request and returns the answer once `ok` is checked. The default goes
    /// through ``send(_:)``; the in-process host takes the request as it is, without JSON.
    func command(_ request: AdapterRequest) throws(AdapterFailure) -> JSON
    /// The `state` of `device`. The default sends the `state` command; the in-process host
    /// reads its device typed, so an expectation over a fleet formats only the fields it names.
    func deviceState(_ device: String) throws(AdapterFailure) -> DeviceStateReading
    /// Ends the adapter (a subprocess is asked to exit, then reaped).
    func close()
}

/// The adapter refused a command or went away.
public struct AdapterFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// Text the adapter sent, cut to `bytes` (at a character) for a message: its sizes are its own.
    static func clipped(_ text: String, bytes: Int = 500) -> String {
        guard text.utf8.count > bytes else { return text }
        var out = ""
        for character in text {
            guard out.utf8.count + character.utf8.count <= bytes else { break }
            out.append(character)
        }
        return out + "… (\(text.utf8.count) bytes)"
    }
}

extension AdapterConnection {
    /// Sends one typed request as its JSON line (the connection numbers it), checking `ok`.
    public func command(_ request: AdapterRequest) throws(AdapterFailure) -> JSON {
        let answer = try send(request.json(id: 0))
        guard answer["ok"]?.boolValue == true else {
            let error = answer["error"]?.stringValue ?? answer.serializedString
            throw Self.refusal(of: request, AdapterFailure.clipped(error))
        }
        return answer
    }

    /// Sends the `state` command (the answer checked for `ok`, as ``command(_:)`` does).
    public func deviceState(_ device: String) throws(AdapterFailure) -> DeviceStateReading {
        .answer(try command(.state(device: device)))
    }

    static func refusal(of request: AdapterRequest, _ reason: String) -> AdapterFailure {
        AdapterFailure("adapter refused `\(request.command.rawValue)`: \(reason)")
    }
}
