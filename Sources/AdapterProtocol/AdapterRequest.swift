import Clock
import JSON

/// One adapter command with its fields, typed: the scenario runner builds these and sends
/// ``json(id:)``; the host reads a line with ``init(decoding:)`` and runs the case. Field names
/// and their checks live here only.
///
/// ```swift
/// let request = AdapterRequest.network(device: "phone", online: false)
/// request.json(id: 7).serializedString   // {"id":7,"cmd":"network","device":"phone","online":false}
/// try AdapterRequest(decoding: ["cmd": "hello", "protocol": 1])      // .hello(protocolVersion: 1)
/// try AdapterRequest(decoding: ["cmd": "launch", "device": "phone"])   // .appEvent(.launch, device: "phone")
/// ```
public enum AdapterRequest: Sendable, Equatable {
    /// `protocolVersion`: the adapter protocol the runner speaks (``AdapterProtocolVersion``); nil
    /// from a runner older than the protocol's versions.
    case hello(protocolVersion: Int?)
    /// `now` sets true time on the first create; `replace` swaps an existing device for a new one.
    case create(device: String, now: Instant?, config: DeviceConfig, replace: Bool = false)
    /// One of ``AdapterCommand/appEvents``.
    case appEvent(AdapterCommand, device: String)
    case network(device: String, online: Bool)
    case install(device: String, appVersion: String?, build: String?)
    case track(device: String, module: String, count: Int)
    case setClock(device: String, clockOffsetSeconds: Double)
    case advance(to: Instant)
    case nextDeadline
    case state(device: String)

    public var command: AdapterCommand {
        switch self {
        case .hello: return .hello
        case .create: return .create
        case .appEvent(let command, _): return command
        case .network: return .network
        case .install: return .install
        case .track: return .track
        case .setClock: return .setClock
        case .advance: return .advance
        case .nextDeadline: return .nextDeadline
        case .state: return .state
        }
    }

    /// The request line's object: `id`, `cmd`, then the command's fields.
    public func json(id: Int) -> JSON {
        var pairs: [(String, JSON)] = [("id", .number(Double(id))), ("cmd", .string(command.rawValue))]
        switch self {
        case .hello(let version):
            if let version { pairs.append(("protocol", .number(Double(version)))) }
        case .nextDeadline:
            break
        case .create(let device, let now, let config, let replace):
            pairs.append(("device", .string(device)))
            if let now { pairs.append(("now", .string(now.rfc3339))) }
            pairs.append(("config", config.json))
            if replace { pairs.append(("replace", true)) }
        case .appEvent(_, let device), .state(let device):
            pairs.append(("device", .string(device)))
        case .network(let device, let online):
            pairs += [("device", .string(device)), ("online", .bool(online))]
        case .install(let device, let appVersion, let build):
            pairs += [
                ("device", .string(device)), ("app_version", appVersion.map(JSON.string) ?? .null),
                ("build", build.map(JSON.string) ?? .null),
            ]
        case .track(let device, let module, let count):
            pairs += [("device", .string(device)), ("module", .string(module)), ("count", .number(Double(count)))]
        case .setClock(let device, let seconds):
            pairs += [("device", .string(device)), ("clock_offset_seconds", .number(seconds))]
        case .advance(let to):
            pairs.append(("to", .string(to.rfc3339)))
        }
        return .object(pairs)
    }

    /// Reads a request object (its `id` is the caller's business); the error names the field
    /// and what it should be.
    public init(decoding object: JSONObject) throws(AdapterCommandError) {
        let fields = CommandFields(object)
        let name = try fields.string("cmd")
        guard let command = AdapterCommand(rawValue: name) else {
            throw AdapterCommandError(
                "unknown command \(name)" + KeySuggestion.hint(for: name, in: AdapterCommand.allCases.map(\.rawValue)),
                pointer: "/cmd"
            )
        }
        // One check for every command: a key it does not take is refused, never ignored.
        try fields.checkKeys(["id", "cmd"] + command.fieldNames, in: "a `\(name)` request")
        switch command {
        case .hello: self = .hello(protocolVersion: fields.has("protocol") ? try fields.int("protocol") : nil)
        case .nextDeadline: self = .nextDeadline
        case .create:
            let device = try fields.string("device")
            let replace = try fields.bool("replace", default: false)
            let now = fields.has("now") ? try fields.time("now") : nil
            self = .create(
                device: device,
                now: now,
                config: try DeviceConfig(decoding: try fields.object("config")),
                replace: replace
            )
        case .launch, .foreground, .background, .push, .refresh, .terminate, .later, .skip:
            self = .appEvent(command, device: try fields.string("device"))
        case .state:
            self = .state(device: try fields.string("device"))
        case .network:
            self = .network(device: try fields.string("device"), online: try fields.bool("online"))
        case .install:
            let device = try fields.string("device")
            guard object["app_version"] != nil else {
                throw fields.missing("app_version", " (null for an app without a version)")
            }
            self = .install(
                device: device,
                appVersion: try fields.optionalString("app_version"),
                build: try fields.optionalString("build")
            )
        case .track:
            self = .track(
                device: try fields.string("device"),
                module: try fields.string("module"),
                count: try fields.int("count")
            )
        case .setClock:
            let device = try fields.string("device")
            guard fields.has("clock_offset_seconds") else { throw fields.missing("clock_offset_seconds") }
            self = .setClock(device: device, clockOffsetSeconds: try fields.number("clock_offset_seconds", default: 0))
        case .advance:
            self = .advance(to: try fields.time("to"))
        }
    }
}
